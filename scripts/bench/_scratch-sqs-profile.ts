// Scratch profiling (deleted after use): CPU per message and HTTP calls per side.
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { Delivery, Queue } from '@queueport/core';
import { SqsDriver } from '@queueport/sqs';
import { median, type Sample, timed } from './runner';
import { outgoingMessages } from './shared/fixtures';
import {
  BATCH,
  bodies,
  CONCURRENCY,
  drainInLoops,
  inputs,
  LEASE_SECONDS,
  openSqsBench,
  publishThroughQueue,
  rawDrain,
  rawSendAll,
  type SqsBench,
  SYSTEM_ATTRIBUTES,
  chunks,
} from './shared/sqs-bench';
import { concurrently } from './shared/fixtures';

const bench = (await openSqsBench(false)) as SqsBench;
const calls = new Map<string, { n: number; bytes: number; respBytes: number }>();
bench.client.middlewareStack.add(
  (next, context) => async (args) => {
    const name = context.commandName ?? '?';
    const body = (args.request as { body?: unknown }).body;
    const entry = calls.get(name) ?? { n: 0, bytes: 0, respBytes: 0 };
    entry.n++;
    entry.bytes += typeof body === 'string' ? Buffer.byteLength(body) : 0;
    calls.set(name, entry);
    return next(args);
  },
  { step: 'finalizeRequest', name: 'countCalls' },
);
const snapshot = () => {
  const out: Record<string, string> = {};
  for (const [k, v] of calls) out[k] = `${v.n} calls, ${Math.round(v.bytes / Math.max(1, v.n))} B/req`;
  calls.clear();
  return out;
};

const N = bench.messages;
type Variant = { name: string; run: (label: string) => Promise<Sample> };

async function withQueue(work: (queueUrl: string) => Promise<Sample>): Promise<Sample> {
  const url = await bench.fresh();
  try {
    return await work(url);
  } finally {
    await bench.drop(url);
  }
}

async function rawDrainDup(queueUrl: string, total: number) {
  return drainInLoops<Message>(
    total,
    async () =>
      (
        await bench.client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: BATCH,
            VisibilityTimeout: LEASE_SECONDS,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: SYSTEM_ATTRIBUTES,
            AttributeNames: SYSTEM_ATTRIBUTES as never,
          }),
        )
      ).Messages ?? [],
    (m) => m.MessageId ?? '',
    async (batch) => {
      const { DeleteMessageBatchCommand } = await import('@aws-sdk/client-sqs');
      await bench.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    },
  );
}

const mode = process.argv[2] ?? 'receive';
const variants: Variant[] =
  mode === 'publish'
    ? [
        { name: 'raw', run: (l) => withQueue((u) => { const b = bodies(l, N); return timed(() => rawSendAll(bench, u, b)); }) },
        {
          name: 'driver',
          run: (l) =>
            withQueue(async (u) => {
              const driver = await SqsDriver.open({ client: bench.client, queue: u });
              const msgs = outgoingMessages(inputs(l, N));
              return timed(async () => {
                await concurrently(chunks(msgs), CONCURRENCY, async (c) => {
                  await driver.publish(c);
                });
                return N;
              });
            }),
        },
        {
          name: 'queue',
          run: (l) =>
            withQueue(async (u) => {
              const queue = await bench.queue(u);
              const envs = inputs(l, N);
              return timed(() => publishThroughQueue(queue, envs));
            }),
        },
      ]
    : mode === 'consume'
      ? [
          { name: 'raw', run: (l) => withQueue(async (u) => { await rawSendAll(bench, u, bodies(l, N)); snapshot(); return timed(() => rawDrain(bench, u, N)); }) },
          {
            name: 'consume',
            run: (l) =>
              withQueue(async (u) => {
                const queue: Queue = await bench.queue(u);
                await publishThroughQueue(queue, inputs(l, N));
                snapshot();
                let batches = 0;
                let batchSum = 0;
                const s = await timed(
                  () =>
                    new Promise<number>((resolve) => {
                      const seen = new Set<string>();
                      const c = queue.consume(async () => {}, { concurrency: CONCURRENCY, waitSeconds: 0 });
                      c.on('acked', ({ delivery }) => {
                        seen.add(delivery.messageId);
                        if (seen.size === N) resolve(N);
                      });
                      c.on('received', () => { batchSum++; });
                    }),
                );
                void batches;
                await queue.close();
                return s;
              }),
          },
        ]
      : [
          { name: 'raw', run: (l) => withQueue(async (u) => { await rawSendAll(bench, u, bodies(l, N)); snapshot(); return timed(() => rawDrain(bench, u, N)); }) },
          { name: 'raw+AttributeNames', run: (l) => withQueue(async (u) => { await rawSendAll(bench, u, bodies(l, N)); snapshot(); return timed(() => rawDrainDup(u, N)); }) },
          {
            name: 'driver',
            run: (l) =>
              withQueue(async (u) => {
                const driver = await SqsDriver.open({ client: bench.client, queue: u });
                const queue = await bench.queue(u);
                await publishThroughQueue(queue, inputs(l, N));
                snapshot();
                return timed(() =>
                  drainInLoops(
                    N,
                    () => driver.receive({ maxMessages: BATCH, leaseSeconds: LEASE_SECONDS, waitSeconds: 0 }),
                    (m) => m.messageId,
                    async (b) => {
                      await driver.ack(b.map((m) => m.receipt));
                    },
                  ),
                );
              }),
          },
          {
            name: 'queue',
            run: (l) =>
              withQueue(async (u) => {
                const queue = await bench.queue(u);
                await publishThroughQueue(queue, inputs(l, N));
                snapshot();
                return timed(() =>
                  drainInLoops<Delivery>(
                    N,
                    () => queue.receive({ maxMessages: BATCH, leaseSeconds: LEASE_SECONDS, waitSeconds: 0 }),
                    (d) => d.messageId,
                    async (b) => {
                      await queue.ackBatch(b);
                    },
                  ),
                );
              }),
          },
        ];

const reps = Number(process.argv[3] ?? 5);
const results = new Map<string, { rate: number[]; cpu: number[] }>();
for (let r = 0; r <= reps; r++) {
  const order = r % 2 === 0 ? variants : [...variants].reverse();
  for (const v of order) {
    const s = await v.run(`${v.name.slice(0, 3)}${r}`);
    const c = snapshot();
    if (r === 0) continue;
    const e = results.get(v.name) ?? { rate: [], cpu: [] };
    e.rate.push((s.ops * 1000) / s.ms);
    e.cpu.push(s.cpuUs / s.ops);
    results.set(v.name, e);
    if (r === 1) console.log(v.name, JSON.stringify(c));
  }
}
for (const [name, e] of results) {
  console.log(
    `${name.padEnd(20)} ${median(e.rate).toFixed(0)}/s  cpu ${median(e.cpu).toFixed(0)} µs/msg  (cpu ${e.cpu.map((x) => x.toFixed(0)).join(' ')})`,
  );
}
await bench.close();
