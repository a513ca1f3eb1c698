import type { OutgoingMessage } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import { describe, expect, it } from 'vitest';

/** What the Queue would hand the driver; these tests talk to the driver directly. */
function outgoing(id: string, extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return { eventId: id, dedupeKey: id, body: `{"id":"${id}"}`, attributes: {}, delaySeconds: 0, ...extra };
}

const attributes = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, 'v']));

describe('MemoryDriver refuses, entry by entry, what its provider limits would', () => {
  it('declares staleReceipt rejected and the bridge-friendly manifest', () => {
    const caps = new MemoryDriver({ nativeMaxDelaySeconds: 900 }).capabilities;
    expect(caps.staleReceipt).toBe('rejected');
    expect(caps.delay).toEqual({ maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: false });
    expect(caps.batch).toEqual({ publish: 10, receive: 10, settle: 10 });
    expect(caps.longPollMaxSeconds).toBe(20);
  });

  it('more than 10 attributes', async () => {
    const driver = new MemoryDriver();
    const outcomes = await driver.publish([
      outgoing('ten', { attributes: attributes(10) }),
      outgoing('eleven', { attributes: attributes(11) }),
    ]);
    expect(outcomes[0]).toMatchObject({ ok: true });
    expect(outcomes[1]).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(driver.depth()).toBe(1);
  });

  it('a body plus attributes above maxBodyBytes', async () => {
    const driver = new MemoryDriver();
    const limit = driver.capabilities.maxBodyBytes;
    const outcomes = await driver.publish([
      outgoing('fits', { body: 'x'.repeat(limit - 2), attributes: { k: 'v' } }),
      outgoing('over', { body: 'x'.repeat(limit - 1), attributes: { k: 'v' } }),
      outgoing('multibyte', { body: '€'.repeat(Math.ceil(limit / 3) + 1) }),
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, false]);
    expect(outcomes[1]).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(driver.depth()).toBe(1);
  });

  it('a publish or release delay above nativeMaxDelaySeconds', async () => {
    const clock = new VirtualClock();
    const driver = new MemoryDriver({ clock, nativeMaxDelaySeconds: 900 });
    const outcomes = await driver.publish([
      outgoing('a', { delaySeconds: 900 }),
      outgoing('b', { delaySeconds: 901 }),
    ]);
    expect(outcomes[1]).toMatchObject({ ok: false, error: { code: 'DELAY_OUT_OF_RANGE' } });
    await driver.publish([outgoing('c'), outgoing('d')]);
    const [c, d] = await driver.receive({ maxMessages: 2, leaseSeconds: 30, waitSeconds: 0 });
    const released = await driver.release([
      { receipt: c!.receipt, delaySeconds: 901 },
      { receipt: d!.receipt, delaySeconds: 900 },
    ]);
    expect(released[0]).toMatchObject({ ok: false, error: { code: 'DELAY_OUT_OF_RANGE' } });
    expect(released[1]).toEqual({ ok: true });
    // The refused release changed nothing: c is still leased under its receipt.
    expect(await driver.ack([c!.receipt])).toEqual([{ ok: true }]);
  });
});

describe('MemoryDriver dedupe and batch settles', () => {
  it('dedupes on dedupeKey, not on the event id', async () => {
    const driver = new MemoryDriver();
    const outcomes = await driver.publish([
      outgoing('evt', { dedupeKey: 'evt' }),
      outgoing('evt', { dedupeKey: 'evt-hop-1' }),
      outgoing('other', { dedupeKey: 'evt-hop-1' }),
    ]);
    expect(outcomes.map((o) => o.ok && o.duplicate)).toEqual([false, false, true]);
    expect(driver.depth()).toBe(2);
  });

  it('answers one outcome per settle entry: a stale receipt fails alone', async () => {
    const clock = new VirtualClock();
    const driver = new MemoryDriver({ clock });
    await driver.publish([outgoing('a'), outgoing('b'), outgoing('c')]);
    const [a, b, c] = await driver.receive({ maxMessages: 3, leaseSeconds: 30, waitSeconds: 0 });
    await clock.advance(30_000);
    const [aAgain] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect(aAgain!.messageId).toBe(a!.messageId);
    const outcomes = await driver.ack([b!.receipt, a!.receipt, c!.receipt, 'no-such-receipt']);
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual([
      'ok',
      'LEASE_LOST',
      'ok',
      'LEASE_LOST',
    ]);
    expect(driver.depth()).toBe(1);
    expect(await driver.extendLease([{ receipt: aAgain!.receipt, leaseSeconds: 60 }])).toEqual([
      { ok: true },
    ]);
    expect(await driver.deadLetter([{ receipt: aAgain!.receipt, reason: 'r' }])).toEqual([{ ok: true }]);
    expect(driver.deadLetters().map((dead) => dead.eventId)).toEqual(['a']);
  });
});
