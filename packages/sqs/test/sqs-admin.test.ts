import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { canonicalJson, DEFAULT_REDRIVE_AFTER_RECEIVES, type QueueAdmin } from '@queueport/core';
import type { Driver, OutgoingMessage } from '@queueport/core/driver';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { sqsAdapter } from '../src';
import { REGION, sqsEndpoint, sqsProviderUrl } from './support/sqs';

const freshName = (tag: string) => `qp-adm-${tag}-${randomUUID().slice(0, 8)}`;

function outgoing(id: string, extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    eventId: id,
    dedupeKey: id,
    body: canonicalJson({ event_id: id, payload: { id } }),
    attributes: {},
    delaySeconds: 0,
    ...extra,
  };
}

const eventIds = (records: ReadonlyArray<{ eventId: string | undefined }>) =>
  records.map((r) => r.eventId).sort();

if (!sqsEndpoint) {
  describe('sqs admin against an SQS server', () => {
    it.skip(`no SQS server: ${inject('queueportServices').sqsUnavailable ?? 'see the test services summary'}`, () => {});
  });
} else {
  const endpoint = sqsEndpoint;
  // SQS's own view, to check what the admin says against it.
  const client = new SQSClient({
    region: REGION,
    endpoint,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  let admin: QueueAdmin;
  const made: string[] = [];
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    admin = await sqsAdapter.admin!(new URL(sqsProviderUrl()), {});
  });

  afterEach(async () => {
    await Promise.allSettled(closers.splice(0).map((close) => close()));
  });

  afterAll(async () => {
    await Promise.allSettled(made.map((url) => admin.deleteQueue(url)));
    await admin?.close();
    client.destroy();
  });

  const create = async (request: Parameters<QueueAdmin['createQueue']>[0]) => {
    const url = await admin.createQueue(request);
    made.push(url);
    return url;
  };

  const openDriver = async (url: string): Promise<Driver> => {
    const driver = await sqsAdapter.open(new URL(url), {});
    closers.push(() => driver.close());
    return driver;
  };

  /** The SQS queue URL for a name, or undefined where SQS has none. */
  const sqsUrlOf = async (name: string): Promise<string | undefined> => {
    try {
      return (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
    } catch (error) {
      if ((error as Error).name === 'QueueDoesNotExist') return undefined;
      throw error;
    }
  };

  const attributesOf = async (name: string) => {
    const { Attributes = {} } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: (await sqsUrlOf(name))!, AttributeNames: ['All'] }),
    );
    return Attributes;
  };

  /** Receives `count` messages through a driver and dead-letters each with a reason. */
  const deadLetter = async (driver: Driver, count: number, reason = (id: string) => `gave up on ${id}`) => {
    const taken = await driver.receive({ maxMessages: count, leaseSeconds: 30, waitSeconds: 1 });
    expect(taken).toHaveLength(count);
    const outcomes = await driver.deadLetter!(
      taken.map((m) => ({ receipt: m.receipt, reason: reason(JSON.parse(m.body).event_id) })),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    return taken;
  };

  describe('createQueue', () => {
    it('makes a standard queue with its -dlq queue and a redrive policy to it', async () => {
      const name = freshName('std');
      const url = await create({ name, redriveAfterReceives: 3, settings: { maxMessageBytes: 262_144 } });
      expect(url).toBe(`sqs://${REGION}/${name}?endpoint=${encodeURIComponent(endpoint)}`);
      const dlq = await attributesOf(`${name}-dlq`);
      expect(dlq).toMatchObject({ MessageRetentionPeriod: '1209600', MaximumMessageSize: '262144' });
      expect(dlq.FifoQueue).toBeUndefined();
      const main = await attributesOf(name);
      expect(main.MaximumMessageSize).toBe('262144');
      expect(JSON.parse(main.RedrivePolicy!)).toEqual({
        deadLetterTargetArn: dlq.QueueArn,
        maxReceiveCount: 3,
      });
      // The driver opened from that URL reads the same.
      const driver = await openDriver(url);
      expect(driver.capabilities.deadLetter).toEqual({ move: true, redriveAfterReceives: 3 });
      expect(driver.capabilities.maxBodyBytes).toBe(262_144 - 70);
    });

    it('gives a queue without redriveAfterReceives a -dlq for moves, redriven by SQS after the portable default of receives', async () => {
      const name = freshName('default');
      await create({ name, settings: { retentionSeconds: 3600, visibilityTimeoutSeconds: 5 } });
      const main = await attributesOf(name);
      expect(main).toMatchObject({ MessageRetentionPeriod: '3600', VisibilityTimeout: '5' });
      expect(JSON.parse(main.RedrivePolicy!).maxReceiveCount).toBe(DEFAULT_REDRIVE_AFTER_RECEIVES);
    });

    it('makes a FIFO queue and a FIFO -dlq, by setting or by name', async () => {
      const base = freshName('fifo');
      const url = await create({ name: base, settings: { fifo: true }, redriveAfterReceives: 2 });
      expect(new URL(url).pathname).toBe(`/${base}.fifo`);
      const dlq = await attributesOf(`${base}-dlq.fifo`);
      expect(dlq.FifoQueue).toBe('true');
      const main = await attributesOf(`${base}.fifo`);
      expect(main.FifoQueue).toBe('true');
      expect(JSON.parse(main.RedrivePolicy!)).toEqual({
        deadLetterTargetArn: dlq.QueueArn,
        maxReceiveCount: 2,
      });

      const named = freshName('named');
      expect(new URL(await create({ name: `${named}.fifo` })).pathname).toBe(`/${named}.fifo`);
      expect((await attributesOf(`${named}-dlq.fifo`)).FifoQueue).toBe('true');
    });

    it('makes no dead-letter queue with deadLetterQueue: false', async () => {
      const name = freshName('bare');
      const url = await create({ name, settings: { deadLetterQueue: false } });
      expect((await attributesOf(name)).RedrivePolicy).toBeUndefined();
      expect(await sqsUrlOf(`${name}-dlq`)).toBeUndefined();
      expect((await openDriver(url)).capabilities.deadLetter).toEqual({
        move: false,
        redriveAfterReceives: null,
      });
    });

    it.each(['colour', 'FifoQueue', 'maxReceiveCount'])(
      'refuses the setting %s by name and makes nothing',
      async (key) => {
        const name = freshName('refused');
        const refusal = admin.createQueue({ name, settings: { [key]: 'x' } });
        await expect(refusal).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: key } });
        await expect(refusal).rejects.toThrow(`"${key}"`);
        expect(await sqsUrlOf(name)).toBeUndefined();
        expect(await sqsUrlOf(`${name}-dlq`)).toBeUndefined();
      },
    );
  });

  describe('deleteQueue', () => {
    it('deletes the queue and the -dlq it made', async () => {
      const name = freshName('del');
      const url = await admin.createQueue({ name });
      expect(await sqsUrlOf(`${name}-dlq`)).toBeDefined();
      await admin.deleteQueue(url);
      expect(await sqsUrlOf(name)).toBeUndefined();
      expect(await sqsUrlOf(`${name}-dlq`)).toBeUndefined();
      await expect(admin.stats(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('leaves a dead-letter queue it did not make', async () => {
      const shared = freshName('shared');
      const { QueueUrl: sharedUrl } = await client.send(new CreateQueueCommand({ QueueName: shared }));
      const { Attributes } = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: sharedUrl!, AttributeNames: ['QueueArn'] }),
      );
      const name = freshName('user');
      await client.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: 5 }),
          },
        }),
      );
      const url = `sqs://${REGION}/${name}?endpoint=${encodeURIComponent(endpoint)}`;
      await admin.deleteQueue(url);
      expect(await sqsUrlOf(name)).toBeUndefined();
      expect(await sqsUrlOf(shared)).toBe(sharedUrl);
      await client.send(new DeleteQueueCommand({ QueueUrl: sharedUrl! }));
    });
  });

  describe('stats', () => {
    it('counts waiting, delayed and in-flight messages as depth, and the dead letters', async () => {
      const url = await create({ name: freshName('stats') });
      expect(await admin.stats(url)).toEqual({ depth: 0, oldestReadyAgeSeconds: null, deadLetters: 0 });
      const driver = await openDriver(url);
      await driver.publish([
        outgoing('waiting'),
        outgoing('leased'),
        outgoing('delayed', { delaySeconds: 60 }),
      ]);
      const [leased] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 1 });
      expect(leased).toBeDefined();
      expect(await admin.stats(url)).toEqual({ depth: 3, oldestReadyAgeSeconds: null, deadLetters: 0 });
      await driver.deadLetter!([{ receipt: leased!.receipt, reason: 'stats' }]);
      expect(await admin.stats(url)).toEqual({ depth: 2, oldestReadyAgeSeconds: null, deadLetters: 1 });
    });

    it('says null dead letters for a queue without a dead-letter queue', async () => {
      const url = await create({ name: freshName('stats-bare'), settings: { deadLetterQueue: false } });
      expect((await admin.stats(url)).deadLetters).toBeNull();
    });
  });

  describe('dead letters', () => {
    it('lists them with reason and event id, and leaves them in the dead-letter queue', async () => {
      const name = freshName('list');
      const url = await create({ name });
      const driver = await openDriver(url);
      const body = canonicalJson({ event_id: 'odd', s: '\uffff' });
      await driver.publish([
        outgoing('first', { attributes: { tenant: 'acme', ctl: '\u0001' } }),
        outgoing('odd', { body }),
      ]);
      await deadLetter(driver, 2);
      // One SQS put there on its own (its redrive policy): no reason, no time of the move.
      const dlqUrl = (await sqsUrlOf(`${name}-dlq`))!;
      await client.send(
        new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: canonicalJson({ event_id: 'by-sqs' }) }),
      );

      const listed = await admin.listDeadLetters!(url, { limit: 10 });
      expect(eventIds(listed)).toEqual(['by-sqs', 'first', 'odd']);
      const byId = Object.fromEntries(listed.map((r) => [r.eventId, r]));
      expect(byId.first).toMatchObject({
        reason: 'gave up on first',
        attributes: { tenant: 'acme', ctl: '\u0001' },
        receiveCount: 0,
      });
      expect(byId.first!.at).toEqual(expect.any(Number));
      expect(byId.odd).toMatchObject({ body, reason: 'gave up on odd' });
      expect(byId['by-sqs']).toMatchObject({ reason: undefined, at: undefined, attributes: {} });
      expect(Object.keys(byId.first!.attributes)).not.toContain('queueport.reason');

      // Still there: visible again for a second listing, and counted.
      const again = await admin.listDeadLetters!(url, { limit: 10 });
      expect(again.map((r) => r.messageId).sort()).toEqual(listed.map((r) => r.messageId).sort());
      expect((await admin.stats(url)).deadLetters).toBe(3);
      expect(await admin.listDeadLetters!(url, { limit: 1 })).toHaveLength(1);
    });

    it('refuses to list or redrive where the queue has no dead-letter queue', async () => {
      const url = await create({ name: freshName('list-bare'), settings: { deadLetterQueue: false } });
      await expect(admin.listDeadLetters!(url, { limit: 10 })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
      await expect(admin.redriveDeadLetters!(url, { limit: 10 })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    });

    it('redrives exactly `limit` when that is fewer than all, and the rest (moved one by one on moto) after', async () => {
      const url = await create({ name: freshName('redrive') });
      const driver = await openDriver(url);
      await driver.publish([
        outgoing('r1', { attributes: { tenant: 'acme' } }),
        outgoing('r2'),
        outgoing('r3'),
      ]);
      await deadLetter(driver, 3);
      expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 3 });

      expect(await admin.redriveDeadLetters!(url, { limit: 2 })).toBe(2);
      expect(await admin.stats(url)).toMatchObject({ depth: 2, deadLetters: 1 });

      // `limit` covers them all: a message-move task, which moto does not have, so the move loop.
      expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(1);
      expect(await admin.stats(url)).toMatchObject({ depth: 3, deadLetters: 0 });
      expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(0);

      const back = await driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 1 });
      expect(back.map((m) => JSON.parse(m.body).event_id).sort()).toEqual(['r1', 'r2', 'r3']);
      // The reason stays behind; the application's attributes come back.
      expect(back.find((m) => JSON.parse(m.body).event_id === 'r1')!.attributes).toEqual({ tenant: 'acme' });
      for (const m of back) expect(m.attributes).not.toHaveProperty('queueport.reason');
    });

    it('redrives FIFO dead letters with a new deduplication id, so they are not absorbed', async () => {
      const url = await create({ name: freshName('redrive-fifo'), settings: { fifo: true } });
      const driver = await openDriver(url);
      await driver.publish([outgoing('f1', { groupId: 'g' })]);
      await deadLetter(driver, 1);
      expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(1);
      const [back] = await driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 1 });
      expect(back).toMatchObject({ groupId: 'g' });
      expect(JSON.parse(back!.body).event_id).toBe('f1');
    });

    // Regression test. The bug was:
    // the move drops the driver's `queueport.fifo` attribute, which is what says "published without
    // a group" (`<t>:d`). Redriven, the message comes back with groupId 'default' (the default
    // group's id) instead of none, as the README promises ("it comes back without a group id, as
    // published").
    it('a FIFO message published without a group still has none after a dead-letter move and redrive', async () => {
      const url = await create({ name: freshName('redrive-nogroup'), settings: { fifo: true } });
      const driver = await openDriver(url);
      await driver.publish([outgoing('ungrouped')]);
      await deadLetter(driver, 1);
      expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(1);
      const [back] = await driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 1 });
      expect(JSON.parse(back!.body).event_id).toBe('ungrouped');
      expect(back).not.toHaveProperty('groupId');
    });
  });

  describe('purge and the URLs an admin takes', () => {
    it('purges the queue and leaves its dead letters', async () => {
      const url = await create({ name: freshName('purge') });
      const driver = await openDriver(url);
      await driver.publish([outgoing('p1'), outgoing('p2'), outgoing('p3')]);
      await deadLetter(driver, 1);
      await admin.purge!(url);
      expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 1 });
      expect(await driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 })).toEqual([]);
    });

    it('refuses a queue URL of another region or endpoint, or one that names no queue', async () => {
      const name = freshName('where');
      await create({ name });
      for (const url of [
        `sqs://eu-west-1/${name}?endpoint=${encodeURIComponent(endpoint)}`,
        `sqs://${REGION}/${name}?endpoint=${encodeURIComponent('http://127.0.0.1:1')}`,
        `sqs://${REGION}/${name}`,
        sqsProviderUrl(),
      ]) {
        await expect(admin.stats(url), url).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
          details: { field: 'url' },
        });
      }
      await expect(
        admin.purge!(`sqs://eu-west-1/${name}?endpoint=${encodeURIComponent(endpoint)}`),
      ).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
      // The AWS queue-URL form of the same queue is the same queue.
      const accountForm = `sqs://${REGION}/123456789012/${name}?endpoint=${encodeURIComponent(endpoint)}`;
      expect(await admin.stats(accountForm)).toMatchObject({ depth: 0 });
    });

    it('reads a missing queue as NOT_FOUND', async () => {
      const url = `sqs://${REGION}/${freshName('gone')}?endpoint=${encodeURIComponent(endpoint)}`;
      await expect(admin.stats(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(admin.deleteQueue(url)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    // Regression test. The bug was:
    // `new URL(queue)` throws a bare TypeError for a string that is not a URL; guardedAdmin's
    // normalizeError then calls it INTERNAL ("sqs admin: Invalid URL"), the code for queueport's
    // own bugs.
    it('refuses a queue argument that is not a URL as INVALID_ARGUMENT', async () => {
      await expect(admin.stats('orders')).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'url' },
      });
    });
  });
}
