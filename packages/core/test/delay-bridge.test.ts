import { encodeEnvelope, MAX_BODY_BYTES, type PublishInput, prepareEnvelope, Queue } from '@queueport/core';
import { BRIDGE_ATTRIBUTE } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { describe, expect, it } from 'vitest';
import { bridgedSetup, EIGHT_ATTRIBUTES, NATIVE, pollUntil, WEEK_SECONDS, weekLater } from './helpers/bridge';
import { FakeDriver } from './helpers/fake-driver';

const WEEK_MS = WEEK_SECONDS * 1000;
const LATE_MS = 1_000;

describe('the delay bridge over a fake driver holding 900 s natively', () => {
  it('delivers a 7-day publish once, at due, to a worker polling all week', async () => {
    const { clock, fake, queue, delays } = bridgedSetup();
    const due = clock.now() + WEEK_MS;
    await queue.publish(weekLater('evt_week', { attributes: EIGHT_ATTRIBUTES, groupId: 'customer-7' }));

    const early = await pollUntil(queue, clock, due - 1, 300_000);
    expect(early).toEqual([]);
    // Polled right up to 1 ms before due: nothing yet.
    expect(clock.now()).toBe(due - 1);

    const arrivals = await pollUntil(queue, clock, due + 2 * LATE_MS, 50);
    // A day more of polling: a second copy would have shown up by now.
    await pollUntil(queue, clock, due + 86_400_000, 300_000, arrivals);
    expect(arrivals).toHaveLength(1);
    const [{ at, delivery }] = arrivals as [(typeof arrivals)[number]];
    expect(at - due).toBeGreaterThanOrEqual(0);
    expect(at - due).toBeLessThanOrEqual(LATE_MS);
    expect(delivery.envelope.event_id).toBe('evt_week');
    expect(delivery.attributes).toEqual(EIGHT_ATTRIBUTES);
    expect(delivery.attributes).not.toHaveProperty(BRIDGE_ATTRIBUTE);
    expect(delivery.groupId).toBe('customer-7');
    expect(delivery.receiveCount).toBe(1);
    expect(fake.depth()).toBe(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(NATIVE);
    // A week of 900 s hops: the bridge did hop, the driver was never asked for more.
    expect(delays.length).toBeGreaterThanOrEqual(WEEK_SECONDS / NATIVE);
  }, 60_000);

  it('delivers a 7-day publish at due, never early, to a worker that first polls 1 ms before due', async () => {
    const { clock, queue, delays } = bridgedSetup();
    const due = clock.now() + WEEK_MS;
    await queue.publish(weekLater('evt_jump', { attributes: EIGHT_ATTRIBUTES, groupId: 'g' }));
    await clock.advanceTo(due - 1);
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);

    const arrivals = await pollUntil(queue, clock, due + 2 * LATE_MS, 1);
    await pollUntil(queue, clock, due + 86_400_000, 300_000, arrivals);
    expect(arrivals).toHaveLength(1);
    expect(arrivals[0]!.at - due).toBeGreaterThanOrEqual(0);
    expect(arrivals[0]!.at - due).toBeLessThanOrEqual(LATE_MS);
    expect(arrivals[0]!.delivery).toMatchObject({
      attributes: EIGHT_ATTRIBUTES,
      groupId: 'g',
      receiveCount: 1,
    });
    expect(Math.max(...delays)).toBeLessThanOrEqual(NATIVE);
  }, 60_000);

  it('delivers the hop itself when it is first received after due', async () => {
    const { clock, queue, published } = bridgedSetup();
    await queue.publish(weekLater('evt_late_poll', { attributes: { tenant: 'acme' } }));
    await clock.advance(WEEK_MS + 3_600_000);
    const [delivery] = await queue.receive();
    expect(delivery).toMatchObject({ attributes: { tenant: 'acme' }, receiveCount: 1 });
    expect(published).toHaveLength(1);
  });

  it('brings a 7-day release back once, at due, with the receive count one higher', async () => {
    const { clock, queue, delays } = bridgedSetup();
    await queue.publish({
      envelope: { event_id: 'evt_retry', type: 't', payload: 1 },
      attributes: EIGHT_ATTRIBUTES,
    });
    await queue.receive({ leaseSeconds: 10 });
    await clock.advance(10_000);
    const [second] = await queue.receive({ leaseSeconds: 10 });
    expect(second!.receiveCount).toBe(2);

    const due = clock.now() + WEEK_MS;
    await second!.release({ delaySeconds: WEEK_SECONDS });
    expect(await pollUntil(queue, clock, due - 1, 450_000)).toEqual([]);
    const arrivals = await pollUntil(queue, clock, due + 2 * LATE_MS, 100);
    await pollUntil(queue, clock, due + 86_400_000, 300_000, arrivals);
    expect(arrivals).toHaveLength(1);
    expect(arrivals[0]!.at - due).toBeGreaterThanOrEqual(0);
    expect(arrivals[0]!.at - due).toBeLessThanOrEqual(LATE_MS);
    expect(arrivals[0]!.delivery.receiveCount).toBe(3);
    expect(arrivals[0]!.delivery.attributes).toEqual(EIGHT_ATTRIBUTES);
    expect(Math.max(...delays)).toBeLessThanOrEqual(NATIVE);
  }, 60_000);

  it('keys a released chain apart from the event id, which the provider may still be deduplicating', async () => {
    const { queue, published } = bridgedSetup();
    await queue.publish({ envelope: { event_id: 'evt_key', type: 't', payload: 1 } });
    const [delivery] = await queue.receive();
    await delivery!.release({ delaySeconds: WEEK_SECONDS });
    const hop = published.at(-1)!;
    expect(hop.attributes).toHaveProperty(BRIDGE_ATTRIBUTE);
    expect(hop.dedupeKey).not.toBe('evt_key');
    // Had the fake driver's 300 s window absorbed it, the message would be gone.
    expect(published.at(0)!.dedupeKey).toBe('evt_key');
  });

  it('counts receives on across a lease expiry of a due message', async () => {
    const { clock, queue } = bridgedSetup();
    await queue.publish(weekLater('evt_count'));
    await clock.advance(WEEK_MS);
    const [first] = await queue.receive({ leaseSeconds: 30 });
    expect(first!.receiveCount).toBe(1);
    await clock.advance(30_000);
    const [second] = await queue.receive({ leaseSeconds: 30 });
    expect(second!.receiveCount).toBe(2);
    expect(second!.messageId).toBe(first!.messageId);
    await second!.release();
    const [third] = await queue.receive();
    expect(third!.receiveCount).toBe(3);
  });

  it('passes delays the provider holds natively straight through', async () => {
    const { clock, queue, published } = bridgedSetup();
    await queue.publish(weekLater('evt_native', { delaySeconds: NATIVE }));
    expect(published[0]!.delaySeconds).toBe(NATIVE);
    expect(published[0]!.attributes).not.toHaveProperty(BRIDGE_ATTRIBUTE);
    await clock.advance(NATIVE * 1000);
    expect(await queue.receive()).toHaveLength(1);
  });

  it('would be refused by the driver had the Queue not bridged', async () => {
    const fake = new FakeDriver({ nativeMaxDelaySeconds: NATIVE });
    const raw = {
      eventId: 'e',
      dedupeKey: 'e',
      body: '{}',
      attributes: {},
      delaySeconds: NATIVE + 1,
    };
    const [outcome] = await fake.publish([raw]);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'DELAY_OUT_OF_RANGE' } });
  });
});

describe('bridgesDelays and the body limit', () => {
  it('is on only when the native delay is below the maximum', () => {
    const clock = new VirtualClock();
    expect(new Queue(new FakeDriver({ clock })).bridgesDelays).toBe(false);
    expect(new Queue(new FakeDriver({ clock, nativeMaxDelaySeconds: NATIVE })).bridgesDelays).toBe(true);
    const narrowed = (maxDelaySeconds: number) =>
      new Queue(new FakeDriver({ clock, nativeMaxDelaySeconds: NATIVE }), { limits: { maxDelaySeconds } });
    expect(narrowed(NATIVE).bridgesDelays).toBe(false);
    expect(narrowed(600).bridgesDelays).toBe(false);
    expect(narrowed(NATIVE + 1).bridgesDelays).toBe(true);
  });

  it("takes the bridge's 64 bytes off the driver's body limit, and only when bridging", () => {
    const bridged = new Queue(new FakeDriver({ nativeMaxDelaySeconds: NATIVE }));
    expect(bridged.driver.capabilities.maxBodyBytes).toBe(MAX_BODY_BYTES);
    expect(bridged.capabilities.maxBodyBytes).toBe(bridged.driver.capabilities.maxBodyBytes - 64);
    expect(new Queue(new FakeDriver()).capabilities.maxBodyBytes).toBe(MAX_BODY_BYTES);
  });

  it('lets a message at the reduced limit hop through a driver that counts its bytes', async () => {
    const { clock, queue } = bridgedSetup();
    const limit = queue.capabilities.maxBodyBytes;
    await queue.publish({ ...sized(limit, EIGHT_ATTRIBUTES), delaySeconds: WEEK_SECONDS });
    await expect(
      queue.publish({ ...sized(limit + 1, EIGHT_ATTRIBUTES), delaySeconds: 60 }),
    ).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    const arrivals = await pollUntil(queue, clock, clock.now() + WEEK_MS + 1_000, 900_000);
    expect(arrivals).toHaveLength(1);
  });
});

/** A publish input whose encoded envelope plus attributes is exactly `target` bytes. */
function sized(target: number, attributes: Record<string, string>): PublishInput {
  const envelope = (text: string) => ({
    event_id: 'evt_sized',
    type: 'test.sized',
    occurred_at: '2026-01-01T00:00:00.000Z',
    payload: { text },
  });
  const attributeBytes = Object.entries(attributes).reduce((n, [k, v]) => n + k.length + v.length, 0);
  const fixed = Buffer.byteLength(encodeEnvelope(prepareEnvelope(envelope(''))), 'utf8') + attributeBytes;
  return { envelope: envelope('x'.repeat(target - fixed)), attributes };
}
