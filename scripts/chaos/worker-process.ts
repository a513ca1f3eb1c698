/**
 * One delivery worker of the campaign: a DeliveryWorker over `--queue` (any adapter the campaign
 * runs) and a ledger (`--ledger sqlite:<file>` or `--ledger postgres:<schema>`, the server from
 * QUEUEPORT_POSTGRES_URL), POSTing to `--receiver`. It prints `{ "started": … }` and delivers
 * until it is killed (the point) or its stdin ends. The signing secret comes in
 * QUEUEPORT_CHAOS_SECRET, never on the command line. `--plant <fault>` breaks it on purpose (see
 * planted-faults.ts), for the campaign's proof that the checker notices.
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
import { forgetFirstClaims, freshKeyPerAttempt, PLANTED_FAULTS, type PlantedFault } from './planted-faults';

const { values } = parseArgs({
  options: {
    queue: { type: 'string' },
    ledger: { type: 'string' },
    receiver: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    'lease-seconds': { type: 'string', default: '3' },
    'timeout-ms': { type: 'string', default: '1000' },
    plant: { type: 'string' },
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

const plant = values.plant as PlantedFault | undefined;
if (plant !== undefined && !PLANTED_FAULTS.includes(plant)) {
  process.stderr.write(`worker-process: --plant must be one of ${PLANTED_FAULTS.join(', ')}\n`);
  process.exit(2);
}
const OPEN_BOUND_MS = 30_000;
/** As a service at boot would: its broker or database may be in the middle of a restart. */
async function untilOpen<T>(what: string, open: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + OPEN_BOUND_MS;
  for (;;) {
    try {
      return await open();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      process.stderr.write(`worker-process: opening the ${what} failed, trying again: ${String(error)}\n`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
const opened = await untilOpen('ledger', () => openLedger(read('ledger')));
const ledger = plant === 'forget-claim' ? forgetFirstClaims(opened) : opened;
const queue = await untilOpen('queue', () =>
  openQueue(read('queue'), { adapters: [bullmqAdapter, sqsAdapter, infraiAdapter] }),
);
const realSender = createWebhookSender({
  requestTimeoutMs: Number(read('timeout-ms')),
  ssrf: { allowHttp: true, allowLoopback: true },
});
const sender = plant === 'fresh-key' ? freshKeyPerAttempt(realSender) : realSender;
const receiver = read('receiver');
const leaseSeconds = Number(read('lease-seconds'));
const worker = new DeliveryWorker({
  queue,
  ledger,
  sender,
  route: () => ({ id: 'chaos-receiver', url: receiver, secrets: [secret] }),
  ledgerLeaseSeconds: leaseSeconds,
  leaseMarginSeconds: 1,
  // Retries within the campaign's bounds: half a second first, never more than five.
  retry: { baseMs: 500, maxMs: 5000 },
});
const onError = (error: unknown) => process.stderr.write(`worker-process: ${String(error)}\n`);
if (plant === 'ack-before-send') {
  // The message is gone from the queue before its POST: a kill in between loses the event.
  queue.consume(
    async (delivery, { signal }) => {
      await delivery.ack();
      const acked = Object.create(delivery, { ack: { value: async () => undefined } }) as typeof delivery;
      await worker.process(acked, signal);
    },
    { concurrency: Number(read('concurrency')), leaseSeconds, onError },
  );
} else worker.start({ concurrency: Number(read('concurrency')), leaseSeconds, onError });
process.stdout.write(`${JSON.stringify({ started: worker.workerId })}\n`);
