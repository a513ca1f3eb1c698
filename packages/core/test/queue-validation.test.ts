import {
  type ErrorCode,
  encodeEnvelope,
  FORBIDDEN_ATTRIBUTE_NAMES,
  isQueueError,
  MAX_ATTRIBUTES,
  MAX_BODY_BYTES,
  MAX_DELAY_SECONDS,
  type PublishInput,
  prepareEnvelope,
  Queue,
  QueueError,
} from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { batchOf, RecordingDriver } from './helpers/recording-driver';

const OCCURRED_AT = '2026-01-01T00:00:00.000Z';

function input(n: number, extra: Partial<PublishInput> = {}): PublishInput {
  return {
    envelope: { event_id: `evt_${n}`, type: 'test.event', occurred_at: OCCURRED_AT, payload: { n } },
    ...extra,
  };
}

const attributes = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, 'v']));

async function rejection(promise: Promise<unknown>): Promise<QueueError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the call to reject').toBeInstanceOf(QueueError);
  return error as QueueError;
}

/** Bytes the test itself counts: the body exactly as the driver received it, plus attributes. */
function bytesAtDriver(message: { body: string; attributes: Readonly<Record<string, string>> }): number {
  let total = Buffer.byteLength(message.body, 'utf8');
  for (const [k, v] of Object.entries(message.attributes))
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  return total;
}

/**
 * A publish input whose encoded envelope plus attributes is exactly `target` bytes, its payload
 * made of 3-byte characters ('€') topped up with ASCII. The fixed part is measured once with an
 * empty string (the digest is always 64 hex characters, so it does not change the size).
 */
function sizedInput(target: number, attributes: Record<string, string> = {}): PublishInput {
  const envelope = (text: string) => ({
    event_id: 'evt_sized',
    type: 'test.sized',
    occurred_at: OCCURRED_AT,
    payload: { text },
  });
  const attributeBytes = Object.entries(attributes).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
    0,
  );
  const fixed = Buffer.byteLength(encodeEnvelope(prepareEnvelope(envelope(''))), 'utf8') + attributeBytes;
  const room = target - fixed;
  const text = '€'.repeat(Math.floor(room / 3)) + 'x'.repeat(room % 3);
  return { envelope: envelope(text), attributes };
}

describe('a batch with one invalid message enqueues nothing', () => {
  const cases: Array<
    [string, PublishInput, ErrorCode, Partial<ConstructorParameters<typeof RecordingDriver>[0]>?]
  > = [
    [
      'too large',
      input(9, { envelope: { event_id: 'big', type: 't', payload: 'x'.repeat(MAX_BODY_BYTES) } }),
      'PAYLOAD_TOO_LARGE',
    ],
    ['a negative delay', input(9, { delaySeconds: -1 }), 'DELAY_OUT_OF_RANGE'],
    ['a delay past 7 days', input(9, { delaySeconds: MAX_DELAY_SECONDS + 1 }), 'DELAY_OUT_OF_RANGE'],
    [
      'a bad envelope',
      input(9, { envelope: { event_id: 'e', type: 't', payload: { x: Number.NaN } } }),
      'INVALID_ENVELOPE',
    ],
    [
      'an unknown envelope field',
      input(9, { envelope: { event_id: 'e', type: 't', payload: 1, extra: 1 } as never }),
      'INVALID_ENVELOPE',
    ],
    ['a reserved attribute name', input(9, { attributes: { 'aws.traceId': '1' } }), 'INVALID_ARGUMENT'],
    ['an attribute name with a space', input(9, { attributes: { 'trace id': '1' } }), 'INVALID_ARGUMENT'],
    [
      'a non-string attribute',
      input(9, { attributes: { tenant: 7 as unknown as string } }),
      'INVALID_ARGUMENT',
    ],
    ['too many attributes', input(9, { attributes: attributes(MAX_ATTRIBUTES + 1) }), 'INVALID_ARGUMENT'],
    [
      "the delay bridge's own attribute",
      input(9, { attributes: { 'queueport.bridge': '1:0:0:0' } }),
      'INVALID_ARGUMENT',
    ],
    [
      'a groupId on a driver without per-group ordering',
      input(9, { groupId: 'customer-1' }),
      'INVALID_ARGUMENT',
    ],
    [
      'a bad groupId on a fifo-per-group driver',
      input(9, { groupId: 'has space' }),
      'INVALID_ARGUMENT',
      { capabilities: { ordering: 'fifo-per-group' } },
    ],
    ['not an object', null as unknown as PublishInput, 'INVALID_ARGUMENT'],
  ];

  it.each(cases)('%s', async (_name, bad, code, driverOptions) => {
    // batch.publish 1: had validation been done chunk by chunk, the first two would have been sent.
    const driver = new RecordingDriver({
      ...driverOptions,
      capabilities: { batch: batchOf(1), ...driverOptions?.capabilities },
    });
    const queue = new Queue(driver);
    const error = await rejection(queue.publishBatch([input(1), input(2), bad, input(3)]));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(false);
    expect(driver.publishCalls).toEqual([]);
  });

  it('still publishes a valid batch in full on the same queue', async () => {
    const driver = new RecordingDriver({ capabilities: { batch: batchOf(1) } });
    const queue = new Queue(driver);
    await rejection(queue.publishBatch([input(1), input(2, { delaySeconds: -1 })]));
    await queue.publishBatch([input(1), input(2)]);
    expect(driver.published.map((m) => m.eventId)).toEqual(['evt_1', 'evt_2']);
  });

  it('accepts the portable number of attributes: the provider keeps two slots for queueport', async () => {
    expect(MAX_ATTRIBUTES).toBe(8);
    const driver = new RecordingDriver();
    await new Queue(driver).publish(input(1, { attributes: attributes(MAX_ATTRIBUTES) }));
    expect(Object.keys(driver.published[0]!.attributes)).toHaveLength(MAX_ATTRIBUTES);
  });

  it('rejects a batch that is not an array', async () => {
    const driver = new RecordingDriver();
    const error = await rejection(new Queue(driver).publishBatch(input(1) as never));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(driver.publishCalls).toEqual([]);
  });
});

describe('attribute names a delivery cannot carry', () => {
  // JSON.parse makes "__proto__" an own key, as a decoded request body would.
  const named = (name: string): Record<string, string> => JSON.parse(`{${JSON.stringify(name)}:"v"}`);

  it.each(FORBIDDEN_ATTRIBUTE_NAMES)('refuses %s on publish, naming the rule', async (name) => {
    const driver = new RecordingDriver();
    const error = await rejection(new Queue(driver).publish(input(1, { attributes: named(name) })));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details).toMatchObject({ field: 'attributes' });
    expect(error.message).toContain(`attribute name "${name}" is not allowed`);
    expect(error.message).toContain('refused on publish and receive');
    expect(driver.publishCalls).toEqual([]);
  });

  it.each(FORBIDDEN_ATTRIBUTE_NAMES)('refuses a batch with %s and enqueues none of it', async (name) => {
    const driver = new RecordingDriver({ capabilities: { batch: batchOf(1) } });
    const batch = [input(1), input(2, { attributes: named(name) }), input(3)];
    const error = await rejection(new Queue(driver).publishBatch(batch));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(driver.publishCalls).toEqual([]);
  });

  it('still takes names that only contain them', async () => {
    const driver = new RecordingDriver();
    await new Queue(driver).publish(input(1, { attributes: { proto: 'v', constructor_id: 'v' } }));
    expect(driver.published[0]!.attributes).toEqual({ proto: 'v', constructor_id: 'v' });
  });
});

describe('message size', () => {
  it('accepts a multi-byte payload exactly at the limit and rejects one byte more', async () => {
    const driver = new RecordingDriver();
    const queue = new Queue(driver);

    const receipt = await queue.publish(sizedInput(MAX_BODY_BYTES));
    expect(driver.published).toHaveLength(1);
    expect(bytesAtDriver(driver.published[0]!)).toBe(MAX_BODY_BYTES);
    expect(receipt.sizeBytes).toBe(MAX_BODY_BYTES);
    // Far fewer characters than bytes: the limit is not counted in characters.
    expect(driver.published[0]!.body.length).toBeLessThan(MAX_BODY_BYTES / 2);

    const error = await rejection(queue.publish(sizedInput(MAX_BODY_BYTES + 1)));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details).toMatchObject({
      sizeBytes: MAX_BODY_BYTES + 1,
      maxBodyBytes: MAX_BODY_BYTES,
      event_id: 'evt_sized',
    });
    expect(driver.published).toHaveLength(1);
  });

  it('counts attribute names and values', async () => {
    const driver = new RecordingDriver();
    const queue = new Queue(driver);
    const attributes = { tenant: 'ünïcödé', trace: 'abc' };
    await queue.publish(sizedInput(MAX_BODY_BYTES, attributes));
    expect(bytesAtDriver(driver.published[0]!)).toBe(MAX_BODY_BYTES);

    // The same body that fitted alone no longer fits once an attribute is added.
    const fitting = sizedInput(MAX_BODY_BYTES);
    const error = await rejection(queue.publish({ ...fitting, attributes: { k: 'v' } }));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details.sizeBytes).toBe(MAX_BODY_BYTES + 2);
  });

  it('measures UTF-8 bytes, not characters', async () => {
    const driver = new RecordingDriver();
    const text = '€'.repeat(Math.ceil(MAX_BODY_BYTES / 3));
    expect(text.length).toBeLessThan(MAX_BODY_BYTES);
    const error = await rejection(
      new Queue(driver).publish({ envelope: { event_id: 'e', type: 't', payload: text } }),
    );
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details.sizeBytes).toBeGreaterThan(Buffer.byteLength(text, 'utf8'));
  });
});

describe('the portable limits', () => {
  const generous = {
    maxBodyBytes: 1_048_576,
    delay: { maxSeconds: 900 * 86_400, nativeMaxSeconds: 900 * 86_400, fractional: false },
  };

  it("narrows a driver's larger limits to 262144 bytes and 604800 s", async () => {
    const driver = new RecordingDriver({ capabilities: generous });
    const queue = new Queue(driver);
    expect(queue.capabilities.maxBodyBytes).toBe(MAX_BODY_BYTES);
    expect(queue.capabilities.delay.maxSeconds).toBe(MAX_DELAY_SECONDS);
    expect(driver.capabilities.maxBodyBytes).toBe(generous.maxBodyBytes);

    expect((await rejection(queue.publish(sizedInput(MAX_BODY_BYTES + 1)))).code).toBe('PAYLOAD_TOO_LARGE');
    expect((await rejection(queue.publish(input(1, { delaySeconds: MAX_DELAY_SECONDS + 1 })))).code).toBe(
      'DELAY_OUT_OF_RANGE',
    );
    expect(driver.publishCalls).toEqual([]);
  });

  it("keeps a driver's smaller limits", async () => {
    const driver = new RecordingDriver({
      capabilities: {
        maxBodyBytes: 1_000,
        delay: { maxSeconds: 900, nativeMaxSeconds: 900, fractional: false },
      },
    });
    const queue = new Queue(driver);
    expect(queue.capabilities.maxBodyBytes).toBe(1_000);
    expect(queue.capabilities.delay.maxSeconds).toBe(900);
    await queue.publish(sizedInput(1_000));
    expect((await rejection(queue.publish(sizedInput(1_001)))).details.maxBodyBytes).toBe(1_000);
    expect((await rejection(queue.publish(input(1, { delaySeconds: 901 })))).code).toBe('DELAY_OUT_OF_RANGE');
  });

  it('lets the application narrow further, never widen', () => {
    const driver = new RecordingDriver({ capabilities: generous });
    const narrow = new Queue(driver, { limits: { maxBodyBytes: 4_096, maxDelaySeconds: 60 } });
    expect(narrow.capabilities.maxBodyBytes).toBe(4_096);
    expect(narrow.capabilities.delay.maxSeconds).toBe(60);
    const wide = new Queue(new RecordingDriver(), {
      limits: { maxBodyBytes: 10_000_000, maxDelaySeconds: 10_000_000 },
    });
    expect(wide.capabilities.maxBodyBytes).toBe(MAX_BODY_BYTES);
    expect(wide.capabilities.delay.maxSeconds).toBe(MAX_DELAY_SECONDS);
  });
});

describe('publish delays', () => {
  it.each([0, 1, 900, MAX_DELAY_SECONDS])('accepts %s s and hands it to the driver', async (delaySeconds) => {
    const driver = new RecordingDriver();
    await new Queue(driver).publish(input(1, { delaySeconds }));
    expect(driver.published[0]!.delaySeconds).toBe(delaySeconds);
  });

  it('defaults to 0', async () => {
    const driver = new RecordingDriver();
    await new Queue(driver).publish(input(1));
    expect(driver.published[0]!.delaySeconds).toBe(0);
  });

  it.each([
    -1,
    -0.001,
    0.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    MAX_DELAY_SECONDS + 1,
    '5' as unknown as number,
  ])('rejects %s with DELAY_OUT_OF_RANGE when delays are whole seconds', async (delaySeconds) => {
    const driver = new RecordingDriver();
    const error = await rejection(new Queue(driver).publish(input(1, { delaySeconds })));
    expect(error.code).toBe('DELAY_OUT_OF_RANGE');
    expect(error.details).toMatchObject({ maxSeconds: MAX_DELAY_SECONDS, fractional: false });
    expect(driver.publishCalls).toEqual([]);
  });

  it('accepts fractional delays when the driver declares them, and still bounds them', async () => {
    const driver = new RecordingDriver({
      capabilities: {
        delay: { maxSeconds: MAX_DELAY_SECONDS, nativeMaxSeconds: MAX_DELAY_SECONDS, fractional: true },
      },
    });
    const queue = new Queue(driver);
    await queue.publish(input(1, { delaySeconds: 0.5 }));
    await queue.publish(input(2, { delaySeconds: MAX_DELAY_SECONDS - 0.25 }));
    expect(driver.published.map((m) => m.delaySeconds)).toEqual([0.5, MAX_DELAY_SECONDS - 0.25]);
    for (const bad of [-0.5, MAX_DELAY_SECONDS + 0.5, Number.NaN]) {
      expect(
        isQueueError(await rejection(queue.publish(input(3, { delaySeconds: bad }))), 'DELAY_OUT_OF_RANGE'),
      ).toBe(true);
    }
  });
});

describe('what the driver receives', () => {
  it('gets the canonical encoded envelope, attributes and groupId', async () => {
    const driver = new RecordingDriver({ capabilities: { ordering: 'fifo-per-group' } });
    const queue = new Queue(driver);
    const publish = input(7, { attributes: { tenant: 'acme' }, groupId: 'customer-7', delaySeconds: 3 });
    await queue.publish(publish);
    const [sent] = driver.published;
    const expected = prepareEnvelope(publish.envelope);
    expect(sent!.eventId).toBe('evt_7');
    expect(sent!.body).toBe(encodeEnvelope(expected));
    expect(JSON.parse(sent!.body)).toEqual(expected);
    expect(sent!.attributes).toEqual({ tenant: 'acme' });
    expect(sent!.groupId).toBe('customer-7');
    expect(sent!.delaySeconds).toBe(3);
  });

  it('omits groupId when none is given', async () => {
    const driver = new RecordingDriver({ capabilities: { ordering: 'fifo-per-group' } });
    await new Queue(driver).publish(input(1));
    expect(Object.hasOwn(driver.published[0]!, 'groupId')).toBe(false);
  });
});
