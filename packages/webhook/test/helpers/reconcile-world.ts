import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { memoryAdapter } from '@queueport/memory';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { createWebhookSender, type Destination, type WebhookSender } from '../../src';
import { LOOPBACK_SSRF } from './fixtures';
import { PayloadStore, type SeededLedger, seedLedger } from './reconcile-ledger';

/** What reconciliation runs against in these tests: a seeded SQLite ledger, two memory queues, a receiver. */
export interface ReconcileWorld {
  store: PayloadStore;
  seeded: SeededLedger;
  ledger: Ledger;
  /** The delivery workers' queue, where stuck events are republished. */
  queue: Queue;
  /** The reconcile workers' queue (`enqueueScan`). */
  work: Queue;
  receiver: ReferenceReceiver;
  destination: Destination;
  sender: WebhookSender;
  /** What a queue holds now (waiting, delayed, leased). */
  depth(queue: 'queue' | 'work'): Promise<number | null>;
  close(): Promise<void>;
}

/** Problem events the tests provoke on purpose; a failing assertion says what matters. */
const quiet = { warn: () => {} };

export async function startReconcileWorld(options: { stale?: number } = {}): Promise<ReconcileWorld> {
  const folder = await mkdtemp(join(tmpdir(), 'queueport-reconcile-'));
  const ledgerFile = join(folder, 'ledger.sqlite');
  const store = new PayloadStore();
  const seeded = await seedLedger(ledgerFile, store, options);
  const ledger = await openSqliteLedger({ filename: ledgerFile });
  const tag = randomUUID().slice(0, 8);
  const urls = { queue: `memory://reconcile-a-${tag}`, work: `memory://reconcile-work-${tag}` };
  const open = async (url: string) =>
    new Queue(await memoryAdapter.open(new URL(url), {}), { logger: quiet });
  const queue = await open(urls.queue);
  const work = await open(urls.work);
  const admin = await memoryAdapter.admin!(new URL('memory://'), {});
  const receiver = await startReferenceReceiver({ mode: 'idempotent' });
  const sender = createWebhookSender({ ssrf: LOOPBACK_SSRF, requestTimeoutMs: 5_000 });
  return {
    store,
    seeded,
    ledger,
    queue,
    work,
    receiver,
    destination: { id: 'receiver', url: receiver.url },
    sender,
    depth: async (name) => (await admin.stats(urls[name])).depth,
    async close() {
      await Promise.allSettled([queue.close({ timeoutMs: 500 }), work.close({ timeoutMs: 500 })]);
      for (const url of Object.values(urls)) await admin.deleteQueue(url).catch(() => undefined);
      await admin.close();
      await sender.close();
      await receiver.close();
      await ledger.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
