import { encodeEnvelope, prepareEnvelope, Queue, type QueueError, type QueueEvents } from '@queueport/core';
import type { DriverMessage, ReceiveRequest } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { RecordingDriver, type RecordingDriverOptions } from './helpers/recording-driver';

const body = (n: number) =>
  encodeEnvelope(prepareEnvelope({ event_id: `evt_answer_${n}`, type: 'test.answer', payload: { n } }));

function message(n: number, overrides: Record<string, unknown> = {}): DriverMessage {
  return {
    receipt: `r-${n}`,
    messageId: `m-${n}`,
    body: body(n),
    attributes: {},
    receiveCount: 1,
    ...overrides,
  } as DriverMessage;
}

/** Answers each receive with the next canned answer, whatever it asked for. */
class AnsweringDriver extends RecordingDriver {
  readonly answers: unknown[];
  constructor(answers: unknown[], options: RecordingDriverOptions = {}) {
    super(options);
    this.answers = answers;
  }
  override async receive(request: ReceiveRequest): Promise<DriverMessage[]> {
    this.receiveCalls.push(request);
    return (this.answers.length > 0 ? this.answers.shift() : []) as DriverMessage[];
  }
}

function recordEvents(queue: Queue) {
  const faults: QueueEvents['driver-fault'][] = [];
  const invalid: QueueEvents['invalid-message'][] = [];
  queue.on('driver-fault', (event) => faults.push(event));
  queue.on('invalid-message', (event) => invalid.push(event));
  return { faults, invalid };
}

describe('a receive never hands out more than it asked for', () => {
  it('keeps the first maxMessages, gives the rest back at once and names the fault', async () => {
    const driver = new AnsweringDriver([[1, 2, 3, 4, 5].map((n) => message(n))]);
    const queue = new Queue(driver);
    const { faults } = recordEvents(queue);
    const deliveries = await queue.receive({ maxMessages: 2 });
    expect(deliveries.map((d) => d.messageId)).toEqual(['m-1', 'm-2']);
    expect(driver.releases).toEqual([
      { receipt: 'r-3', delaySeconds: 0 },
      { receipt: 'r-4', delaySeconds: 0 },
      { receipt: 'r-5', delaySeconds: 0 },
    ]);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ operation: 'receive', fault: 'too-many-messages', count: 3 });
    expect(faults[0]!.error.message).toContain('recording');
  });

  it('gives a 500-message answer back in settle-sized chunks', async () => {
    const driver = new AnsweringDriver([Array.from({ length: 500 }, (_, n) => message(n))]);
    const queue = new Queue(driver);
    recordEvents(queue);
    expect(await queue.receive({ maxMessages: 10 })).toHaveLength(10);
    expect(driver.releases).toHaveLength(490);
    expect(driver.callsOf('release').every((call) => call.length <= 10)).toBe(true);
  });

  it('drops a receipt repeated in one answer without releasing the message it names', async () => {
    const driver = new AnsweringDriver([[message(1), message(1, { messageId: 'm-1b' }), message(2)]]);
    const queue = new Queue(driver);
    const { faults } = recordEvents(queue);
    const deliveries = await queue.receive({ maxMessages: 10 });
    expect(deliveries.map((d) => d.receipt)).toEqual(['r-1', 'r-2']);
    expect(driver.releases).toEqual([]);
    expect(faults).toMatchObject([{ fault: 'duplicate-receipts', count: 1 }]);
  });

  it.each([
    ['null', null],
    ['an object', { messages: [] }],
    ['a string', 'm-1'],
  ])('refuses an answer that is %s with a typed INTERNAL', async (_name, answer) => {
    const queue = new Queue(new AnsweringDriver([answer]));
    await expect(queue.receive()).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});

const throwingAttributes = Object.defineProperty({}, 'x', {
  enumerable: true,
  get() {
    throw new Error('boom');
  },
});
const hostileProxy = new Proxy(
  {},
  {
    get() {
      throw new Error('trap');
    },
  },
);

describe('every field of a driver message is checked before it becomes a delivery', () => {
  const usableReceipt: Array<[string, unknown]> = [
    ['a missing messageId', message(1, { messageId: undefined })],
    ['an empty messageId', message(1, { messageId: '' })],
    ['a numeric messageId', message(1, { messageId: 7 })],
    ['a NaN receiveCount', message(1, { receiveCount: Number.NaN })],
    ['a negative receiveCount', message(1, { receiveCount: -4 })],
    ['a receiveCount of 0 where the driver counts', message(1, { receiveCount: 0 })],
    ['a fractional receiveCount', message(1, { receiveCount: 1.5 })],
    ['a string receiveCount', message(1, { receiveCount: '2' })],
    ['an unsafe receiveCount', message(1, { receiveCount: 2 ** 53 })],
    ['null attributes', message(1, { attributes: null })],
    ['array attributes', message(1, { attributes: ['a'] })],
    ['a non-string attribute', message(1, { attributes: { x: 5 } })],
    ['an own __proto__ attribute', message(1, { attributes: JSON.parse('{"__proto__":"x"}') })],
    ['a constructor attribute', message(1, { attributes: { constructor: 'x' } })],
    ['a prototype attribute', message(1, { attributes: { prototype: 'x' } })],
    ['attributes with a prototype of their own', message(1, { attributes: Object.create({ a: 'b' }) })],
    ['a symbol-named attribute', message(1, { attributes: { [Symbol('s')]: 'x' } })],
    ['a getter that throws in attributes', message(1, { attributes: throwingAttributes })],
    [
      'too many attributes',
      message(1, { attributes: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, 'v'])) }),
    ],
    ['a numeric groupId', message(1, { groupId: 5 })],
    ['an empty groupId', message(1, { groupId: '' })],
    ['a numeric body', message(1, { body: 5 })],
  ];
  it.each(usableReceipt)('refuses %s: reported, dead-lettered, never handed out', async (_name, bad) => {
    const driver = new AnsweringDriver([[bad, message(2)]]);
    const queue = new Queue(driver);
    const { invalid } = recordEvents(queue);
    const deliveries = await queue.receive({ maxMessages: 10 });
    expect(deliveries.map((d) => d.messageId)).toEqual(['m-2']);
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.deadLetter).toBe(true);
    expect((invalid[0]!.error as QueueError).code).toBe('INVALID_ENVELOPE');
    expect(invalid[0]!.error.message).toContain('malformed message');
    expect(driver.deadLettered.map((d) => d.receipt)).toEqual(['r-1']);
    expect(driver.deadLettered[0]!.reason).toContain('malformed');
  });

  const unusableReceipt: Array<[string, unknown]> = [
    ['a missing receipt', message(1, { receipt: undefined })],
    ['an empty receipt', message(1, { receipt: '' })],
    ['a numeric receipt', message(1, { receipt: 7 })],
    ['a receipt past 8 KiB', message(1, { receipt: 'r'.repeat(8_193) })],
    ['null', null],
    ['a string', 'r-1'],
    ['a Proxy whose every read throws', hostileProxy],
  ];
  it.each(unusableReceipt)('refuses %s and leaves it to its lease', async (_name, bad) => {
    const driver = new AnsweringDriver([[bad, message(2)]]);
    const queue = new Queue(driver);
    const { invalid } = recordEvents(queue);
    const deliveries = await queue.receive({ maxMessages: 10 });
    expect(deliveries.map((d) => d.messageId)).toEqual(['m-2']);
    expect(invalid).toMatchObject([{ deadLetter: false }]);
    expect(driver.deadLettered).toEqual([]);
  });

  it('accepts a receive count of 0 from a driver that declares it cannot count', async () => {
    const driver = new AnsweringDriver([[message(1, { receiveCount: 0 })]], {
      capabilities: { receiveCount: false },
    });
    const [delivery] = await new Queue(driver).receive();
    expect(delivery!.receiveCount).toBe(0);
  });

  it('hands out a copy of the attributes, not the driver’s object', async () => {
    const attributes = { a: '1' };
    const driver = new AnsweringDriver([[message(1, { attributes })]]);
    const [delivery] = await new Queue(driver).receive();
    attributes.a = 'changed';
    expect(delivery!.attributes).toEqual({ a: '1' });
  });
});

describe('a settle or publish outcome is a success only when it says so in full', () => {
  it.each([
    ['ok that is not true', { ok: 'yes' }],
    ['no ok at all', {}],
    ['null', null],
    ['a number', 1],
  ])('an ack answered with %s is an INTERNAL failure, not a success', async (_name, outcome) => {
    const driver = new AnsweringDriver([[message(1)]]);
    driver.ack = async () => [outcome] as never;
    const [delivery] = await new Queue(driver).receive();
    await expect(delivery!.ack()).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(delivery!.settled).toBe(false);
  });

  it.each([
    ['no messageId', { ok: true }],
    ['a numeric messageId', { ok: true, messageId: 5 }],
    ['an empty messageId', { ok: true, messageId: '' }],
    ['a duplicate flag that is not a boolean', { ok: true, messageId: 'm', duplicate: 'no' }],
    ['ok: false without an error', { ok: false }],
  ])('a publish answered with %s is refused with a typed error', async (_name, outcome) => {
    const driver = new RecordingDriver({ rawOutcomes: () => [outcome] as never });
    const envelope = prepareEnvelope({ event_id: 'evt_outcome', type: 'test.outcome', payload: {} });
    const error = await new Queue(driver, { retry: { maxAttempts: 1 } })
      .publish({ envelope })
      .catch((caught: unknown) => caught);
    expect((error as QueueError).name).toBe('QueueError');
  });
});
