import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bullmqAdapter } from '@queueport/bullmq';
import { AdapterRegistry, openQueue } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../../../../scripts/test-services/ports';
import type { CrashPoint } from '../../src';
import { startReferenceReceiver } from '../../src/reference-receiver';
import { newSecret } from '../helpers/fixtures';
import { startRequestTap } from './request-tap';
import { spawnWorker, type WorkerProcess } from './spawn-worker';

/** Events per run: more than one batch of claims at the worker's concurrency. */
const EVENTS = 20;
/** At least 8 deliveries at once, so claims and settles go to the ledger coalesced. */
const CONCURRENCY = 8;
/** The delivery that dies is the n-th to reach the point: earlier ones are in flight or done. */
const NTH = 4;
/** Queue and ledger lease alike: the second process waits this out before it takes the event. */
const LEASE_SECONDS = 3;
/** Small, so the lease floor (timeout + the child's 1 s margin) admits a 3 s lease. */
const REQUEST_TIMEOUT_MS = 1000;
/** tsx compiles the child and the workspace sources before it takes anything; slack for a busy machine. */
const CRASH_BOUND_MS = 20_000;
/** The second process: start-up, the leases lapsing, BullMQ's stalled check, then every delivery. */
const RECOVERY_BOUND_MS = 30_000;
/** Lines before the crash line: the `started` one. */
const LINES_BEFORE_CRASH = 1;

const registry = new AdapterRegistry([bullmqAdapter]);
const children: WorkerProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.allSettled(children.splice(0).map((child) => child.kill()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface StoreUnderTest {
  name: string;
  /** Opens the parent's view of a fresh ledger (creating it) and names it for the children. */
  open(): Promise<{ ledger: Ledger; flags: Record<string, string> }>;
}

const sqlite: StoreUnderTest = {
  name: 'SQLite ledger file',
  async open() {
    const dir = await mkdtemp(path.join(tmpdir(), 'qp-crash-process-'));
    const filename = path.join(dir, 'ledger.db');
    const ledger = await openSqliteLedger({ filename });
    cleanups.push(async () => {
      await ledger.close();
      await rm(dir, { recursive: true, force: true });
    });
    return { ledger, flags: { ledger: filename } };
  },
};

const postgresUrl = process.env.QUEUEPORT_POSTGRES_URL || undefined;
const postgres: StoreUnderTest = {
  name: 'PostgreSQL ledger',
  async open() {
    const schema = `crash_process_${process.pid}_${randomBytes(3).toString('hex')}`;
    const ledger = await openPostgresLedger({ connectionString: postgresUrl, schema });
    cleanups.push(async () => {
      await ledger.close();
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    });
    return { ledger, flags: { ledger: 'postgres', schema } };
  },
};

let queues = 0;
/** A fresh BullMQ queue under a key prefix of its own on the test Redis; deleted after the test. */
async function scratchQueue(): Promise<{ url: string; provider: string }> {
  const redis = new URL(process.env.QUEUEPORT_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const provider = new URL(`bullmq://${redis.host}`);
  if (redis.pathname.length > 1) provider.searchParams.set('db', redis.pathname.slice(1));
  provider.searchParams.set('prefix', `qp-crash-process-${process.pid}-${++queues}`);
  // A dead process's jobs come back within this long after its lock ends.
  provider.searchParams.set('stalledIntervalMs', '250');
  const url = new URL(provider.href);
  url.pathname = '/deliveries';
  const publisher = await openQueue(url.href, { adapters: [bullmqAdapter] });
  cleanups.push(async () => {
    await publisher.close();
    const admin = await registry.openAdmin(provider.href);
    await admin.deleteQueue(url.href).finally(() => admin.close());
  });
  const envelopes = Array.from({ length: EVENTS }, (_, i) => ({
    envelope: { event_id: `order_${i + 1}:paid`, type: 'order.paid', payload: { order: i + 1 } },
  }));
  await publisher.publishBatch(envelopes);
  return { url: url.href, provider: provider.href };
}

const eventIds = Array.from({ length: EVENTS }, (_, i) => `order_${i + 1}:paid`);

function worker(flags: Record<string, string | number>, secret: string): WorkerProcess {
  const child = spawnWorker(
    {
      ...flags,
      concurrency: CONCURRENCY,
      'lease-seconds': LEASE_SECONDS,
      'timeout-ms': REQUEST_TIMEOUT_MS,
    },
    { QUEUEPORT_CRASH_SECRET: secret },
  );
  children.push(child);
  return child;
}

/** Reads the child's lines until the crash line; the crash is the only way this child stops talking. */
async function crashed(child: WorkerProcess): Promise<{ crashed: CrashPoint; eventId: string }> {
  for (let line = 0; line <= LINES_BEFORE_CRASH; line++) {
    const said = await child.nextLine<{ crashed?: CrashPoint; eventId?: string }>(
      'the crash point',
      CRASH_BOUND_MS,
    );
    if (said.crashed && said.eventId) return { crashed: said.crashed, eventId: said.eventId };
  }
  throw new Error(`the child said ${LINES_BEFORE_CRASH + 1} lines without reaching its crash point`);
}

/**
 * What the killed process had done to its event when it died, by the point: the claim is
 * committed at both (the row is processing under its lease, one attempt, no outcome), and only
 * after `after-send` had the POST reached the receiver.
 */
const SENT_BEFORE_CRASH: Record<'after-claim' | 'after-send', number> = { 'after-claim': 0, 'after-send': 1 };

const stores = postgresUrl ? [sqlite, postgres] : [sqlite];
if (!postgresUrl) {
  describe('crash-process: PostgreSQL ledger', () => {
    it.skip('skipped: no PostgreSQL URL was provided (set QUEUEPORT_POSTGRES_URL)', () => {});
  });
}

describe.each(stores)('a DeliveryWorker process SIGKILLed mid-delivery (BullMQ, $name)', (store) => {
  it.each(['after-claim', 'after-send'] as const)(
    'killed %s, a second process delivers every event exactly once at the idempotent receiver',
    async (point) => {
      const secret = newSecret();
      const receiver = await startReferenceReceiver({ mode: 'idempotent', secrets: [secret] });
      cleanups.push(() => receiver.close());
      const tap = await startRequestTap(receiver.url);
      cleanups.push(() => tap.close());
      const { ledger, flags } = await store.open();
      const { url, provider } = await scratchQueue();
      const shared = { ...flags, queue: url, receiver: tap.url };

      const first = worker({ ...shared, crash: point, nth: NTH }, secret);
      const { eventId: killed } = await crashed(first);
      await first.kill();

      // The crash was real and at the point: the claim is durable, its outcome is not.
      expect(await ledger.get(killed)).toMatchObject({ state: 'processing', attempts: 1, lastOutcome: null });
      expect(tap.requestsFor(killed)).toBe(SENT_BEFORE_CRASH[point]);
      expect(receiver.effectCount(killed)).toBe(SENT_BEFORE_CRASH[point]);

      const second = worker(shared, secret);
      const admin = await registry.openAdmin(provider);
      cleanups.push(() => admin.close());
      await waitUntil(
        'the second process never delivered every event',
        async () => {
          for (const id of eventIds) if ((await ledger.get(id))?.state !== 'delivered') return false;
          return (await admin.stats(url)).depth === 0;
        },
        { timeoutMs: RECOVERY_BOUND_MS, intervalMs: 100, giveUp: second.gone },
      );
      await second.kill();

      const effects = Object.fromEntries(eventIds.map((id) => [id, receiver.effectCount(id)]));
      expect(effects).toEqual(Object.fromEntries(eventIds.map((id) => [id, 1])));
      expect(receiver.effectTotal()).toBe(EVENTS);
      // One POST from the second process; after-send, the killed one's POST came first.
      expect(tap.requestsFor(killed)).toBe(SENT_BEFORE_CRASH[point] + 1);
      // The lease lapsed without an outcome, so the ledger cannot tell whether the receiver
      // acted: the row is ambiguous at both points (only the receiver's key made it one effect).
      expect(await ledger.get(killed)).toMatchObject({ state: 'delivered', attempts: 2, ambiguous: true });
      expect((await admin.stats(url)).deadLetters).toBe(0);
    },
  );
});
