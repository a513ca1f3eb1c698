import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Delivery,
  encodeEnvelope,
  FilePayloadStore,
  type PayloadReference,
  type PayloadStore,
  Queue,
  QueueError,
  type QueueEvents,
} from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;
/** Written into every payload: it must never show up in an error, an event's message or a log line. */
const MARKER = 'PAYLOAD-MARKER-7f3a';

/** A payload whose canonical JSON is just over `size` bytes. */
function largePayload(size: number) {
  return { marker: MARKER, text: 'x'.repeat(size) };
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'queueport-offload-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Harness {
  driver: MemoryDriver;
  queue: Queue;
  store: FilePayloadStore;
  logged: string[];
  invalid: QueueEvents['invalid-message'][];
}

function harness(options: { store?: boolean; driver?: MemoryDriver } = {}): Harness {
  const driver = options.driver ?? new MemoryDriver();
  const store = new FilePayloadStore({ root });
  const logged: string[] = [];
  const queue = new Queue(driver, {
    logger: { warn: (line: string) => void logged.push(line) },
    ...(options.store === false ? {} : { payloadStore: { store, thresholdBytes: 64 * 1024 } }),
  });
  const invalid: QueueEvents['invalid-message'][] = [];
  return { driver, queue, store, logged, invalid };
}

/** Runs a consumer until the queue has nothing more to give it; what reached the handler. */
async function consumeAll(queue: Queue): Promise<Delivery[]> {
  const seen: Delivery[] = [];
  const consumer = queue.consume(async (delivery) => {
    seen.push(delivery);
  });
  await new Promise<void>((resolve) => consumer.once('drained', () => resolve()));
  await consumer.close();
  return seen;
}

const onlyFile = async () => {
  const [shard] = (await readdir(root)).filter((name) => /^[0-9a-f]{2}$/.test(name));
  const [name] = await readdir(path.join(root, shard!));
  return path.join(root, shard!, name!);
};

describe('Queue with a payloadStore: offloading', () => {
  it('round-trips a 1 MiB payload through the file store: the handler sees the original payload', async () => {
    const { queue, driver } = harness();
    const payload = largePayload(MiB);
    const receipt = await queue.publish({ envelope: { event_id: 'big-1', type: 'ticket.created', payload } });
    // The message carries the reference, so it fits the 256 KB body limit.
    expect(receipt.sizeBytes).toBeLessThan(1024);
    expect(queue.payloadStoreStats.offloaded).toBe(1);
    const [stored] = await readdir(root);
    expect(stored).toMatch(/^[0-9a-f]{2}$/);

    const [delivery, ...more] = await consumeAll(queue);
    expect(more).toEqual([]);
    expect(delivery!.envelope.event_id).toBe('big-1');
    expect(delivery!.envelope.payload).toEqual(payload);
    expect(delivery!.envelope.payload_ref).toBeUndefined();
    // The body is the inline envelope, byte for byte what an inline publish would have sent.
    expect(delivery!.body).toBe(encodeEnvelope(delivery!.envelope, { maxBytes: 2 * MiB }));
    expect(delivery!.body.length).toBeGreaterThan(MiB);
    expect(queue.payloadStoreStats).toMatchObject({ offloaded: 1, resolved: 1, refused: 0 });
    expect(driver.depth()).toBe(0);
    await queue.close();
  });

  it('keeps payloads at or below the threshold inline, and digests the same either way', async () => {
    const { queue } = harness();
    const small = { n: 1 };
    await queue.publish({ envelope: { event_id: 'small', type: 't', payload: small } });
    await queue.publish({ envelope: { event_id: 'large', type: 't', payload: largePayload(100_000) } });
    expect(queue.payloadStoreStats.offloaded).toBe(1);
    const deliveries = await consumeAll(queue);
    const inline = new Queue(new MemoryDriver());
    await inline.publish({ envelope: { event_id: 'large', type: 't', payload: largePayload(100_000) } });
    const [direct] = await inline.receive();
    const large = deliveries.find((d) => d.envelope.event_id === 'large')!;
    // The ledger's idempotency check compares this digest: offloading does not change it.
    expect(large.envelope.payload_sha256).toBe(direct!.envelope.payload_sha256);
    expect(deliveries.map((d) => d.envelope.event_id).sort()).toEqual(['large', 'small']);
    await queue.close();
    await inline.close();
  });

  it('refuses a payload past maxPayloadBytes before storing anything', async () => {
    const driver = new MemoryDriver();
    const store = new FilePayloadStore({ root });
    const queue = new Queue(driver, {
      payloadStore: { store, thresholdBytes: 1024, maxPayloadBytes: 50_000 },
    });
    const error = await queue
      .publishBatch([
        { envelope: { event_id: 'fits', type: 't', payload: largePayload(10_000) } },
        { envelope: { event_id: 'too-big', type: 't', payload: largePayload(60_000) } },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).code).toBe('PAYLOAD_TOO_LARGE');
    expect(await readdir(root)).toEqual([]);
    expect(driver.depth()).toBe(0);
    await queue.close();
  });

  it('refuses a threshold that leaves no room below the body limit', () => {
    const store = new FilePayloadStore({ root });
    const make = (thresholdBytes: number) => () =>
      new Queue(new MemoryDriver(), { payloadStore: { store, thresholdBytes } });
    expect(make(262_144)).toThrow(/thresholdBytes must be below/);
    expect(make(-1)).toThrow(QueueError);
    expect(
      () => new Queue(new MemoryDriver(), { payloadStore: { store: {} as PayloadStore, thresholdBytes: 1 } }),
    ).toThrow(/payloadStore\.store/);
  });
});

describe('Queue with a payloadStore: failing closed', () => {
  async function publishLarge(h: Harness, eventId: string) {
    await h.queue.publish({
      envelope: { event_id: eventId, type: 'ticket.created', payload: largePayload(MiB) },
    });
    h.queue.on('invalid-message', (event) => void h.invalid.push(event));
  }

  function expectRefused(h: Harness, eventId: string, code: string, problem: string) {
    expect(h.invalid).toHaveLength(1);
    const [{ error, deadLetter }] = h.invalid as [QueueEvents['invalid-message']];
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject({ event_id: eventId, payloadProblem: problem });
    expect(error.message).toContain(eventId);
    expect(deadLetter).toBe(true);
    // Dead-lettered as it was received: the reference, never the payload.
    const [dead] = h.driver.deadLetters();
    expect(dead!.eventId).toBe(eventId);
    expect(dead!.body.length).toBeLessThan(1024);
    expect(h.queue.payloadStoreStats.refused).toBe(1);
    expect(h.queue.payloadStoreStats.refusedBy[problem as 'missing']).toBe(1);
    const said = [error.message, JSON.stringify(error.details), dead!.reason, ...h.logged].join('\n');
    expect(said).not.toContain(MARKER);
  }

  it('never hands a handler a message whose payload was deleted: NOT_FOUND, counted, dead-lettered', async () => {
    const h = harness();
    await publishLarge(h, 'deleted-1');
    await rm(await onlyFile());
    expect(await consumeAll(h.queue)).toEqual([]);
    expectRefused(h, 'deleted-1', 'NOT_FOUND', 'missing');
    await h.queue.close();
  });

  it('never hands a handler a message whose payload was altered: INVALID_ENVELOPE, counted, dead-lettered', async () => {
    const h = harness();
    await publishLarge(h, 'altered-1');
    const file = await onlyFile();
    // Same length, one field changed: only the digest can tell.
    const altered = JSON.stringify(largePayload(MiB)).replace(MARKER, MARKER.replace('7', '8'));
    await writeFile(file, JSON.stringify(JSON.parse(altered)));
    expect(await consumeAll(h.queue)).toEqual([]);
    expectRefused(h, 'altered-1', 'INVALID_ENVELOPE', 'altered');
    await h.queue.close();
  });

  it('logs the refusal with the event id when nothing listens, and never the payload', async () => {
    const h = harness();
    await h.queue.publish({ envelope: { event_id: 'unheard-1', type: 't', payload: largePayload(MiB) } });
    await rm(await onlyFile());
    expect(await consumeAll(h.queue)).toEqual([]);
    expect(h.logged.some((line) => line.includes('unheard-1') && line.includes('NOT_FOUND'))).toBe(true);
    expect(h.logged.join('\n')).not.toContain(MARKER);
    await h.queue.close();
  });

  it('fails closed on a queue without a payloadStore: the reference is never taken for the payload', async () => {
    const driver = new MemoryDriver();
    const publisher = harness({ driver });
    await publisher.queue.publish({
      envelope: { event_id: 'no-store-1', type: 't', payload: largePayload(MiB) },
    });
    const receiver = harness({ driver, store: false });
    receiver.queue.on('invalid-message', (event) => void receiver.invalid.push(event));
    expect(await consumeAll(receiver.queue)).toEqual([]);
    expectRefused(receiver, 'no-store-1', 'INVALID_ENVELOPE', 'unresolvable');
    await receiver.queue.close();
    await publisher.queue.close();
  });

  it('refuses to publish a reserved reference on a queue that could not resolve it', async () => {
    const { queue, driver } = harness({ store: false });
    const sha256 = 'a'.repeat(64);
    const error = await queue
      .publish({
        envelope: {
          event_id: 'forged',
          type: 't',
          payload_ref: { uri: `queueport:payload:sha256:${sha256}:10`, sha256 },
        },
      })
      .catch((e: unknown) => e);
    expect((error as QueueError).code).toBe('INVALID_ENVELOPE');
    expect(driver.depth()).toBe(0);
    await queue.close();
  });

  it('passes an application reference of its own to the handler as it always did', async () => {
    const { queue } = harness();
    const ref = { uri: 'https://blobs.example/orders/1', sha256: 'b'.repeat(64) };
    await queue.publish({ envelope: { event_id: 'own-ref', type: 't', payload_ref: ref } });
    const [delivery] = await consumeAll(queue);
    expect(delivery!.envelope.payload_ref).toEqual(ref);
    expect(queue.payloadStoreStats).toMatchObject({ resolved: 0, refused: 0 });
    await queue.close();
  });

  it('keeps a message whose store cannot answer now: not dead-lettered, back when its lease ends', async () => {
    const files = new FilePayloadStore({ root });
    let down = true;
    // A store in front of the file store that is down, then back: what an outage looks like.
    const flaky: PayloadStore = {
      put: (bytes) => files.put(bytes),
      get: (reference: PayloadReference) =>
        down ? Promise.reject(new QueueError('UNAVAILABLE', 'store is down')) : files.get(reference),
    };
    const driver = new MemoryDriver();
    const queue = new Queue(driver, { payloadStore: { store: flaky, thresholdBytes: 1024 } });
    const invalid: QueueEvents['invalid-message'][] = [];
    queue.on('invalid-message', (event) => void invalid.push(event));
    await queue.publish({ envelope: { event_id: 'outage-1', type: 't', payload: largePayload(10_000) } });
    expect(await queue.receive({ leaseSeconds: 1 })).toEqual([]);
    expect(invalid[0]!.deadLetter).toBe(false);
    expect(invalid[0]!.error.code).toBe('UNAVAILABLE');
    expect(invalid[0]!.error.details).toMatchObject({ event_id: 'outage-1', payloadProblem: 'unavailable' });
    expect(driver.deadLetters()).toEqual([]);
    down = false;
    const [delivery] = await queue.receive({ waitSeconds: 3 });
    expect(delivery!.envelope.payload).toEqual(largePayload(10_000));
    expect(queue.payloadStoreStats).toMatchObject({ resolved: 1, refused: 1, refusedBy: { unavailable: 1 } });
    await delivery!.ack();
    await queue.close();
  });
});
