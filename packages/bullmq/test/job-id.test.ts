import { deriveProviderKey } from '@queueport/core/driver';
import { Queue as BullQueue } from 'bullmq';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { JOB_ID_RULES, jobIdFor } from '../src';
import { deleteKeys, testRedis, uniquePrefix } from './support/unit-redis';

/** The escape marker, so these tests hold whichever character the rules pick. */
const marker = JOB_ID_RULES.escape ?? '_';

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
/** Characters that stress the escaping: BullMQ's separator, the escape marker, digits, signs, non-ASCII. */
const awkward = fc.constantFrom(
  ':',
  '_',
  '~',
  'z',
  '0',
  '7',
  '-',
  '+',
  ' ',
  '.',
  'é',
  '€',
  '😀',
  '\u0000',
  '\uFFFD',
);

/** Event ids as they might arrive, and as an adversary would pick them. */
const eventId = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.string({ unit: 'binary', minLength: 1 }),
  fc.string({
    unit: fc.oneof(awkward, loneSurrogate, fc.string({ minLength: 1, maxLength: 1 })),
    minLength: 1,
  }),
  fc.integer().map(String),
  fc.bigInt().map(String),
  fc.double({ noNaN: true }).map(String),
  fc.constantFrom('NaN', 'Infinity', '-0', '0', '007', '1e3', '0x1f', '42abc'),
  fc.string({ unit: fc.constantFrom('a', ':', '_', '~', '1'), minLength: 1, maxLength: 400 }),
  fc.string({ minLength: 190, maxLength: 260 }),
);

/** What BullMQ itself refuses as a custom job id (its Job.validateOptions). */
function bullmqRefuses(id: string): boolean {
  return `${Number.parseInt(id, 10)}` === id || (id.includes(':') && id.split(':').length !== 3);
}

/**
 * BullMQ's add compares the id its script answers with `result < 0` to spot an error code, so an
 * id that JavaScript reads as a negative number (`-1.5`, `-05`, `-1e3`, an integer past 2^53)
 * makes its add throw "Unknown code" although the job was stored: jobIdFor never gives one.
 */
const readsAsNegative = (id: string) => Number(id) < 0;
const NEGATIVE_LOOKING = ['-1.5', '-05', '-1e3', '-Infinity', '-5e-324', '-9007199254740993'];

describe('jobIdFor', () => {
  // The shortcut for ids that need no escaping must give exactly what the key helper gives.
  it('is the core key helper under JOB_ID_RULES, shortcut or not', () => {
    fc.assert(
      fc.property(fc.oneof(eventId, fc.stringMatching(/^[!-~]{1,240}$/)), (key) => {
        expect(jobIdFor(key)).toBe(deriveProviderKey(key, JOB_ID_RULES));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives an id BullMQ accepts for any event id', () => {
    fc.assert(
      fc.property(eventId, (key) => {
        const id = jobIdFor(key);
        expect(id.includes(':')).toBe(false);
        expect(`${Number.parseInt(id, 10)}`).not.toBe(id);
        expect(bullmqRefuses(id)).toBe(false);
        expect(id.length).toBeGreaterThan(0);
        expect([...id].length).toBeLessThanOrEqual(JOB_ID_RULES.maxLength);
        // Printable ASCII only: the id is also a Redis key segment and shows up in BullMQ's UIs.
        expect(id).toMatch(/^[!-9;-~]+$/);
        expect(jobIdFor(key)).toBe(id);
      }),
      { numRuns: 2000 },
    );
  });

  it('never gives two event ids the same job id', () => {
    fc.assert(
      fc.property(fc.uniqueArray(eventId, { minLength: 2, maxLength: 40 }), (keys) => {
        expect(new Set(keys.map(jobIdFor)).size).toBe(keys.length);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps apart the ids an escape or a hash could make meet', () => {
    const long = 'x'.repeat(300);
    const hashedLong = jobIdFor(long);
    expect(hashedLong.startsWith(`${marker}z`)).toBe(true);
    expect(hashedLong.slice(2)).toMatch(/^[0-9a-f]{32,}$/);
    const pairs: Array<[string, string]> = [
      // Each input against what the other escapes to.
      ['42', `${marker}342`],
      ['a:b', `a${marker}3ab`],
      ['NaN', `${marker}4eaN`],
      ['\uD800', '\uFFFD'],
      ['\uD83D\uDE00', '😀'.normalize('NFD')],
      ['\uDE00\uD83D', '\uD83D\uDE00'],
      [long, hashedLong],
      [long, `${long}x`],
    ];
    for (const [a, b] of pairs) {
      if (a === b) continue;
      expect(jobIdFor(a), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).not.toBe(jobIdFor(b));
    }
  });

  it('refuses an empty event id rather than inventing one', () => {
    expect(() => jobIdFor('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it.each([
    'evt-123',
    'order.created/42',
    '01J9ZQ7K3V8Y2W5X4T6R0N1M2P',
    '7f3c1a5e-2b4d-4c6e-8f0a-1b2c3d4e5f60',
    '007',
  ])('leaves a readable event id as it is (%s)', (key) => {
    expect(jobIdFor(key)).toBe(key);
  });

  // `evt_…` and `ord_…` ids are common: they must read as themselves.
  it('leaves an event id with an underscore readable (evt_123)', () => {
    expect(jobIdFor('evt_123')).toBe('evt_123');
  });

  it('never gives an id that reads as a negative number', () => {
    for (const key of NEGATIVE_LOOKING) expect(readsAsNegative(jobIdFor(key)), key).toBe(false);
  });

  it('escapes what it must, and only that, in a readable form', () => {
    expect(jobIdFor('order:42')).toBe(`order${marker}3a42`);
    // An integer string is refused by BullMQ, so its first character is escaped.
    expect(jobIdFor('42')).toBe(`${marker}342`);
    expect(jobIdFor(`a${marker}b`)).toBe(`a${marker}${marker.charCodeAt(0).toString(16)}b`);
  });
});

describe('jobIdFor against a real BullMQ queue', () => {
  const prefix = uniquePrefix('jobid');
  const redis = testRedis();
  const queue = new BullQueue('ids', { connection: redis, prefix });
  queue.on('error', () => {});

  afterAll(async () => {
    await queue.close();
    await deleteKeys(redis, `${prefix}:*`);
    await redis.quit();
  });

  it('is taken as the job id, unchanged, for any event id', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(eventId, async (key) => {
        const id = jobIdFor(key);
        // BullMQ answers a repeated id with the job it already has: skip those to test adds only.
        if (seen.has(id)) return;
        seen.add(id);
        const job = await queue.add('e', { key }, { jobId: id });
        expect(job.id).toBe(id);
        expect((await queue.getJob(id))?.data).toEqual({ key });
      }),
      { numRuns: 150 },
    );
    expect(await queue.getJobCountByTypes('wait')).toBe(seen.size);
  });

  // Where an id read as negative, BullMQ stored the job yet its add threw "Unknown code".
  it('is taken as the job id for event ids that read as negative numbers', async () => {
    for (const key of NEGATIVE_LOOKING) {
      await expect(queue.add('e', {}, { jobId: jobIdFor(key) }), key).resolves.toMatchObject({
        id: jobIdFor(key),
      });
    }
  });
});
