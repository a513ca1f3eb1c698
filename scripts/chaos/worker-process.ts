/**
 * One delivery worker of the campaign: a DeliveryWorker over `--queue` (any adapter the campaign
 * runs) and a ledger (`--ledger sqlite:<file>` or `--ledger postgres:<schema>`, the server from
 * QUEUEPORT_POSTGRES_URL), POSTing to `--receiver`. It prints `{ "started": … }` and delivers
 * until it is killed (the point) or its stdin ends. The signing secret comes in
 * QUEUEPORT_CHAOS_SECRET, never on the command line.
 */
import { parseArgs } from 'node:util';
import { bullmqAdapter } from '@queueport/bullmq';
import { openQueue } from '@queueport/core';
import { infraiAdapter } from '@queueport/infrai';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { sqsAdapter } from '@queueport/sqs';
import { createWebhookSender, DeliveryWorker } from '@queueport/webhook';

const { values } = parseArgs({
  options: {
    queue: { type: 'string' },
    ledger: { type: 'string' },
    receiver: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    'lease-seconds': { type: 'string', default: '3' },
    'timeout-ms': { type: 'string', default: '1000' },
  },
});

function read(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') {
    process.stderr.write(`worker-process: --${name} is required\n`);
    process.exit(2);
  }
  return value;
}

const secret = process.env.QUEUEPORT_CHAOS_SECRET;
if (!secret) {
  process.stderr.write('worker-process: QUEUEPORT_CHAOS_SECRET is not set\n');
  process.exit(2);
}

// An orphan would go on delivering after its controller died: it goes with it.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();

async function openLedger(where: string): Promise<Ledger> {
  if (where.startsWith('postgres:')) {
    return openPostgresLedger({
      connectionString: process.env.QUEUEPORT_POSTGRES_URL,
      schema: where.slice('postgres:'.length),
    });
  }
  if (where.startsWith('sqlite:')) return openSqliteLedger({ filename: where.slice('sqlite:'.length) });
  process.stderr.write('worker-process: --ledger must be sqlite:<file> or postgres:<schema>\n');
  process.exit(2);
}

const ledger = await openLedger(read('ledger'));
const queue = await openQueue(read('queue'), { adapters: [bullmqAdapter, sqsAdapter, infraiAdapter] });
const sender = createWebhookSender({
  requestTimeoutMs: Number(read('timeout-ms')),
  ssrf: { allowHttp: true, allowLoopback: true },
});
const receiver = read('receiver');
const leaseSeconds = Number(read('lease-seconds'));
const worker = new DeliveryWorker({
  queue,
  ledger,
  sender,
  route: () => ({ id: 'chaos-receiver', url: receiver, secrets: [secret] }),
  ledgerLeaseSeconds: leaseSeconds,
  leaseMarginSeconds: 1,
});
worker.start({
  concurrency: Number(read('concurrency')),
  leaseSeconds,
  onError: (error) => process.stderr.write(`worker-process: ${String(error)}\n`),
});
process.stdout.write(`${JSON.stringify({ started: worker.workerId })}\n`);
