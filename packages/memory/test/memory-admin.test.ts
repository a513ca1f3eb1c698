import { randomUUID } from 'node:crypto';
import { AdapterRegistry, DEFAULT_REDRIVE_AFTER_RECEIVES } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { memoryAdapter } from '@queueport/memory';
import { describe, expect, it } from 'vitest';
import { event } from './helpers/setup';

const registry = new AdapterRegistry([memoryAdapter]);
const fresh = () => `admin-${randomUUID().slice(0, 8)}`;

/** An admin and a queue it created, both on one VirtualClock. */
async function created(request: { redriveAfterReceives?: number; settings?: Record<string, string> } = {}) {
  const clock = new VirtualClock();
  const admin = await registry.openAdmin('memory://', { clock });
  const url = await admin.createQueue({ name: fresh(), ...request });
  const queue = await registry.openQueue(url, { clock, retry: { maxAttempts: 1 } });
  return { clock, admin, url, queue };
}

describe('memory admin', () => {
  it('creates a queue and returns the URL that opens it, with its settings', async () => {
    const { url, queue } = await created({ redriveAfterReceives: 2, settings: { dedupe: 'none' } });
    expect(url).toMatch(/^memory:\/\/admin-[0-9a-f]{8}\?/);
    expect(new URL(url).searchParams.get('maxReceives')).toBe('2');
    expect(queue.driver.capabilities.deadLetter.redriveAfterReceives).toBe(2);
    expect(queue.driver.capabilities.dedupe).toEqual({ kind: 'none' });
  });

  it("redrives after core's default number of receives when the request names none", async () => {
    const { url, queue } = await created();
    expect(new URL(url).searchParams.get('maxReceives')).toBe(String(DEFAULT_REDRIVE_AFTER_RECEIVES));
    expect(queue.driver.capabilities.deadLetter.redriveAfterReceives).toBe(DEFAULT_REDRIVE_AFTER_RECEIVES);
  });

  it("keeps a maxReceives the admin's own URL names", async () => {
    const admin = await registry.openAdmin('memory://?maxReceives=4');
    const url = await admin.createQueue({ name: fresh() });
    expect(new URL(url).searchParams.get('maxReceives')).toBe('4');
    const explicit = await admin.createQueue({ name: fresh(), redriveAfterReceives: 7 });
    expect(new URL(explicit).searchParams.get('maxReceives')).toBe('7');
  });

  it('refuses to create a name that exists', async () => {
    const admin = await registry.openAdmin('memory://');
    const name = fresh();
    await admin.createQueue({ name });
    await expect(admin.createQueue({ name })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('reports depth, the age of the oldest ready message, and dead letters', async () => {
    const { clock, admin, url, queue } = await created();
    expect(await admin.stats(url)).toEqual({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: 0 });

    await queue.publish(event('ready'));
    await clock.advance(5_000);
    await queue.publish(event('delayed', { delaySeconds: 60 }));
    await queue.publish(event('younger'));
    await clock.advance(10_000);
    expect(await admin.stats(url)).toEqual({ depth: 3, oldestReadyAgeSeconds: 15, deadLetters: 0 });

    // A leased message is held but not ready.
    const [leased] = await queue.receive({ leaseSeconds: 300 });
    expect(leased!.envelope.event_id).toBe('ready');
    expect(await admin.stats(url)).toMatchObject({ depth: 3, oldestReadyAgeSeconds: 10 });

    await leased!.deadLetter('refused');
    expect(await admin.stats(url)).toEqual({ depth: 2, oldestReadyAgeSeconds: 10, deadLetters: 1 });
  });

  it('lists dead letters oldest first, up to the limit', async () => {
    const { clock, admin, url, queue } = await created();
    await queue.publishBatch([event('d1', { attributes: { tenant: 'acme' } }), event('d2'), event('d3')]);
    for (const reason of ['first', 'second', 'third']) {
      const [delivery] = await queue.receive();
      await clock.advance(1_000);
      await delivery!.deadLetter(reason);
    }
    const listed = await admin.listDeadLetters!(url, { limit: 2 });
    expect(listed.map((d) => [d.eventId, d.reason])).toEqual([
      ['d1', 'first'],
      ['d2', 'second'],
    ]);
    expect(listed[0]).toMatchObject({ attributes: { tenant: 'acme' }, receiveCount: 1 });
    expect(listed[0]!.at).toBeLessThan(listed[1]!.at!);
    expect(JSON.parse(listed[0]!.body)).toMatchObject({ event_id: 'd1' });
  });

  it('redrives dead letters back as new messages, up to the limit', async () => {
    const { admin, url, queue } = await created();
    await queue.publishBatch([event('r1'), event('r2')]);
    for (const delivery of await queue.receive({ maxMessages: 2 })) await delivery.deadLetter('later');
    expect(await admin.redriveDeadLetters!(url, { limit: 1 })).toBe(1);
    expect(await admin.stats(url)).toMatchObject({ depth: 1, deadLetters: 1 });
    const [back] = await queue.receive();
    expect(back).toMatchObject({ envelope: { event_id: 'r1' }, receiveCount: 1 });
    expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(1);
    expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(0);
  });

  it('purges the messages, not the dead letters', async () => {
    const { admin, url, queue } = await created();
    await queue.publishBatch([event('p1'), event('p2'), event('p3')]);
    const [dead] = await queue.receive();
    await dead!.deadLetter('x');
    await queue.receive({ leaseSeconds: 300 });
    await admin.purge!(url);
    expect(await admin.stats(url)).toEqual({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: 1 });
    expect(await queue.receive({ maxMessages: 10 })).toEqual([]);
  });

  it('deletes a queue: its stats are NOT_FOUND, and so are its open handles, and the name opens empty again', async () => {
    const { admin, url, queue } = await created();
    await queue.publish(event('gone'));
    await admin.deleteQueue(url);
    await expect(admin.stats(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin.deleteQueue(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin.listDeadLetters!(url, { limit: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // As a provider answers a worker whose queue was deleted under it: gone, not merely closed.
    await expect(queue.publish(event('late'))).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const reopened = await registry.openQueue(url);
    expect(await reopened.receive()).toEqual([]);
    expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
  });

  it('answers NOT_FOUND for a name no one created or opened', async () => {
    const admin = await registry.openAdmin('memory://');
    await expect(admin.stats(`memory://${fresh()}`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin.purge!(`memory://${fresh()}`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await admin.close();
  });
});
