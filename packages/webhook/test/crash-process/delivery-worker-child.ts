/**
 * A DeliveryWorker process over a BullMQ queue and a durable ledger, for its parent to SIGKILL
 * at one crash point. With `--crash <point> --nth <n>`, the n-th delivery that reaches `point`
 * prints `{"crashed":"<point>","eventId":"…"}` on stdout and freezes the whole process there, so
 * nothing after the point (no POST, no coalesced settle, no ack, no lease extension, no flush of
 * a batch) ever runs. Without `--crash` it delivers until killed. Settings come as flags (see
 * `read` below); the signing secret comes in QUEUEPORT_CRASH_SECRET, never on the command line.
 */
import { writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { bullmqAdapter } from '@queueport/bullmq';
import { openQueue } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { CRASH_POINTS, type CrashPoint, createWebhookSender, DeliveryWorker } from '../../src';

/** Past this a frozen process gives up waiting for its parent's SIGKILL: an orphan must not linger. */
const FROZEN_BOUND_MS = 60_000;
/** Exit code of a process that froze and was never killed. */
const NEVER_KILLED = 70;

const { values } = parseArgs({
  options: {
    queue: { type: 'string' },
    ledger: { type: 'string' },
    schema: { type: 'string' },
    receiver: { type: 'string' },
    concurrency: { type: 'string' },
    'lease-seconds': { type: 'string' },
    'timeout-ms': { type: 'string' },
    crash: { type: 'string' },
    nth: { type: 'string' },
  },
});

function read(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') {
    process.stderr.write(`delivery-worker-child: --${name} is required\n`);
    process.exit(2);
  }
  return value;
}

const secret = process.env.QUEUEPORT_CRASH_SECRET;
if (!secret) {
  process.stderr.write('delivery-worker-child: QUEUEPORT_CRASH_SECRET is not set\n');
  process.exit(2);
}

// An orphan would go on delivering (or stay frozen) after its parent died: it goes with it.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();

function crashInjector(): ((point: CrashPoint, eventId: string) => boolean) | undefined {
  if (values.crash === undefined) return undefined;
  const target = read('crash') as CrashPoint;
  if (!CRASH_POINTS.includes(target)) {
    process.stderr.write(`delivery-worker-child: --crash must be one of ${CRASH_POINTS.join(', ')}\n`);
    process.exit(2);
  }
  const nth = Number(read('nth'));
  let reached = 0;
  return (point, eventId) => {
    if (point !== target || ++reached !== nth) return false;
    // Synchronous write, then a synchronous wait: the event loop never turns again, so the
    // process stands exactly at the point until the parent kills it.
    writeSync(1, `${JSON.stringify({ crashed: point, eventId })}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FROZEN_BOUND_MS);
    process.exit(NEVER_KILLED);
  };
}

async function openLedger(): Promise<Ledger> {
  const where = read('ledger');
  if (where === 'postgres') {
    return openPostgresLedger({
      connectionString: process.env.QUEUEPORT_POSTGRES_URL,
      schema: read('schema'),
    });
  }
  return openSqliteLedger({ filename: where });
}

const ledger = await openLedger();
const queue = await openQueue(read('queue'), { adapters: [bullmqAdapter] });
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
  route: () => ({ id: 'crash-receiver', url: receiver, secrets: [secret] }),
  ledgerLeaseSeconds: leaseSeconds,
  // The margin is what lets a lease of a few seconds pass the floor (timeout + margin).
  leaseMarginSeconds: 1,
  crash: crashInjector(),
});
worker.start({
  concurrency: Number(read('concurrency')),
  leaseSeconds,
  onError: (error) => process.stderr.write(`delivery-worker-child: ${String(error)}\n`),
});
process.stdout.write(`${JSON.stringify({ started: worker.workerId })}\n`);
