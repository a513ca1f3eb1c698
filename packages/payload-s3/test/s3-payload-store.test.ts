import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  contentAddress,
  type Delivery,
  isQueueError,
  Queue,
  type QueueError,
  type QueueEvents,
} from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { S3PayloadStore } from '@queueport/payload-s3';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { freshBucket, NO_S3, s3Client, s3Endpoint } from './s3';

const MiB = 1024 * 1024;
const MARKER = 'PAYLOAD-MARKER-s3-51c9';
const largePayload = (size: number) => ({ marker: MARKER, text: 'y'.repeat(size) });

async function failure(run: () => Promise<unknown>): Promise<QueueError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isQueueError(error)) throw new Error(`expected a QueueError, got ${String(error)}`);
  return error;
}

async function consumeAll(queue: Queue): Promise<Delivery[]> {
  const seen: Delivery[] = [];
  const consumer = queue.consume(async (delivery) => {
    seen.push(delivery);
  });
  await new Promise<void>((resolve) => consumer.once('drained', () => resolve()));
  await consumer.close();
  return seen;
}

describe('S3PayloadStore against an S3-compatible server', () => {
  let client: S3Client | undefined;
  beforeAll(() => {
    if (s3Endpoint) client = s3Client(s3Endpoint);
  });
  afterAll(() => client?.destroy());

  /** The store on a bucket of its own; skips, saying why, where no S3 server runs. */
  async function storeFor(
    ctx: TestContext,
  ): Promise<{ store: S3PayloadStore; client: S3Client; bucket: string }> {
    if (!client) ctx.skip(NO_S3);
    const bucket = await freshBucket(client!);
    return { store: new S3PayloadStore({ client: client!, bucket }), client: client!, bucket };
  }

  function harness(store: S3PayloadStore) {
    const driver = new MemoryDriver();
    const logged: string[] = [];
    const queue = new Queue(driver, {
      logger: { warn: (line: string) => void logged.push(line) },
      payloadStore: { store, thresholdBytes: 64 * 1024 },
    });
    return { driver, queue, logged };
  }

  it('round-trips a 1 MiB payload offloaded by a Queue over the memory driver', async (ctx) => {
    const { store } = await storeFor(ctx);
    const { queue } = harness(store);
    const payload = largePayload(MiB);
    const receipt = await queue.publish({
      envelope: { event_id: 's3-big-1', type: 'ticket.created', payload },
    });
    expect(receipt.sizeBytes).toBeLessThan(1024);
    const [delivery, ...more] = await consumeAll(queue);
    expect(more).toEqual([]);
    expect(delivery!.envelope.payload).toEqual(payload);
    expect(delivery!.envelope.payload_ref).toBeUndefined();
    expect(queue.payloadStoreStats).toMatchObject({ offloaded: 1, resolved: 1, refused: 0 });
    await queue.close();
  });

  for (const [what, spoil, code, problem] of [
    [
      'deleted',
      (c: S3Client, bucket: string, key: string) =>
        c.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })),
      'NOT_FOUND',
      'missing',
    ],
    [
      'altered',
      (c: S3Client, bucket: string, key: string) =>
        c.send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify(largePayload(MiB - 1)) }),
        ),
      'INVALID_ENVELOPE',
      'altered',
    ],
  ] as const) {
    it(`fails closed when the object was ${what}: never handed out, ${code}, counted, dead-lettered, logged with the event id`, async (ctx) => {
      const { store, client: c, bucket } = await storeFor(ctx);
      const { queue, driver, logged } = harness(store);
      const eventId = `s3-${what}-1`;
      await queue.publish({ envelope: { event_id: eventId, type: 't', payload: largePayload(MiB) } });
      const sha256 = contentAddress(Buffer.from(JSON.stringify(largePayload(MiB)))).sha256;
      await spoil(c, bucket, `${store.prefix}${sha256}`);
      const invalid: QueueEvents['invalid-message'][] = [];
      const stop = queue.on('invalid-message', (event) => void invalid.push(event));
      expect(await consumeAll(queue)).toEqual([]);
      stop();
      expect(invalid).toHaveLength(1);
      expect(invalid[0]!.error.code).toBe(code);
      expect(invalid[0]!.error.details).toMatchObject({ event_id: eventId, payloadProblem: problem });
      expect(invalid[0]!.deadLetter).toBe(true);
      expect(driver.deadLetters().map((d) => d.eventId)).toEqual([eventId]);
      expect(queue.payloadStoreStats.refusedBy[problem]).toBe(1);
      // Unheard, the same refusal is a log line naming the event. The same payload put again is
      // the same object again, so it is spoiled again.
      await queue.publish({
        envelope: { event_id: `${eventId}-again`, type: 't', payload: largePayload(MiB) },
      });
      await spoil(c, bucket, `${store.prefix}${sha256}`);
      expect(await consumeAll(queue)).toEqual([]);
      expect(logged.some((line) => line.includes(`${eventId}-again`))).toBe(true);
      const said = [invalid[0]!.error.message, JSON.stringify(invalid[0]!.error.details), ...logged].join(
        '\n',
      );
      expect(said).not.toContain(MARKER);
      await queue.close();
    });
  }

  it('answers NOT_FOUND for a key never stored, and refuses a reference whose size is not the object’s', async (ctx) => {
    const { store } = await storeFor(ctx);
    const missing = await failure(() => store.get({ sha256: 'c'.repeat(64), sizeBytes: 10 }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.details.payloadProblem).toBe('missing');
    const reference = await store.put(Buffer.from('{"a":1}'));
    expect(Buffer.from(await store.get(reference)).toString()).toBe('{"a":1}');
    const wrongSize = await failure(() => store.get({ ...reference, sizeBytes: reference.sizeBytes + 1 }));
    expect(wrongSize.details.payloadProblem).toBe('altered');
  });

  it('prunes by age under its prefix only, and says how many it deleted', async (ctx) => {
    const { store, client: c, bucket } = await storeFor(ctx);
    const a = await store.put(Buffer.from('{"a":1}'));
    await store.put(Buffer.from('{"b":2}'));
    await c.send(new PutObjectCommand({ Bucket: bucket, Key: 'elsewhere/keep-me', Body: 'x' }));
    await c.send(new PutObjectCommand({ Bucket: bucket, Key: `${store.prefix}not-a-digest`, Body: 'x' }));
    expect(await store.prune({ olderThanSeconds: 3600 })).toBe(0);
    // Seen from two hours on, both payloads are past an hour old; nothing else is touched.
    const later = new S3PayloadStore({ client: c, bucket, now: () => Date.now() + 2 * 3600 * 1000 });
    expect(await later.prune({ olderThanSeconds: 3600 })).toBe(2);
    expect((await failure(() => store.get(a))).code).toBe('NOT_FOUND');
    expect(await later.prune({ olderThanSeconds: 3600 })).toBe(0);
  });

  it('refuses a missing bucket as a configuration error, never as a missing payload', async (ctx) => {
    if (!client) ctx.skip(NO_S3);
    const store = new S3PayloadStore({ client: client!, bucket: 'queueport-no-such-bucket' });
    const error = await failure(() => store.get({ sha256: 'd'.repeat(64), sizeBytes: 1 }));
    expect(error.code).toBe('INTERNAL');
    expect(error.details.payloadProblem).toBeUndefined();
  });
});

describe('S3PayloadStore: what a server answers is checked', () => {
  let server: Server;
  let endpoint: string;
  let answer: (res: import('node:http').ServerResponse) => void = () => {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const bytes = Buffer.from('{"order":42}');
  const reference = contentAddress(bytes);

  function store(requestTimeoutMs = 30_000) {
    return new S3PayloadStore({ client: s3Client(endpoint, 1), bucket: 'b', requestTimeoutMs });
  }

  it('refuses an object whose bytes are not the ones its digest names', async () => {
    answer = (res) =>
      res.writeHead(200, { 'content-length': String(bytes.length) }).end(Buffer.from('{"order":43}'));
    const error = await failure(() => store().get(reference));
    expect(error.code).toBe('INVALID_ENVELOPE');
    expect(error.details.payloadProblem).toBe('altered');
  });

  it('refuses a declared length that is not the reference’s before reading the body', async () => {
    answer = (res) => res.writeHead(200, { 'content-length': String(5 * MiB) }).end(Buffer.alloc(5 * MiB));
    expect((await failure(() => store().get(reference))).details.payloadProblem).toBe('altered');
  });

  it('accepts the right bytes', async () => {
    answer = (res) => res.writeHead(200, { 'content-length': String(bytes.length) }).end(bytes);
    expect(Buffer.from(await store().get(reference)).equals(bytes)).toBe(true);
  });

  it('gives up on a server that never answers: a retryable UNAVAILABLE', async () => {
    answer = () => {};
    const error = await failure(() => store(300).get(reference));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ timedOut: true, payloadProblem: 'unavailable' });
  });

  it('maps a server error to a retryable UNAVAILABLE without quoting the answer', async () => {
    answer = (res) =>
      res
        .writeHead(500, { 'content-type': 'application/xml' })
        .end('<Error><Code>InternalError</Code><Message>secret-echo-123</Message></Error>');
    const error = await failure(() => store().get(reference));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).not.toContain('secret-echo-123');
  });
});
