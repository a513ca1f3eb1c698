import { randomUUID } from 'node:crypto';
import { AdapterRegistry, openQueue, Queue, type QueueError } from '@queueport/core';
import { type AdapterDefinition, defineAdapter } from '@queueport/core/driver';
import { VirtualClock } from '@queueport/core/testing';
import { memoryAdapter } from '@queueport/memory';
import { describe, expect, it } from 'vitest';
import { event } from './helpers/setup';

/** Memory queues are shared per process: every test names its own. */
const fresh = (prefix = 'q') => `${prefix}-${randomUUID().slice(0, 8)}`;
const adapters = [memoryAdapter];

async function failure(promise: Promise<unknown>): Promise<QueueError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected a rejection').toBeDefined();
  return error as QueueError;
}

describe('openQueue with memoryAdapter', () => {
  it('opens a Queue by URL, on the clock it is given', async () => {
    const clock = new VirtualClock();
    const name = fresh();
    const queue = await openQueue(`memory://${name}`, { adapters, clock });
    expect(queue.name).toBe(`memory:${name}`);
    await queue.publish(event('e1', { delaySeconds: 60 }));
    await clock.advance(59_999);
    expect(await queue.receive()).toEqual([]);
    await clock.advance(1);
    expect((await queue.receive()).map((d) => d.envelope.event_id)).toEqual(['e1']);
    await queue.close();
  });

  it('lets two opens of the same name meet: a publish on one is received on the other', async () => {
    const url = `memory://${fresh()}`;
    const publisher = await openQueue(url, { adapters });
    const consumer = await openQueue(url, { adapters });
    await publisher.publish(event('shared', { attributes: { tenant: 'acme' } }));
    const [delivery] = await consumer.receive();
    expect(delivery).toMatchObject({ envelope: { event_id: 'shared' }, attributes: { tenant: 'acme' } });
    await delivery!.ack();
    expect(await publisher.receive()).toEqual([]);
    await Promise.all([publisher.close(), consumer.close()]);
  });

  it('keeps separate names separate', async () => {
    const one = await openQueue(`memory://${fresh()}`, { adapters });
    const two = await openQueue(`memory://${fresh()}`, { adapters });
    await one.publish(event('mine'));
    expect(await two.receive()).toEqual([]);
    expect(await one.receive()).toHaveLength(1);
  });

  it('applies the options in the query', async () => {
    const queue = await openQueue(
      `memory://${fresh()}?dedupe=none&ordering=none&fractionalDelay=true&nativeMaxDelaySeconds=900&maxReceives=5&batchMax=4&retentionSeconds=3600`,
      { adapters },
    );
    const caps = queue.driver.capabilities;
    expect(caps.dedupe).toEqual({ kind: 'none' });
    expect(caps.ordering).toBe('none');
    expect(caps.delay).toMatchObject({ fractional: true, nativeMaxSeconds: 900 });
    expect(caps.deadLetter).toEqual({ move: true, redriveAfterReceives: 5 });
    expect(caps.batch).toEqual({ publish: 4, receive: 4, settle: 4 });
    expect(caps.retentionSeconds).toBe(3_600);
    expect(queue.bridgesDelays).toBe(true);
    expect(
      (await openQueue(`memory://${fresh()}?dedupe=while-retained`, { adapters })).driver.capabilities.dedupe,
    ).toEqual({ kind: 'while-retained', reportsDuplicates: true });
    expect(
      (await openQueue(`memory://${fresh()}?dedupe=window:60`, { adapters })).driver.capabilities.dedupe,
    ).toEqual({ kind: 'window', windowSeconds: 60, reportsDuplicates: true });
  });

  it('refuses to reopen a name with other options, but not with the same or none', async () => {
    const name = fresh();
    await openQueue(`memory://${name}?dedupe=none`, { adapters });
    const error = await failure(openQueue(`memory://${name}?dedupe=while-retained`, { adapters }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(error.message).toContain('dedupe=none');
    await openQueue(`memory://${name}?dedupe=none`, { adapters });
    await openQueue(`memory://${name}`, { adapters });
  });

  it.each([
    ['dedupe', 'dedupe=forever'],
    ['dedupe', 'dedupe=window:0'],
    ['ordering', 'ordering=random'],
    ['fractionalDelay', 'fractionalDelay=yes'],
    ['nativeMaxDelaySeconds', 'nativeMaxDelaySeconds=0'],
    ['maxReceives', 'maxReceives=1.5'],
    ['batchMax', 'batchMax=-1'],
    ['retentionSeconds', 'retentionSeconds=soon'],
    ['maxReceive', 'maxReceive=3'],
    ['retention', 'retention=3'],
  ])('names the bad option %s in the error (%s)', async (field, query) => {
    const error = await failure(openQueue(`memory://${fresh()}?${query}`, { adapters }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    expect(error.message).toContain(field);
  });

  const TOKEN = 'ghp_R3alLookingT0kenValue1234567890abcd';
  it.each([
    ['as the value of an unknown option', `db=${TOKEN}`],
    ['as an option name', `${TOKEN}=1`],
    ['as the value of a known option', `ordering=${TOKEN}`],
    ['as a number option', `maxReceives=${TOKEN}`],
    ['as a dedupe window', `dedupe=window:${TOKEN}`],
  ])('never repeats a token typed %s', async (_, query) => {
    const error = await failure(openQueue(`memory://${fresh()}?${query}`, { adapters }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(
      JSON.stringify({ message: error.message, details: error.details, stack: error.stack }),
    ).not.toContain(TOKEN.slice(4, 20));
  });

  it.each([
    ['a user and a password', 'memory://user:s3cr3tPassw0rd@orders'],
    ['a user alone', 'memory://s3cr3tPassw0rd@orders'],
  ])('refuses credentials in the URL (%s) without repeating them', async (_, url) => {
    const error = await failure(openQueue(url, { adapters }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(error.message).toContain('no credentials');
    expect(error.message).not.toContain('s3cr3t');
    const admin = await failure(
      Promise.resolve()
        .then(() => memoryAdapter.admin!(new URL(url), {}))
        .then((a) => a.createQueue({ name: fresh() })),
    );
    expect(admin.message).not.toContain('s3cr3t');
  });

  it('refuses a URL without a queue name', async () => {
    const error = await failure(openQueue('memory://', { adapters }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(error.message).toContain('memory://orders');
  });
});

describe('AdapterRegistry', () => {
  it('refuses an unknown scheme, listing the registered ones', async () => {
    const other = defineAdapter({ ...memoryAdapter, scheme: 'other', packageName: 'other-pkg' });
    const registry = new AdapterRegistry([memoryAdapter, other]);
    expect(registry.schemes).toEqual(['memory', 'other']);
    const error = await failure(registry.openQueue('sqs://sqs.eu-west-1.amazonaws.com/1/orders'));
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { scheme: 'sqs', registered: ['memory', 'other'] },
    });
    expect(error.message).toContain('sqs://');
    expect(error.message).toContain('memory://, other://');
  });

  it('says so when nothing is registered', async () => {
    const error = await failure(openQueue('memory://x', { adapters: [] }));
    expect(error.message).toContain('registered: none');
  });

  it('redacts a password and secret-looking query values from its errors', async () => {
    const error = await failure(
      openQueue('sqs://admin:hunter2@localhost:4566/orders?token=abc123&region=eu', { adapters }),
    );
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('abc123');
    expect(error.message).toContain('REDACTED');
    expect(error.message).toContain('region=eu');
    expect(JSON.stringify(error.details)).not.toContain('hunter2');
  });

  it('refuses what is not a URL without echoing it', async () => {
    const error = await failure(openQueue('password=hunter2 not a url', { adapters }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses two adapters claiming one scheme, and accepts one registered twice', () => {
    const impostor: AdapterDefinition = { ...memoryAdapter, packageName: 'impostor' };
    expect(() => new AdapterRegistry([memoryAdapter, impostor])).toThrow(
      /two adapters claim the scheme memory/,
    );
    expect(new AdapterRegistry([memoryAdapter, memoryAdapter]).schemes).toEqual(['memory']);
  });

  it('resolves a URL to its definition', () => {
    const { definition, url } = new AdapterRegistry(adapters).resolve('memory://orders?dedupe=none');
    expect(definition).toBe(memoryAdapter);
    expect(url.searchParams.get('dedupe')).toBe('none');
    expect(memoryAdapter).toMatchObject({
      scheme: 'memory',
      packageName: '@queueport/memory',
      virtualClock: true,
    });
  });
});

describe('handles onto one memory queue', () => {
  it('closing one does not close the queue for the other', async () => {
    const url = `memory://${fresh()}`;
    const one = await openQueue(url, { adapters });
    const two = await openQueue(url, { adapters });
    await one.close();
    await expect(one.publish(event('late'))).rejects.toMatchObject({ code: 'CLOSED' });
    await two.publish(event('after'));
    expect((await two.receive()).map((d) => d.envelope.event_id)).toEqual(['after']);
    const three = await openQueue(url, { adapters });
    expect(await three.receive()).toEqual([]);
  });

  it('closing one ends its own long poll only', async () => {
    const clock = new VirtualClock();
    const url = `memory://${fresh()}`;
    const one = await openQueue(url, { adapters, clock });
    const two = await openQueue(url, { adapters, clock });
    const oneWaiting = one.receive({ waitSeconds: 20 });
    const twoWaiting = two.receive({ waitSeconds: 20 });
    await clock.advance(0);
    await one.close();
    expect(await oneWaiting).toEqual([]);
    await two.publish(event('for-two'));
    expect((await twoWaiting).map((d) => d.envelope.event_id)).toEqual(['for-two']);
  });

  it('a Queue closed over a handle refuses to settle what it received; the message stays leased', async () => {
    const url = `memory://${fresh()}`;
    // The Queue, not the handle, refuses calls after close (the driver contract).
    const one = new Queue(await memoryAdapter.open(new URL(url), {}));
    const two = await openQueue(url, { adapters });
    await two.publish(event('e1'));
    const [delivery] = await one.receive({ leaseSeconds: 300 });
    await one.close();
    await expect(delivery!.ack()).rejects.toMatchObject({ code: 'CLOSED' });
    // The message itself is untouched: still leased, not gone.
    expect(await two.receive()).toEqual([]);
  });

  it('a closed handle ends a receive at once, and leaves the queue open for the others', async () => {
    const url = `memory://${fresh()}`;
    const handle = await memoryAdapter.open(new URL(url), {});
    const other = await openQueue(url, { adapters });
    await other.publish(event('e1'));
    await handle.close();
    // Its receives end through its abort signal, not a refusal: the Queue refuses the calls.
    expect(await handle.receive({ maxMessages: 1, waitSeconds: 20, leaseSeconds: 30 })).toEqual([]);
    expect((await other.receive()).map((d) => d.envelope.event_id)).toEqual(['e1']);
  });
});
