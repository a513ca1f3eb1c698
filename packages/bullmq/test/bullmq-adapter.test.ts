import { Socket } from 'node:net';
import { inspect } from 'node:util';
import { AdapterRegistry, DEFAULT_REDRIVE_AFTER_RECEIVES, openQueue, type QueueAdmin } from '@queueport/core';
import { Queue as BullQueue } from 'bullmq';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bullmqAdapter, createBullmqAdapter } from '../src';
import { bullmqProviderUrl } from './support/redis';
import {
  bullmqQueueUrl,
  deleteKeys,
  event,
  freshName,
  scanKeys,
  testDb,
  testRedis,
  uniquePrefix,
  until,
} from './support/unit-redis';

const prefix = uniquePrefix('adapter');
const redis = testRedis();
const adapters = [bullmqAdapter];
const registry = new AdapterRegistry(adapters);
const closers: Array<() => Promise<unknown>> = [];
const providerUrl = bullmqProviderUrl({ prefix, stalledIntervalMs: 100 });

afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

afterAll(async () => {
  await deleteKeys(redis, `${prefix}:*`);
  await redis.quit();
});

function track<T extends { close(): Promise<unknown> }>(closable: T): T {
  closers.push(() => closable.close());
  return closable;
}

async function openAdmin(): Promise<QueueAdmin> {
  return track(await registry.openAdmin(providerUrl));
}

function bullQueue(queueName: string) {
  const bull = new BullQueue(queueName, { connection: redis, prefix });
  bull.on('error', () => {});
  return track(bull);
}

/** This process's open sockets, from Node's own list: a leaked connection has no other owner. */
function openSockets(): Set<Socket> {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return new Set(handles.filter((h): h is Socket => h instanceof Socket && !h.destroyed));
}

describe('openQueue with bullmqAdapter', () => {
  it('opens a queue by URL: publish, receive and ack round trip', async () => {
    const name = freshName('url');
    const queue = track(
      await openQueue(bullmqQueueUrl(name, { prefix, stalledIntervalMs: 100 }), {
        adapters,
        retry: { maxAttempts: 1 },
      }),
    );
    expect(queue.name).toBe(`bullmq:${name}`);
    const receipt = await queue.publish(event('round-trip', { attributes: { tenant: 'acme' } }));
    expect(receipt.duplicate).toBe(false);
    const [delivery] = await queue.receive({ leaseSeconds: 10, waitSeconds: 1 });
    expect(delivery).toMatchObject({
      envelope: { event_id: 'round-trip', type: 'test.event', payload: { id: 'round-trip' } },
      attributes: { tenant: 'acme' },
      receiveCount: 1,
      messageId: receipt.messageId,
    });
    await delivery!.ack();
    expect(await queue.receive()).toEqual([]);
    expect(await bullQueue(name).getJobCounts('wait', 'active', 'completed')).toEqual({
      wait: 0,
      active: 0,
      completed: 1,
    });
  });

  it('reads the password through passwordEnv from the env openQueue is given, never process.env', async () => {
    const url = bullmqQueueUrl(freshName('pw'), {
      prefix,
      // The default user of an unprotected Redis takes any password, so this opens when the
      // password is sent and only when the variable is found.
      username: 'default',
      passwordEnv: 'QP_UNIT_REDIS_PASSWORD',
    });
    expect(process.env.QP_UNIT_REDIS_PASSWORD).toBeUndefined();
    await expect(openQueue(url, { adapters })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'passwordEnv' },
    });
    const queue = track(
      await openQueue(url, { adapters, env: { QP_UNIT_REDIS_PASSWORD: 'any-password-will-do' } }),
    );
    expect((await queue.publish(event('authed'))).duplicate).toBe(false);
  });

  const WRONG_PASSWORD = 'Wr0ng-Passw0rd-Value';
  const unknownUserUrl = () =>
    bullmqQueueUrl(freshName('pw'), { prefix, username: 'qp-unit-nobody', passwordEnv: 'QP_PW' });

  /** What a logger would print of an error: its message, own fields and causes. */
  const printed = (error: unknown) => `${inspect(error, { depth: 8 })} ${JSON.stringify(error)}`;

  // ioredis's own refusal carries AUTH's arguments, the password among them, in its `command`
  // field: what a logger prints of the error must hold none of it.
  it('fails to open with credentials Redis refuses, and never repeats the password', async () => {
    const error = await openQueue(unknownUserUrl(), { adapters, env: { QP_PW: WRONG_PASSWORD } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(printed(error)).not.toContain(WRONG_PASSWORD);
  });

  it('reports refused credentials as UNAUTHORIZED', async () => {
    await expect(
      openQueue(unknownUserUrl(), { adapters, env: { QP_PW: WRONG_PASSWORD } }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  // The admin talks to Redis on its own connection, so it must keep the password out as well.
  it('keeps the password out of an admin call Redis refuses', async () => {
    const provider = new URL(bullmqProviderUrl({ prefix, username: 'qp-unit-nobody', passwordEnv: 'QP_PW' }));
    const admin = track(await registry.openAdmin(provider, { env: { QP_PW: WRONG_PASSWORD } }));
    const error = await admin.createQueue({ name: freshName('pw') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(printed(error)).not.toContain(WRONG_PASSWORD);
  });

  it('refuses a URL that names no queue', async () => {
    await expect(openQueue(providerUrl, { adapters })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'queueName' },
    });
  });

  it('refuses options the driver refuses (a prefix with ":")', async () => {
    await expect(
      openQueue(bullmqQueueUrl(freshName(), { prefix: 'a:b' }), { adapters }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'prefix' } });
  });

  // The connection is opened before the options are checked: a refused URL must not leave a
  // socket behind, which would also keep a CLI process from exiting.
  it('closes the connection it opened when the options are refused', async () => {
    const before = openSockets();
    await expect(
      openQueue(bullmqQueueUrl(freshName(), { prefix, dedupeWindowSeconds: 60, keepCompletedSeconds: 30 }), {
        adapters,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'keepCompletedSeconds' } });
    // ioredis creates its socket on a later tick: let it, so that a leak has shown by the check below.
    await new Promise((resolve) => setImmediate(resolve));
    const opened = () => [...openSockets()].filter((socket) => !before.has(socket));
    await until('the refused open to hold no socket', () => (opened().length === 0 ? true : undefined), {
      timeoutMs: 2_000,
    });
  });
});

describe('createBullmqAdapter({ connection })', () => {
  it("uses the caller's connection for every URL, and never closes it", async () => {
    // Another db than the URL names: where the keys land shows whose connection did the work.
    const db = (testDb() + 1) % 16;
    const connection = testRedis({ db });
    closers.push(async () => {
      await deleteKeys(connection, `${prefix}:*`);
      await connection.quit();
    });
    const own = new AdapterRegistry([createBullmqAdapter({ connection })]);
    const name = freshName('own');
    const queue = track(
      await own.openQueue(bullmqQueueUrl(name, { prefix, stalledIntervalMs: 100 }), {
        retry: { maxAttempts: 1 },
      }),
    );
    await queue.publish(event('mine'));
    const [delivery] = await queue.receive({ waitSeconds: 1 });
    expect(delivery!.envelope.event_id).toBe('mine');
    await delivery!.ack();
    await queue.close();
    expect(await connection.ping()).toBe('PONG');
    expect(connection.status).toBe('ready');
    expect(await scanKeys(connection, `${prefix}:${name}:*`)).not.toEqual([]);
    expect(await scanKeys(redis, `${prefix}:${name}:*`)).toEqual([]);

    const admin = await own.openAdmin(bullmqProviderUrl({ prefix }));
    expect(await admin.stats(bullmqQueueUrl(name, { prefix }))).toMatchObject({ depth: 0, deadLetters: 0 });
    await admin.close();
    expect(await connection.ping()).toBe('PONG');
  });
});

describe('bullmq admin', () => {
  it.each([
    [{ redriveAfterReceives: 0 }, 'redriveAfterReceives'],
    [{ redriveAfterReceives: 1.5 }, 'redriveAfterReceives'],
    [{ settings: { fifo: true } }, 'settings'],
  ])('createQueue refuses %j, naming the field, and creates nothing', async (request, field) => {
    const admin = await openAdmin();
    const name = freshName('refused');
    await expect(admin.createQueue({ name, ...request })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field },
    });
    expect(await scanKeys(redis, `${prefix}:${name}:*`)).toEqual([]);
    await expect(admin.stats(bullmqQueueUrl(name, { prefix }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('createQueue returns the URL that opens the queue, with the provider’s options', async () => {
    const admin = await openAdmin();
    const name = freshName('created');
    const url = await admin.createQueue({ name, settings: {} });
    expect(new URL(url).pathname).toBe(`/${name}`);
    expect(new URL(url).searchParams.get('prefix')).toBe(prefix);
    expect(await admin.stats(url)).toEqual({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: 0 });
  });

  it('deleteQueue removes every key of the queue, and only that queue’s', async () => {
    const admin = await openAdmin();
    const name = freshName('doomed');
    const url = await admin.createQueue({ name });
    // A sibling whose name starts with the doomed one's: a loose key pattern would take it too.
    const siblingUrl = await admin.createQueue({ name: `${name}-sibling` });
    const queue = track(await registry.openQueue(url, { retry: { maxAttempts: 1 } }));
    const sibling = track(await registry.openQueue(siblingUrl, { retry: { maxAttempts: 1 } }));
    await sibling.publish(event('stays'));
    // Every state BullMQ keeps keys for: waiting, delayed, completed, failed, active, dedupe keys.
    await queue.publishBatch([event('done'), event('dead'), event('held'), event('waiting')]);
    await queue.publish(event('later', { delaySeconds: 3600 }));
    const [done, dead, held] = await queue.receive({ maxMessages: 3, leaseSeconds: 60 });
    await done!.ack();
    await dead!.deadLetter('for the test');
    expect(held).toBeDefined();
    expect(await admin.stats(url)).toMatchObject({ depth: 3, deadLetters: 1 });
    await queue.close();
    const before = await scanKeys(redis, `${prefix}:${name}:*`);
    expect(before.length).toBeGreaterThan(5);
    const siblingKeys = await scanKeys(redis, `${prefix}:${name}-sibling:*`);

    await admin.deleteQueue(url);
    expect(await scanKeys(redis, `${prefix}:${name}:*`)).toEqual([]);
    expect(await scanKeys(redis, `${prefix}:${name}-sibling:*`)).toEqual(siblingKeys);
    expect(await admin.stats(siblingUrl)).toMatchObject({ depth: 1 });
  });

  // A driver still open on the queue keeps running BullMQ's stall check, which writes the
  // queue's meta key back: a conformance run used to leave `<prefix>:conformance-<id>:meta`.
  it('deleteQueue leaves no key behind while a driver is still open on the queue', async () => {
    const admin = await openAdmin();
    const name = freshName('open');
    const url = await admin.createQueue({ name });
    const queue = track(await registry.openQueue(url, { retry: { maxAttempts: 1 } }));
    await queue.publish(event('one'));
    const [delivery] = await queue.receive({ leaseSeconds: 1 });
    await delivery!.ack();
    await admin.deleteQueue(url);
    // Several stall checks' worth (every 100 ms here) with the queue still open.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await scanKeys(redis, `${prefix}:${name}:*`)).toEqual([]);
  });

  it('createQueue gives a queue the portable default redrive count, or the one asked for', async () => {
    const admin = await openAdmin();
    const byDefault = track(await registry.openQueue(await admin.createQueue({ name: freshName('dflt') })));
    expect(byDefault.capabilities.deadLetter.redriveAfterReceives).toBe(DEFAULT_REDRIVE_AFTER_RECEIVES);

    const url = await admin.createQueue({ name: freshName('redrive'), redriveAfterReceives: 2 });
    const queue = track(await registry.openQueue(url, { retry: { maxAttempts: 1 } }));
    expect(queue.capabilities.deadLetter.redriveAfterReceives).toBe(2);
    await queue.publish(event('twice'));
    for (const expected of [1, 2]) {
      const [delivery] = await queue.receive({ waitSeconds: 1 });
      expect(delivery!.receiveCount).toBe(expected);
      await delivery!.release();
    }
    // The third receive finds it past the redrive count: it goes to the dead letters instead.
    expect(await queue.receive({ waitSeconds: 0.5 })).toEqual([]);
    const [dead] = await admin.listDeadLetters!(url, { limit: 10 });
    expect(dead).toMatchObject({ eventId: 'twice', reason: expect.stringContaining('redriveAfterReceives') });
  });

  it('answers NOT_FOUND for a deleted queue: stats, dead letters, purge and a second delete', async () => {
    const admin = await openAdmin();
    const url = await admin.createQueue({ name: freshName('gone') });
    await admin.deleteQueue(url);
    await expect(admin.stats(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin.listDeadLetters!(url, { limit: 10 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin.purge!(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(admin.deleteQueue(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a queue URL on another Redis, or one that names no queue', async () => {
    const admin = await openAdmin();
    const own = new URL(providerUrl);
    const elsewhere = [
      `bullmq://redis.elsewhere.example:${own.port || 6379}/orders?prefix=${prefix}`,
      `bullmq://${own.hostname}:${Number(own.port || 6379) + 1}/orders?prefix=${prefix}`,
      `bullmq://${own.host}/orders?prefix=${prefix}&db=${(testDb() + 1) % 16}`,
      `bullmq://${own.host}?prefix=${prefix}`,
    ];
    for (const url of elsewhere) {
      await expect(admin.stats(url), url).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'url' },
      });
      await expect(admin.deleteQueue(url), url).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });
});
