/**
 * End-to-end webhook delivery against the floor of the same HTTP path.
 *
 *   node --conditions=source --import tsx scripts/bench/delivery-bench.ts [--json] [--events N] [--concurrency C] [--rounds R]
 *
 * A. queueport: N events published to a memory queue, delivered by the DeliveryWorker (SQLite
 *    ledger claim + complete around each signed-less POST) at concurrency C to the reference
 *    receiver on loopback, until the receiver has recorded all N effects;
 * B. raw: N undici POSTs of the same bodies to the same receiver from C concurrent loops.
 * Alternates A B A B … (R rounds) so drift hits both alike, and prints A / B.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { encodeEnvelope, prepareEnvelope, Queue } from '@queueport/core';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import { createWebhookSender, DeliveryWorker } from '@queueport/webhook';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { Agent, request } from 'undici';

const { values: args } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    events: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
  },
});
const EVENTS = Number(args.events);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);
const dir = mkdtempSync(path.join(os.tmpdir(), 'queueport-bench-'));

function envelopes(round: string) {
  return Array.from({ length: EVENTS }, (_, i) =>
    prepareEnvelope({
      event_id: `bench_${round}_${i}:settled:v1`,
      type: 'payment.settled',
      payload: { i, amount: 4200 },
    }),
  );
}

async function waitForEffects(receiver: ReferenceReceiver, count: number): Promise<void> {
  while (receiver.effectTotal() < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

async function queueport(round: string): Promise<number> {
  const receiver = await startReferenceReceiver({ mode: 'idempotent' });
  const queue = new Queue(new MemoryDriver({ batchMax: 10 }));
  const ledger = await openSqliteLedger({ filename: path.join(dir, `ledger-${round}.sqlite`) });
  const sender = createWebhookSender({
    ssrf: { allowHttp: true, allowLoopback: true },
    connectionsPerOrigin: CONCURRENCY,
  });
  const worker = new DeliveryWorker({
    queue,
    ledger,
    sender,
    route: () => ({ id: 'bench', url: receiver.url }),
  });
  await queue.publishBatch(envelopes(round).map((envelope) => ({ envelope })));
  const started = performance.now();
  const consumer = worker.start({ concurrency: CONCURRENCY, waitSeconds: 0.05 });
  await waitForEffects(receiver, EVENTS);
  const elapsed = performance.now() - started;
  await consumer.close();
  await Promise.all([queue.close(), sender.close(), receiver.close(), ledger.close()]);
  return EVENTS / (elapsed / 1000);
}

async function raw(round: string): Promise<number> {
  const receiver = await startReferenceReceiver({ mode: 'idempotent' });
  const agent = new Agent({ connections: CONCURRENCY });
  const bodies = envelopes(round).map((envelope) => ({
    id: envelope.event_id,
    body: encodeEnvelope(envelope),
  }));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < bodies.length; i = next++) {
        const { id, body } = bodies[i]!;
        const response = await request(receiver.url, {
          method: 'POST',
          dispatcher: agent,
          body,
          headers: { 'content-type': 'application/json', 'idempotency-key': id, 'webhook-id': id },
        });
        await response.body.dump();
      }
    }),
  );
  const elapsed = performance.now() - started;
  await waitForEffects(receiver, EVENTS);
  await agent.close();
  await receiver.close();
  return EVENTS / (elapsed / 1000);
}

const samples = { queueport: [] as number[], raw: [] as number[] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    samples.queueport.push(await queueport(`q${round}`));
    samples.raw.push(await raw(`r${round}`));
    process.stderr.write(
      `round ${round + 1}/${ROUNDS}: queueport ${samples.queueport.at(-1)!.toFixed(0)}/s, raw POST ${samples.raw.at(-1)!.toFixed(0)}/s\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const result = {
  events: EVENTS,
  concurrency: CONCURRENCY,
  rounds: ROUNDS,
  queueportPerSecond: Math.round(median(samples.queueport)),
  rawPostPerSecond: Math.round(median(samples.raw)),
  ratio: Number((median(samples.queueport) / median(samples.raw)).toFixed(2)),
};
if (args.json) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`deliveries/s   queueport end to end   raw undici POST   ratio`);
  console.log(
    `median of ${ROUNDS}    ${String(result.queueportPerSecond).padStart(20)}   ${String(result.rawPostPerSecond).padStart(15)}   ${result.ratio}`,
  );
}
