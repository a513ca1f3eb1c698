import { SQSClient } from '@aws-sdk/client-sqs';
import {
  AdapterRegistry,
  canonicalJson,
  encodeEnvelope,
  openQueue,
  prepareEnvelope,
  Queue,
  type QueueError,
} from '@queueport/core';
import type { OutgoingMessage } from '@queueport/core/driver';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsDriver, sqsAdapter } from '../src';
import {
  type HostileHandler,
  type HostileSqsServer,
  sqsMessage,
  startHostileSqsServer,
} from './support/hostile-sqs-server';

/*
 * The driver against a server that answers what moto never would: ids that only look like an
 * entry's, fields of the wrong type, more messages than asked for, answers that never end.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

const credentials = { accessKeyId: 'AKIAHOSTILEEXAMPLE', secretAccessKey: 'hostile-secret-key' };

async function serve(handle: HostileHandler): Promise<HostileSqsServer> {
  const server = await startHostileSqsServer(handle);
  closers.push(() => server.close());
  return server;
}

async function driverOn(server: HostileSqsServer, timeoutMs?: number): Promise<SqsDriver> {
  const client = new SQSClient({
    region: 'us-east-1',
    endpoint: server.endpoint,
    credentials,
    maxAttempts: 1,
  });
  closers.push(async () => client.destroy());
  const driver = await SqsDriver.open({
    client,
    queue: server.queueUrl,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  closers.push(() => driver.close());
  return driver;
}

function outgoing(id: string): OutgoingMessage {
  const body = canonicalJson({ event_id: id, payload: { id } });
  return { eventId: id, dedupeKey: id, body, attributes: {}, delaySeconds: 0 };
}

const errorOf = (outcome: { ok: boolean; error?: QueueError }) =>
  outcome.ok ? 'ok' : { code: outcome.error!.code, retryable: outcome.error!.retryable };
const unconfirmed = { code: 'UNAVAILABLE', retryable: true };

async function settlesWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ value?: T; error?: unknown; ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return { value: await Promise.race([promise, late]), ms: Date.now() - started };
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('still pending')) throw error;
    return { error, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

describe('batch results are matched to entries by exact id', () => {
  const LOOKALIKES = ['', ' 0', '00', '0.0', '-0', '0x0', '0 ', '+0', '0e0'];

  it.each(LOOKALIKES)('a publish confirmed with Id %j confirms no entry', async (id) => {
    const server = await serve(() => undefined);
    const driver = await driverOn(server);
    server.handle = (request) => {
      if (request.operation !== 'SendMessageBatch') return undefined;
      const entries = request.input.Entries as Array<{ MessageBody: string }>;
      return {
        kind: 'json',
        body: {
          Successful: [
            { Id: id, MessageId: 'm-0', MD5OfMessageBody: md5Of(entries[0]!.MessageBody) },
            { Id: '1', MessageId: 'm-1', MD5OfMessageBody: md5Of(entries[1]!.MessageBody) },
          ],
        },
      };
    };
    const outcomes = await driver.publish([outgoing('a'), outgoing('b')]);
    expect(outcomes.map(errorOf)).toEqual([unconfirmed, 'ok']);
  });

  it.each(LOOKALIKES)(
    'an ack, a release and an extension confirmed with Id %j settle nothing',
    async (id) => {
      const server = await serve((request) =>
        ['DeleteMessageBatch', 'ChangeMessageVisibilityBatch'].includes(request.operation)
          ? { kind: 'json', body: { Successful: [{ Id: id }, { Id: '1' }] } }
          : undefined,
      );
      const driver = await driverOn(server);
      expect((await driver.ack(['r0', 'r1'])).map(errorOf)).toEqual([unconfirmed, 'ok']);
      const release = await driver.release([
        { receipt: 'r0', delaySeconds: 0 },
        { receipt: 'r1', delaySeconds: 0 },
      ]);
      expect(release.map(errorOf)).toEqual([unconfirmed, 'ok']);
      const extend = await driver.extendLease!([
        { receipt: 'r0', leaseSeconds: 30 },
        { receipt: 'r1', leaseSeconds: 30 },
      ]);
      expect(extend.map(errorOf)).toEqual([unconfirmed, 'ok']);
    },
  );

  it('an entry confirmed twice, or both confirmed and refused, is a retryable failure', async () => {
    const server = await serve((request) =>
      request.operation === 'DeleteMessageBatch'
        ? {
            kind: 'json',
            body: {
              Successful: [{ Id: '0' }, { Id: '0' }, { Id: '1' }, { Id: '2' }],
              Failed: [{ Id: '1', Code: 'ReceiptHandleIsInvalid', SenderFault: true, Message: 'no' }],
            },
          }
        : undefined,
    );
    const driver = await driverOn(server);
    expect((await driver.ack(['r0', 'r1', 'r2'])).map(errorOf)).toEqual([unconfirmed, unconfirmed, 'ok']);
  });

  it('answers that are not lists, or entries that are not objects, confirm nothing', async () => {
    const server = await serve((request) =>
      request.operation === 'DeleteMessageBatch'
        ? { kind: 'json', body: { Successful: { Id: '0' }, Failed: 'x' } }
        : request.operation === 'ChangeMessageVisibilityBatch'
          ? { kind: 'json', body: { Successful: [null, 7, { Id: 0 }, { Id: '1' }] } }
          : undefined,
    );
    const driver = await driverOn(server);
    expect((await driver.ack(['r0'])).map(errorOf)).toEqual([unconfirmed]);
    const release = await driver.release([
      { receipt: 'r0', delaySeconds: 0 },
      { receipt: 'r1', delaySeconds: 0 },
    ]);
    expect(release.map(errorOf)).toEqual([unconfirmed, 'ok']);
  });

  it('a publish confirmed without a usable MessageId is not a success', async () => {
    const server = await serve((request) => {
      if (request.operation !== 'SendMessageBatch') return undefined;
      const entries = request.input.Entries as Array<{ MessageBody: string }>;
      const ids = [undefined, '', 7, 'good'];
      return {
        kind: 'json',
        body: {
          Successful: entries.map((entry, i) => ({
            Id: String(i),
            MessageId: ids[i],
            MD5OfMessageBody: md5Of(entry.MessageBody),
          })),
        },
      };
    });
    const driver = await driverOn(server);
    const outcomes = await driver.publish(['a', 'b', 'c', 'd'].map(outgoing));
    expect(outcomes.map(errorOf)).toEqual([unconfirmed, unconfirmed, unconfirmed, 'ok']);
    expect(outcomes[3]).toEqual({ ok: true, messageId: 'good' });
  });
});

describe('received messages are checked field by field', () => {
  const body = canonicalJson({ event_id: 'e', payload: {} });
  const good = (i: number) => sqsMessage({ id: `m-${i}`, receipt: `r-${i}`, body });

  const envelope = encodeEnvelope(prepareEnvelope({ event_id: 'e-good', type: 't', payload: {} }));
  const real = (i: number) => sqsMessage({ id: `m-${i}`, receipt: `r-${i}`, body: envelope });

  /** The Queue over the driver: what it delivers, and what it reported as invalid. */
  async function throughQueue(hostile: unknown) {
    const server = await serve((request) =>
      request.operation === 'ReceiveMessage'
        ? { kind: 'json', body: { Messages: [hostile, real(0)] } }
        : undefined,
    );
    const queue = new Queue(await driverOn(server));
    const invalid: string[] = [];
    queue.on('invalid-message', ({ error }) => invalid.push(error.message));
    const deliveries = await queue.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 });
    return { delivered: deliveries.map((d) => [d.messageId, d.receiveCount]), invalid };
  }

  // Faults the Queue can see in the message it is handed: it reports them as invalid messages.
  it.each([
    [
      'a receive count of "abc"',
      { ...real(1), Attributes: { ApproximateReceiveCount: 'abc' } },
      'receiveCount',
    ],
    ['a receive count of "0"', { ...real(1), Attributes: { ApproximateReceiveCount: '0' } }, 'receiveCount'],
    [
      'a receive count of "1e3"',
      { ...real(1), Attributes: { ApproximateReceiveCount: '1e3' } },
      'receiveCount',
    ],
    [
      'a receive count past 2^53',
      { ...real(1), Attributes: { ApproximateReceiveCount: '99999999999999999999' } },
      'receiveCount',
    ],
    [
      'a receive count that is a number',
      { ...real(1), Attributes: { ApproximateReceiveCount: 2 } },
      'receiveCount',
    ],
    ['no receive count', { ...real(1), Attributes: {} }, 'receiveCount'],
    ['no ReceiptHandle', { ...real(1), ReceiptHandle: undefined }, 'receipt'],
    ['an empty ReceiptHandle', { ...real(1), ReceiptHandle: '' }, 'receipt'],
    ['a numeric ReceiptHandle', { ...real(1), ReceiptHandle: 7 }, 'receipt'],
    ['a numeric MessageId', { ...real(1), MessageId: 5 }, 'messageId'],
    ['an empty MessageId', { ...real(1), MessageId: '' }, 'messageId'],
    ['an attribute that is a number', { ...real(1), MessageAttributes: { x: 5 } }, 'attribute'],
    [
      'an attribute whose text is a number',
      { ...real(1), MessageAttributes: { x: { DataType: 'String', StringValue: 5 } } },
      'attribute',
    ],
    [
      'a numeric MessageGroupId',
      { ...real(1), Attributes: { ApproximateReceiveCount: '1', MessageGroupId: 5 } },
      'groupId',
    ],
  ])(
    'never hands out a message with %s, and the Queue reports it as invalid',
    async (_what, hostile, field) => {
      const { delivered, invalid } = await throughQueue(hostile);
      expect(delivered).toEqual([['m-0', 1]]);
      expect(invalid).toHaveLength(1);
      expect(invalid[0]).toContain(field);
    },
  );

  // Faults only SQS's rules see: the message is left to its visibility timeout (and redrive).
  it.each([
    ['a ReceiptHandle with a space', { ...real(1), ReceiptHandle: 'has space' }],
    [
      'an attribute of no SQS data type',
      { ...real(1), MessageAttributes: { x: { DataType: 'Weird', StringValue: 'v' } } },
    ],
    [
      'an attribute name SQS reserves',
      { ...real(1), MessageAttributes: { 'aws.x': { DataType: 'String', StringValue: 'v' } } },
    ],
    [
      'an attribute named __proto__',
      { ...real(1), MessageAttributes: JSON.parse('{"__proto__":{"DataType":"String","StringValue":"v"}}') },
    ],
    ['attributes that are a list', { ...real(1), MessageAttributes: [] }],
    ['system attributes that are a list', { ...real(1), Attributes: [] }],
    [
      'a first-receive time that is no time',
      { ...real(1), Attributes: { ApproximateReceiveCount: '1', ApproximateFirstReceiveTimestamp: 'soon' } },
    ],
  ])('never hands out a message with %s', async (_what, hostile) => {
    const { delivered, invalid } = await throughQueue(hostile);
    expect(delivered).toEqual([['m-0', 1]]);
    expect(invalid).toEqual([]);
  });

  it('keeps a message an answer repeats once (same receipt or same message id)', async () => {
    const server = await serve((request) =>
      request.operation === 'ReceiveMessage'
        ? { kind: 'json', body: { Messages: [good(0), good(0), { ...good(1), MessageId: 'm-0' }, good(2)] } }
        : undefined,
    );
    const driver = await driverOn(server);
    const received = await driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 });
    expect(received.map((m) => m.receipt)).toEqual(['r-0', 'r-2']);
  });

  it.each([
    ['a message list that is not a list', { Messages: { a: 1 } }],
    ['a message that is not an object', { Messages: [null] }],
    ['a message that is text', { Messages: ['text'] }],
    [
      'a body that is a number',
      { Messages: [{ MessageId: 'm', ReceiptHandle: 'r', Body: 5, MD5OfBody: 'x' }] },
    ],
  ])('refuses, typed, an answer with %s', async (_what, answer) => {
    const server = await serve((request) =>
      request.operation === 'ReceiveMessage' ? { kind: 'json', body: answer } : undefined,
    );
    const driver = await driverOn(server);
    const error = await driver
      .receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 })
      .then((messages) => ({ handedOut: messages }))
      .catch((e: QueueError) => e);
    // The SDK's own digest check reads the messages first, and fails on some of these itself.
    expect(error).toMatchObject({ name: 'QueueError' });
    expect(['UNAVAILABLE', 'INTERNAL']).toContain((error as QueueError).code);
  });
});

describe('what a receive takes is bounded', () => {
  const body = canonicalJson({ event_id: 'e', payload: {} });

  it.each([11, 500])(
    'takes at most maxMessages of %i messages, and gives the next ones back at once',
    async (count) => {
      const messages = Array.from({ length: count }, (_, i) =>
        sqsMessage({ id: `m-${i}`, receipt: `r-${i}`, body }),
      );
      const server = await serve((request) =>
        request.operation === 'ReceiveMessage'
          ? { kind: 'json', body: { Messages: messages } }
          : request.operation === 'ChangeMessageVisibilityBatch'
            ? {
                kind: 'json',
                body: {
                  Successful: (request.input.Entries as unknown[]).map((_, i) => ({ Id: String(i) })),
                },
              }
            : undefined,
      );
      const driver = await driverOn(server);
      const received = await driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 });
      expect(received.map((m) => m.receipt)).toEqual(messages.slice(0, 10).map((m) => m.ReceiptHandle));
      const givenBack = server.requests.filter((r) => r.operation === 'ChangeMessageVisibilityBatch');
      expect(givenBack).toHaveLength(1);
      expect(givenBack[0]!.input.Entries).toEqual(
        messages
          .slice(10, 20)
          .map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 })),
      );
    },
  );

  it('cuts a 64 MiB receive answer off past a bound, with a typed error, without reading it all', async () => {
    const size = 64 * 1024 * 1024;
    const server = await serve((request) =>
      request.operation === 'ReceiveMessage' ? { kind: 'huge', bytes: size } : undefined,
    );
    const driver = await driverOn(server);
    const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const { error } = await settlesWithin(
      driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 0 }),
      20_000,
    );
    const grown = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore;
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    const cap = (error as QueueError).details.maxAnswerBytes as number;
    expect(cap).toBeLessThan(size / 2);
    // What the server managed to write before the client stopped reading: the cap and socket buffers.
    expect(server.bytesSent()).toBeLessThan(size / 2);
    expect(grown).toBeLessThan(size / 2);
  });

  it('refuses an answer whose Content-Length is past the bound before reading its body', async () => {
    const server = await serve((request) =>
      request.operation === 'DeleteMessageBatch'
        ? { kind: 'raw', body: '{}', headers: { 'content-length': String(64 * 1024 * 1024) } }
        : undefined,
    );
    const driver = await driverOn(server, 2_000);
    const { error, ms } = await settlesWithin(driver.ack(['r0']), 8_000);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { maxAnswerBytes: 1024 * 1024 } });
    // Refused at the headers, not after waiting for 64 MiB that never come.
    expect(ms).toBeLessThan(2_000);
  });
});

describe('every call has a deadline', () => {
  const hung: HostileHandler = (request) =>
    request.operation === 'GetQueueUrl' || request.operation === 'GetQueueAttributes'
      ? undefined
      : { kind: 'hang' };
  const dripping: HostileHandler = (request) =>
    request.operation === 'GetQueueUrl' || request.operation === 'GetQueueAttributes'
      ? undefined
      : { kind: 'drip', intervalMs: 250 };

  it.each([
    ['never answers', hung],
    ['drips a byte every 250 ms', dripping],
  ])('publish, ack, release and receive reject with UNAVAILABLE when the server %s', async (_how, handle) => {
    const server = await serve(handle);
    const driver = await driverOn(server, 400);
    const calls: Array<[string, Promise<unknown>]> = [
      ['publish', driver.publish([outgoing('a')])],
      ['ack', driver.ack(['r0'])],
      ['release', driver.release([{ receipt: 'r0', delaySeconds: 0 }])],
      ['receive', driver.receive({ maxMessages: 10, leaseSeconds: 30, waitSeconds: 1 })],
    ];
    for (const [name, call] of calls) {
      const { error, ms } = await settlesWithin(call, 8_000);
      expect(error, name).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      expect((error as QueueError).message, name).toContain('no answer within');
      expect(ms, name).toBeLessThan(6_000);
    }
    expect(driver.callTimeoutMs).toBe(400);
  });

  it('close() does not wait for a hung call, which rejects with CLOSED at once', async () => {
    const server = await serve(hung);
    const driver = await driverOn(server, 60_000);
    const publish = driver.publish([outgoing('a')]);
    const receive = driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 20 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = await settlesWithin(driver.close(), 2_000);
    expect(closed.error).toBeUndefined();
    expect((await settlesWithin(publish, 2_000)).error).toMatchObject({ code: 'CLOSED' });
    expect((await settlesWithin(receive, 2_000)).value).toEqual([]);
  });

  it('openQueue with ?timeoutMs= gives up on an endpoint that never answers', async () => {
    const server = await serve(() => ({ kind: 'hang' }));
    const url = `sqs://us-east-1/hostile?endpoint=${encodeURIComponent(server.endpoint)}&timeoutMs=300`;
    const { error, ms } = await settlesWithin(
      openQueue(url, { adapters: [sqsAdapter], env: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } }),
      8_000,
    );
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { timeoutMs: 300 } });
    expect(ms).toBeLessThan(6_000);
  });
});

describe('failures say what happened', () => {
  it('a refused connection is UNAVAILABLE naming ECONNREFUSED, not an answer that is not SQS', async () => {
    const url = `sqs://us-east-1/orders?endpoint=${encodeURIComponent('http://127.0.0.1:1')}&timeoutMs=5000`;
    const { error } = await settlesWithin(
      openQueue(url, { adapters: [sqsAdapter], env: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } }),
      8_000,
    );
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect((error as QueueError).message).toContain('ECONNREFUSED');
    expect((error as QueueError).message).not.toContain('not SQS');
  });

  it('a reset connection is UNAVAILABLE naming the cause', async () => {
    const server = await serve((request) =>
      request.operation === 'DeleteMessageBatch' ? { kind: 'reset' } : undefined,
    );
    const driver = await driverOn(server);
    const error = await driver.ack(['r0']).catch((e: QueueError) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect((error as QueueError).message).toMatch(/ECONNRESET|socket hang up|EPIPE/);
  });
});

describe('a server never gets the configured keys into an error', () => {
  const env = {
    AWS_ACCESS_KEY_ID: 'AKIAZZHOSTILE0001',
    AWS_SECRET_ACCESS_KEY: 'zq9HostileSecretValue0001',
    AWS_SESSION_TOKEN: 'FwoGHostileSessionToken0001',
  };
  const echo = `what you sent: ${env.AWS_ACCESS_KEY_ID} ${env.AWS_SECRET_ACCESS_KEY} ${env.AWS_SESSION_TOKEN} ${'x'.repeat(10_000)}`;

  async function openOn(server: HostileSqsServer) {
    const url = `sqs://us-east-1/hostile?endpoint=${encodeURIComponent(server.endpoint)}`;
    const queue = await openQueue(url, { adapters: [sqsAdapter], env, retry: { maxAttempts: 1 } });
    closers.push(() => queue.close());
    return queue;
  }

  const expectClean = (error: unknown) => {
    const text = `${String(error)} ${JSON.stringify(error)} ${JSON.stringify((error as Error).cause ?? null)}`;
    for (const secret of Object.values(env)) expect(text).not.toContain(secret);
    expect((error as QueueError).message.length).toBeLessThan(500);
  };

  it('masks them, and cuts the message short, in an unknown error code of a whole call', async () => {
    const server = await serve((request) =>
      request.operation === 'SendMessageBatch'
        ? {
            kind: 'json',
            status: 400,
            body: { __type: 'com.amazonaws.sqs#HostileThing', message: echo },
            headers: { 'x-amzn-query-error': 'HostileThing;Sender' },
          }
        : undefined,
    );
    const queue = await openOn(server);
    const error = await queue
      .publish({ envelope: { event_id: 'e1', type: 't', payload: {} } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expect((error as QueueError).message).toContain('HostileThing');
    expectClean(error);
  });

  it('masks them in an unknown code of a batch entry, and in a code that is not one', async () => {
    const server = await serve((request) =>
      request.operation === 'SendMessageBatch'
        ? {
            kind: 'json',
            body: {
              Failed: [
                { Id: '0', Code: `Bad ${env.AWS_SECRET_ACCESS_KEY}`, SenderFault: true, Message: echo },
              ],
            },
          }
        : undefined,
    );
    const queue = await openOn(server);
    const error = await queue
      .publish({ envelope: { event_id: 'e2', type: 't', payload: {} } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INTERNAL' });
    expectClean(error);
  });
});

describe('the admin trusts no more of an answer than the driver', () => {
  it('deletes from the dead letters only what the send confirmed by exact id', async () => {
    const body = canonicalJson({ event_id: 'e', payload: {} });
    let received = false;
    const server = await serve((request) => {
      switch (request.operation) {
        case 'GetQueueAttributes':
          return {
            kind: 'json',
            body: {
              Attributes: {
                QueueArn: 'arn:aws:sqs:us-east-1:000000000000:hostile',
                RedrivePolicy: JSON.stringify({
                  deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:hostile-dlq',
                  maxReceiveCount: 5,
                }),
              },
            },
          };
        case 'StartMessageMoveTask':
          return {
            kind: 'json',
            status: 400,
            body: { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: 'no' },
          };
        case 'ReceiveMessage': {
          if (received) return { kind: 'json', body: {} };
          received = true;
          const messages = [0, 1].map((i) => sqsMessage({ id: `m-${i}`, receipt: `r-${i}`, body }));
          return { kind: 'json', body: { Messages: messages } };
        }
        case 'SendMessageBatch':
          return {
            kind: 'json',
            body: {
              Successful: ['00', '1'].map((Id) => ({
                Id,
                MessageId: `x${Id}`,
                MD5OfMessageBody: md5Of(body),
              })),
            },
          };
        case 'DeleteMessageBatch':
        case 'ChangeMessageVisibilityBatch': {
          const entries = request.input.Entries as unknown[];
          return { kind: 'json', body: { Successful: entries.map((_, i) => ({ Id: String(i) })) } };
        }
        default:
          return undefined;
      }
    });
    const registry = new AdapterRegistry([sqsAdapter]);
    const provider = `sqs://us-east-1?endpoint=${encodeURIComponent(server.endpoint)}`;
    const admin = await registry.openAdmin(provider, {
      env: { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' },
    });
    closers.push(() => admin.close());
    const url = `sqs://us-east-1/hostile?endpoint=${encodeURIComponent(server.endpoint)}`;
    expect(await admin.redriveDeadLetters!(url, { limit: 10 })).toBe(1);
    const deleted = server.requests.filter((r) => r.operation === 'DeleteMessageBatch');
    expect(
      deleted.flatMap((r) =>
        (r.input.Entries as Array<{ ReceiptHandle: string }>).map((e) => e.ReceiptHandle),
      ),
    ).toEqual(['r-1']);
    const handedBack = server.requests.filter((r) => r.operation === 'ChangeMessageVisibilityBatch');
    expect(
      handedBack.flatMap((r) =>
        (r.input.Entries as Array<{ ReceiptHandle: string }>).map((e) => e.ReceiptHandle),
      ),
    ).toEqual(['r-0']);
  });
});

function md5Of(text: string): string {
  return sqsMessage({ id: 'x', receipt: 'x', body: text }).MD5OfBody;
}
