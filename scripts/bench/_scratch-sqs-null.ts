// Scratch (deleted after use): client-side CPU per message with an in-process null SQS (no HTTP).
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { type Delivery, Queue } from '@queueport/core';
import { SqsDriver } from '@queueport/sqs';
import { median, timed } from './runner';
import { concurrently, outgoingMessages } from './shared/fixtures';
import { BATCH, bodies, CONCURRENCY, chunks, drainInLoops, inputs, SYSTEM_ATTRIBUTES } from './shared/sqs-bench';

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
const stores = new Map<string, string[]>();
const counts = new Map<string, number>();
const handler = {
  async handle(request: { headers: Record<string, string>; body?: unknown }) {
    const target = request.headers['x-amz-target']!.split('.')[1]!;
    counts.set(target, (counts.get(target) ?? 0) + 1);
    const input = JSON.parse(String(request.body)) as Record<string, any>;
    let out: unknown;
    if (target === 'GetQueueAttributes') {
      out = { Attributes: { QueueArn: 'arn:aws:sqs:us-east-1:000000000000:q', MaximumMessageSize: '262144', MessageRetentionPeriod: '345600' } };
    } else if (target === 'SendMessageBatch') {
      const store = stores.get(input.QueueUrl) ?? [];
      stores.set(input.QueueUrl, store);
      out = {
        Successful: input.Entries.map((e: any) => {
          store.push(e.MessageBody);
          return { Id: e.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(e.MessageBody) };
        }),
      };
    } else if (target === 'ReceiveMessage') {
      const store = stores.get(input.QueueUrl) ?? [];
      const now = String(Date.now());
      out = {
        Messages: store.splice(0, input.MaxNumberOfMessages).map((body) => ({
          MessageId: randomUUID(),
          ReceiptHandle: randomUUID() + randomUUID() + randomUUID(),
          MD5OfBody: md5(body),
          Body: body,
          Attributes: { ApproximateReceiveCount: '1', ApproximateFirstReceiveTimestamp: now },
        })),
      };
    } else if (target === 'DeleteMessageBatch') {
      out = { Successful: input.Entries.map((e: any) => ({ Id: e.Id })), Failed: [] };
    } else throw new Error(target);
    const buf = Buffer.from(JSON.stringify(out));
    await new Promise((r) => setImmediate(r));
    return {
      response: {
        statusCode: 200,
        reason: 'OK',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(buf.length), 'x-amzn-requestid': randomUUID() },
        body: Readable.from([buf]),
      },
    };
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
  destroy() {},
};
const client = new SQSClient({
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  requestHandler: handler as never,
});
const N = Number(process.argv[4] ?? 2000);
let q = 0;
const fresh = () => `http://127.0.0.1:1/000000000000/q${q++}`;
const rawSend = async (url: string, all: string[]) => {
  await concurrently(chunks(all), CONCURRENCY, async (chunk) => {
    await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: chunk.map((b, i) => ({ Id: String(i), MessageBody: b })) }));
  });
  return all.length;
};
const rawDrain = (url: string, dup: boolean) =>
  drainInLoops<Message>(
    N,
    async () =>
      (
        await client.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: BATCH,
            VisibilityTimeout: 30,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: SYSTEM_ATTRIBUTES,
            ...(dup ? { AttributeNames: SYSTEM_ATTRIBUTES as never } : {}),
          }),
        )
      ).Messages ?? [],
    (m) => m.MessageId!,
    async (b) => {
      await client.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries: b.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
    },
  );
const publishQueue = async (queue: Queue, l: string) => {
  await concurrently(chunks(inputs(l, N)), CONCURRENCY, async (c) => {
    await queue.publishBatch(c.map((envelope) => ({ envelope })));
  });
};

const variants: Record<string, Record<string, (l: string) => Promise<{ ops: number; ms: number; cpuUs: number }>>> = {
  publish: {
    raw: async (l) => { const b = bodies(l, N); return timed(() => rawSend(fresh(), b)); },
    driver: async (l) => {
      const d = await SqsDriver.open({ client, queue: fresh() });
      const m = outgoingMessages(inputs(l, N));
      return timed(async () => { await concurrently(chunks(m), CONCURRENCY, async (c) => { await d.publish(c); }); return N; });
    },
    queue: async (l) => {
      const queue = new Queue(await SqsDriver.open({ client, queue: fresh() }));
      const e = inputs(l, N);
      return timed(async () => { await concurrently(chunks(e), CONCURRENCY, async (c) => { await queue.publishBatch(c.map((envelope) => ({ envelope }))); }); return N; });
    },
  },
  receive: {
    raw: async (l) => { const u = fresh(); await rawSend(u, bodies(l, N)); return timed(() => rawDrain(u, false)); },
    rawDup: async (l) => { const u = fresh(); await rawSend(u, bodies(l, N)); return timed(() => rawDrain(u, true)); },
    driver: async (l) => {
      const u = fresh();
      const queue = new Queue(await SqsDriver.open({ client, queue: u }));
      await publishQueue(queue, l);
      const d = await SqsDriver.open({ client, queue: u });
      return timed(() => drainInLoops(N, () => d.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 }), (m) => m.messageId, async (b) => { await d.ack(b.map((m) => m.receipt)); }));
    },
    queue: async (l) => {
      const queue = new Queue(await SqsDriver.open({ client, queue: fresh() }));
      await publishQueue(queue, l);
      return timed(() => drainInLoops<Delivery>(N, () => queue.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 }), (d) => d.messageId, async (b) => { await queue.ackBatch(b); }));
    },
    consume: async (l) => {
      const queue = new Queue(await SqsDriver.open({ client, queue: fresh() }));
      await publishQueue(queue, l);
      const s = await timed(() => new Promise<number>((resolve) => {
        let n = 0;
        const c = queue.consume(async () => {}, { concurrency: 10, waitSeconds: 0 });
        c.on('acked', () => { if (++n === N) resolve(N); });
      }));
      await queue.close();
      return s;
    },
  },
};
const mode = process.argv[2] ?? 'receive';
const only = process.argv[5]?.split(',');
const chosen = Object.entries(variants[mode]!).filter(([k]) => !only || only.includes(k));
const reps = Number(process.argv[3] ?? 5);
const res = new Map<string, { rate: number[]; cpu: number[]; calls: string }>();
for (let r = 0; r <= reps; r++) {
  const order = r % 2 ? chosen : [...chosen].reverse();
  for (const [name, run] of order) {
    counts.clear();
    const s = await run(`${name.slice(0, 2)}${r}`);
    if (r === 0) continue;
    const e = res.get(name) ?? { rate: [], cpu: [], calls: '' };
    e.rate.push((s.ops * 1000) / s.ms);
    e.cpu.push(s.cpuUs / s.ops);
    e.calls = JSON.stringify(Object.fromEntries(counts));
    res.set(name, e);
  }
}
for (const [name, e] of res) {
  console.log(`${name.padEnd(8)} ${median(e.rate).toFixed(0).padStart(6)}/s  cpu ${median(e.cpu).toFixed(1)} µs/msg [${e.cpu.map((x) => x.toFixed(0)).join(' ')}] ${e.calls}`);
}
