/**
 * The portable Queue's own cost on the memory driver, beside the same work done on the driver
 * directly (same messages, same batches, same run).
 *
 *   node --conditions=source --import tsx scripts/bench/queue-bench.ts [--json] [--messages N] [--rounds R] [--native S]
 *
 * A. Queue: publishBatch in tens, then receive ten at a time and ackBatch them (`--ack one`:
 *    ack each delivery by itself).
 * B. raw: the same encoded bodies through driver.publish / driver.receive / driver.ack.
 * `--native 900` makes the memory driver hold at most 900 s, so the Queue runs with the delay
 * bridge switched on (no message here is delayed: the cost measured is the bridge's bookkeeping).
 * Rounds alternate A B A B so drift hits both alike; the ratio is A's rate over B's.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type EnvelopeInput, encodeEnvelope, prepareEnvelope, Queue } from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { MemoryDriver } from '@queueport/memory';

const { values: args } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    messages: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    native: { type: 'string' },
    /** `one`: settle each delivery by itself (`delivery.ack()`), as a consumer handler does. */
    ack: { type: 'string', default: 'batch' },
  },
});
const MESSAGES = Number(args.messages);
const ROUNDS = Number(args.rounds);
const BATCH = 10;
const driverOptions = args.native ? { nativeMaxDelaySeconds: Number(args.native) } : {};

function inputs(round: string): EnvelopeInput[] {
  return Array.from({ length: MESSAGES }, (_, i) => ({
    event_id: `bench_${round}_${i}:settled:v1`,
    type: 'payment.settled',
    payload: { payment_id: `payment_${i}`, amount: 4200, currency: 'EUR' },
  }));
}

async function viaQueue(round: string): Promise<number> {
  const queue = new Queue(new MemoryDriver(driverOptions));
  const all = inputs(round);
  const started = performance.now();
  for (let i = 0; i < all.length; i += BATCH) {
    await queue.publishBatch(all.slice(i, i + BATCH).map((envelope) => ({ envelope })));
  }
  for (let received = 0; received < MESSAGES; ) {
    const batch = await queue.receive({ maxMessages: BATCH, leaseSeconds: 60 });
    if (args.ack === 'one') for (const delivery of batch) await delivery.ack();
    else await queue.ackBatch(batch);
    received += batch.length;
  }
  const seconds = (performance.now() - started) / 1000;
  await queue.close();
  return MESSAGES / seconds;
}

async function raw(round: string): Promise<number> {
  const driver = new MemoryDriver(driverOptions);
  // The raw side gets its bodies ready-made: encoding is part of the Queue's work, not the driver's.
  const messages: OutgoingMessage[] = inputs(round).map((input) => {
    const envelope = prepareEnvelope(input);
    return {
      eventId: envelope.event_id,
      dedupeKey: envelope.event_id,
      body: encodeEnvelope(envelope),
      attributes: {},
      delaySeconds: 0,
    };
  });
  const started = performance.now();
  for (let i = 0; i < messages.length; i += BATCH) await driver.publish(messages.slice(i, i + BATCH));
  for (let received = 0; received < MESSAGES; ) {
    const batch = await driver.receive({ maxMessages: BATCH, leaseSeconds: 60, waitSeconds: 0 });
    if (args.ack === 'one') for (const message of batch) await driver.ack([message.receipt]);
    else await driver.ack(batch.map((m) => m.receipt));
    received += batch.length;
  }
  const seconds = (performance.now() - started) / 1000;
  await driver.close();
  return MESSAGES / seconds;
}

const queueRates: number[] = [];
const rawRates: number[] = [];
await viaQueue('warm');
await raw('warm');
for (let round = 0; round < ROUNDS; round++) {
  queueRates.push(await viaQueue(`q${round}`));
  rawRates.push(await raw(`r${round}`));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const result = {
  messages: MESSAGES,
  rounds: ROUNDS,
  bridge: Boolean(args.native),
  queuePerSecond: Math.round(median(queueRates)),
  rawPerSecond: Math.round(median(rawRates)),
  ratio: Number((median(queueRates) / median(rawRates)).toFixed(3)),
  ratios: queueRates.map((q, i) => Number((q / rawRates[i]!).toFixed(3))),
};
console.log(args.json ? JSON.stringify(result) : result);
