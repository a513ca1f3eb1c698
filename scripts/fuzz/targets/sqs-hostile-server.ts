/**
 * The SQS driver against a loopback server that answers each call with something random or
 * hostile: ids that only look like an entry's, fields of the wrong type, more messages than
 * asked for, answers past any size SQS sends, error codes and messages that echo the keys, slow
 * answers, drips, hangs and resets. Every call ends within its deadline in a success the answer
 * supports or a typed QueueError, and no error carries a configured credential.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { type Delivery, encodeEnvelope, prepareEnvelope, Queue } from '@queueport/core';
import type { DriverMessage, OutgoingMessage } from '@queueport/core/driver';
import { SqsDriver } from '@queueport/sqs';
import fc from 'fast-check';
import {
  type HostileReply,
  type HostileRequest,
  type HostileSqsServer,
  md5,
  startHostileSqsServer,
} from '../../../packages/sqs/test/support/hostile-sqs-server';
import { afterTarget, check, isTypedError, labelled, recordOutcome } from '../context';
import type { FuzzTarget } from './fuzz-target';

const MIN_CASES = 1000;
/** Short, so a case that waits out a hang or a drip stays short. */
const TIMEOUT_MS = 300;
const CREDENTIALS = {
  accessKeyId: 'AKIAFUZZHOSTILE7Q2X',
  secretAccessKey: 'fuzzSecretKey/9f8e7d6c5b4a3928170',
  sessionToken: 'FwoFuzzSessionToken0a1b2c3d4e5f',
};
const SECRETS = Object.values(CREDENTIALS);
const ENVELOPE = encodeEnvelope(prepareEnvelope({ event_id: 'fuzz-e', type: 'fuzz.t', payload: {} }));

// ----------------------------------------------------------------------------------------------
// What the server answers

const echo = fc.constantFrom(...SECRETS, `AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/x`);
const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  echo,
  echo.map((secret) => `${'x'.repeat(300)} ${secret} ${'y'.repeat(300)}`),
  fc.constant(''),
);
const oddScalar = fc.oneof(oddText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
/** Mostly right: the SDK refuses a whole answer for one wrong digest, before the driver sees it. */
const digestArb = fc.oneof(
  { weight: 30, arbitrary: fc.constant('right') },
  { weight: 1, arbitrary: fc.constant('wrong') },
);
const entryIdArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('0', '1', '2', '3', '4') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' 0',
      '00',
      '0.0',
      '-0',
      '0x0',
      '+1',
      '1 ',
      '1e0',
      'constructor',
      '__proto__',
    ),
  },
  { weight: 1, arbitrary: oddScalar },
);

/** `md5: 'right'` asks the server for the digest the SDK checks; anything else stays wrong. */
const successArb = fc.record(
  {
    Id: entryIdArb,
    MessageId: fc.oneof({ weight: 4, arbitrary: fc.uuid() }, { weight: 1, arbitrary: oddScalar }),
    md5: digestArb,
  },
  { requiredKeys: ['Id'] },
);
const failureArb = fc.record(
  {
    Id: entryIdArb,
    Code: fc.oneof(
      fc.constantFrom(
        'ReceiptHandleIsInvalid',
        'InternalError',
        'ThrottlingException',
        'InvalidParameterValue',
      ),
      oddText,
    ),
    SenderFault: fc.oneof(fc.boolean(), oddScalar),
    Message: oddText,
  },
  { requiredKeys: [] },
);
const batchBodyArb = fc.record(
  {
    Successful: fc.oneof(
      { weight: 5, arbitrary: fc.array(successArb, { maxLength: 8 }) },
      { weight: 1, arbitrary: oddScalar },
    ),
    Failed: fc.oneof(
      { weight: 5, arbitrary: fc.array(failureArb, { maxLength: 4 }) },
      { weight: 1, arbitrary: oddScalar },
    ),
  },
  { requiredKeys: [] },
);

const countArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('1', '2', '17') },
  { weight: 2, arbitrary: fc.constantFrom('abc', '0', '-1', '1e3', '1.5', ' 1', '99999999999999999999', '') },
  { weight: 1, arbitrary: oddScalar },
);
const attributeArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ DataType: fc.constant('String'), StringValue: fc.string({ maxLength: 20 }) }),
  },
  { weight: 1, arbitrary: fc.record({ DataType: oddScalar, StringValue: oddScalar }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: oddScalar },
);
const attributesArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.dictionary(
      fc.oneof(
        fc.constantFrom('tenant', 'aws.x', 'a..b', '__proto__', 'constructor'),
        fc.string({ maxLength: 12 }),
      ),
      attributeArb,
      { maxKeys: 12 },
    ),
  },
  { weight: 1, arbitrary: oddScalar },
);
const messageArb = fc.record(
  {
    MessageId: fc.oneof({ weight: 5, arbitrary: fc.uuid() }, { weight: 1, arbitrary: oddScalar }),
    ReceiptHandle: fc.oneof(
      { weight: 5, arbitrary: fc.stringMatching(/^rh-[A-Za-z0-9]{1,20}$/) },
      { weight: 1, arbitrary: oddScalar },
    ),
    Body: fc.oneof({ weight: 5, arbitrary: fc.constant(ENVELOPE) }, { weight: 1, arbitrary: oddText }),
    md5: digestArb,
    Attributes: fc.oneof(
      { weight: 5, arbitrary: fc.record({ ApproximateReceiveCount: countArb }, { requiredKeys: [] }) },
      { weight: 1, arbitrary: oddScalar },
    ),
    MessageAttributes: attributesArb,
  },
  { requiredKeys: ['ReceiptHandle'] },
);
const receiveBodyArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      Messages: fc.oneof(
        { weight: 8, arbitrary: fc.array(messageArb, { maxLength: 14 }) },
        { weight: 1, arbitrary: fc.array(messageArb, { minLength: 40, maxLength: 60 }) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ Messages: oddScalar }) },
  { weight: 1, arbitrary: fc.constant({}) },
);
const errorBodyArb = fc.record({
  __type: fc.oneof(
    fc.constantFrom('com.amazonaws.sqs#QueueDoesNotExist', 'com.amazonaws.sqs#InternalError', 'HostileThing'),
    oddText,
  ),
  message: oddText,
});

type Transport =
  | { kind: 'answer' }
  | { kind: 'slow'; ms: number }
  | { kind: 'drip' }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'huge'; bytes: number }
  | { kind: 'garbage'; text: string };
const transportArb: fc.Arbitrary<Transport> = fc.oneof(
  { weight: 30, arbitrary: fc.constant({ kind: 'answer' as const }) },
  { weight: 3, arbitrary: fc.integer({ min: 5, max: 150 }).map((ms) => ({ kind: 'slow' as const, ms })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drip' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'hang' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'reset' as const }) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 6 })
      .map((mib) => ({ kind: 'huge' as const, bytes: mib * 1024 * 1024 })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.string({ maxLength: 60 }), fc.constant('<html>502 Bad Gateway</html>'), echo)
      .map((text) => ({ kind: 'garbage' as const, text })),
  },
);
const statusArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant(200) },
  { weight: 3, arbitrary: fc.constantFrom(400, 403, 404, 429, 500, 503, 302, 204, 418) },
);

type Operation = 'publish' | 'receive' | 'queue-receive' | 'ack' | 'release' | 'extend' | 'open';
interface Case {
  operation: Operation;
  entries: number;
  maxMessages: number;
  status: number;
  transport: Transport;
  batch: Record<string, unknown>;
  received: Record<string, unknown>;
  error: Record<string, unknown>;
  attributes: unknown;
  queryError: boolean;
}
const caseArb: fc.Arbitrary<Case> = fc.record({
  operation: fc.constantFrom<Operation>(
    'publish',
    'receive',
    'queue-receive',
    'ack',
    'release',
    'extend',
    'open',
  ),
  entries: fc.integer({ min: 1, max: 5 }),
  maxMessages: fc.integer({ min: 1, max: 10 }),
  status: statusArb,
  transport: transportArb,
  batch: batchBodyArb as fc.Arbitrary<Record<string, unknown>>,
  received: receiveBodyArb as fc.Arbitrary<Record<string, unknown>>,
  error: errorBodyArb,
  attributes: fc.oneof(
    fc.record(
      {
        QueueArn: fc.oneof(fc.constant('arn:aws:sqs:us-east-1:000000000000:hostile'), oddScalar),
        MaximumMessageSize: fc.oneof(fc.constantFrom('262144', '1024', '1048576'), oddScalar),
        MessageRetentionPeriod: fc.oneof(fc.constant('345600'), oddScalar),
        FifoQueue: fc.oneof(fc.constant('false'), oddScalar),
        RedrivePolicy: fc.oneof(oddText, fc.constant('{"deadLetterTargetArn":"x","maxReceiveCount":"abc"}')),
      },
      { requiredKeys: [] },
    ),
    oddScalar,
  ),
  queryError: fc.boolean(),
});

// ----------------------------------------------------------------------------------------------
// The server's side of one case

/** The digests the SDK checks, made right where the case asks, from what was really sent. */
function withDigests(body: Record<string, unknown>, request: HostileRequest): Record<string, unknown> {
  const sent = Array.isArray(request.input.Entries)
    ? (request.input.Entries as Array<{ Id?: string; MessageBody?: string }>)
    : [];
  if (Array.isArray(body.Successful)) {
    body = {
      ...body,
      Successful: (body.Successful as Array<Record<string, unknown>>).map(({ md5: want, ...entry }) => {
        const match = sent.find((e) => e.Id === entry.Id);
        return {
          ...entry,
          MD5OfMessageBody: want !== 'wrong' && match ? md5(match.MessageBody ?? '') : 'bad',
        };
      }),
    };
  }
  if (Array.isArray(body.Messages)) {
    body = {
      ...body,
      Messages: (body.Messages as Array<Record<string, unknown>>).map(({ md5: want, ...message }) => ({
        ...message,
        MD5OfBody: want === 'wrong' ? 'bad' : md5(typeof message.Body === 'string' ? message.Body : ''),
      })),
    };
  }
  return body;
}

function replyFor(c: Case, request: HostileRequest): HostileReply {
  switch (c.transport.kind) {
    case 'drip':
      return { kind: 'drip', intervalMs: 100 };
    case 'hang':
      return { kind: 'hang' };
    case 'reset':
      return { kind: 'reset' };
    case 'huge':
      return { kind: 'huge', bytes: c.transport.bytes };
    case 'garbage':
      return { kind: 'raw', status: c.status, body: c.transport.text };
    default:
      break;
  }
  if (c.status !== 200) {
    return {
      kind: 'json',
      status: c.status,
      body: c.error,
      ...(c.queryError ? { headers: { 'x-amzn-query-error': `${String(c.error.__type)};Sender` } } : {}),
    };
  }
  const body =
    request.operation === 'ReceiveMessage'
      ? withDigests(c.received, request)
      : request.operation === 'GetQueueAttributes'
        ? { Attributes: c.attributes }
        : withDigests(c.batch, request);
  return { kind: 'json', body };
}

// ----------------------------------------------------------------------------------------------
// The oracle

function assertNoCredential(value: unknown): void {
  const error = value as Error & { cause?: unknown; details?: unknown };
  const text = [
    String(value),
    error?.message,
    safeJson(value),
    safeJson(error?.details),
    safeJson(error?.cause),
    String((error?.cause as Error | undefined)?.message ?? ''),
  ].join('\n');
  for (const secret of SECRETS) check(!text.includes(secret), 'a configured credential reached an error');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Entry `i` may be a success only where a 200 answer confirmed exactly `String(i)`, and only that way. */
function confirmedOnce(c: Case, index: number): boolean {
  if (c.status !== 200 || c.transport.kind === 'garbage') return false;
  const id = String(index);
  const successes = Array.isArray(c.batch.Successful)
    ? (c.batch.Successful as Array<{ Id?: unknown }>).filter((e) => e?.Id === id).length
    : 0;
  const failures = Array.isArray(c.batch.Failed)
    ? (c.batch.Failed as Array<{ Id?: unknown }>).filter((e) => e?.Id === id).length
    : 0;
  return successes === 1 && failures === 0;
}

function checkSettled(c: Case, outcomes: unknown, count: number): void {
  check(Array.isArray(outcomes) && outcomes.length === count, 'not one outcome per entry');
  (outcomes as Array<{ ok: boolean; error?: unknown }>).forEach((outcome, i) => {
    if (outcome.ok)
      check(confirmedOnce(c, i), `entry ${i} succeeded though the answer did not confirm it once`);
    else {
      check(isTypedError(outcome.error), `entry ${i} failed untyped`);
      assertNoCredential(outcome.error);
    }
  });
}

/** A message the Queue refuses by its own checks: how the driver hands over one it cannot read. */
function refusedByQueue(m: DriverMessage): boolean {
  const text = (v: unknown) => typeof v === 'string' && v !== '';
  return (
    !text(m.receipt) ||
    !text(m.messageId) ||
    typeof m.body !== 'string' ||
    !(Number.isSafeInteger(m.receiveCount) && m.receiveCount >= 1) ||
    (m.groupId !== undefined && !text(m.groupId)) ||
    Object.values(m.attributes ?? {}).some((value) => typeof value !== 'string')
  );
}

function checkReceived(c: Case, messages: DriverMessage[]): void {
  check(Array.isArray(messages), 'receive answered no list');
  check(messages.length <= c.maxMessages, `handed out ${messages.length} of ${c.maxMessages} asked for`);
  const sent = Array.isArray(c.received.Messages)
    ? (c.received.Messages as Array<Record<string, unknown>>)
    : [];
  const receipts = new Set<string>();
  for (const m of messages) {
    if (refusedByQueue(m)) continue;
    check(!receipts.has(m.receipt), 'a receipt handed out twice');
    receipts.add(m.receipt);
    check(
      sent.some((s) => s.ReceiptHandle === m.receipt),
      'a receipt the server never sent',
    );
    check(Object.getPrototypeOf(m.attributes) === Object.prototype, 'attributes that are not a plain object');
    for (const name of Object.keys(m.attributes)) {
      check(!/^(aws|amazon)\./i.test(name), `reserved attribute ${name} handed out`);
    }
  }
}

/** What the Queue over the driver delivers: only messages whose every field held. */
function checkDelivered(c: Case, deliveries: readonly Delivery[]): void {
  check(deliveries.length <= c.maxMessages, `delivered ${deliveries.length} of ${c.maxMessages} asked for`);
  for (const d of deliveries) {
    check(typeof d.messageId === 'string' && d.messageId !== '', 'a delivery without a message id');
    check(Number.isSafeInteger(d.receiveCount) && d.receiveCount >= 1, 'a delivery with no receive count');
    for (const [name, value] of Object.entries(d.attributes)) {
      check(typeof value === 'string', `attribute ${name} is not text`);
    }
  }
}

// ----------------------------------------------------------------------------------------------
// The target

function outgoing(id: string): OutgoingMessage {
  return {
    eventId: id,
    dedupeKey: id,
    body: `{"event_id":"${id}","payload":{}}`,
    attributes: {},
    delaySeconds: 0,
  };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

interface Setup {
  server: HostileSqsServer;
  client: SQSClient;
  driver: SqsDriver;
  queue: Queue;
}

const target: FuzzTarget = {
  name: 'sqs-hostile-server/driver-calls',
  minCases: MIN_CASES,
  property: () => {
    let setup: Promise<Setup> | undefined;
    let current: Case | undefined;
    return fc.asyncProperty(caseArb, async (c) => {
      setup ??= (async () => {
        const server = await startHostileSqsServer((request) =>
          current && request.operation !== 'GetQueueUrl' ? replyFor(current, request) : undefined,
        );
        const client = new SQSClient({
          region: 'us-east-1',
          endpoint: server.endpoint,
          credentials: CREDENTIALS,
          maxAttempts: 1,
        });
        const driver = await SqsDriver.open({
          client,
          queue: server.queueUrl,
          timeoutMs: TIMEOUT_MS,
          secrets: SECRETS,
        });
        // The Queue's own receive over the same driver: what an application is handed.
        const queue = new Queue(driver, { retry: { maxAttempts: 1 } });
        afterTarget(async () => {
          await queue.close();
          client.destroy();
          await server.close();
        });
        return { server, client, driver, queue };
      })();
      const { server, client, driver, queue } = await setup;
      current = c;
      server.requests.length = 0;
      const receipts = Array.from({ length: c.entries }, (_, i) => `rh-${i}`);
      // A receive waits no long poll here, so every call has the same bound: the deadline, and a margin.
      const bound = TIMEOUT_MS + 4_000;
      let outcome: unknown;
      try {
        switch (c.operation) {
          case 'publish': {
            outcome = await within(driver.publish(receipts.map(outgoing)), bound, 'publish');
            checkSettled(c, outcome, c.entries);
            break;
          }
          case 'ack':
            outcome = await within(driver.ack(receipts), bound, 'ack');
            checkSettled(c, outcome, c.entries);
            break;
          case 'release':
            outcome = await within(
              driver.release(receipts.map((receipt) => ({ receipt, delaySeconds: 0 }))),
              bound,
              'release',
            );
            checkSettled(c, outcome, c.entries);
            break;
          case 'extend':
            outcome = await within(
              driver.extendLease(receipts.map((receipt) => ({ receipt, leaseSeconds: 30 }))),
              bound,
              'extendLease',
            );
            checkSettled(c, outcome, c.entries);
            break;
          case 'receive': {
            // Extra messages are given back with one more call, bounded the same way.
            const messages = await within(
              driver.receive({ maxMessages: c.maxMessages, leaseSeconds: 30, waitSeconds: 0 }),
              bound * 2,
              'receive',
            );
            checkReceived(c, messages);
            outcome = messages;
            break;
          }
          case 'queue-receive': {
            const deliveries = await within(
              queue.receive({ maxMessages: c.maxMessages, leaseSeconds: 30, waitSeconds: 0 }),
              bound * 3,
              'queue.receive',
            );
            checkDelivered(c, deliveries);
            outcome = deliveries.length;
            break;
          }
          case 'open': {
            const opened = await within(
              SqsDriver.open({ client, queue: server.queueUrl, timeoutMs: TIMEOUT_MS, secrets: SECRETS }),
              bound,
              'open',
            );
            await opened.close();
            outcome = opened.capabilities;
            break;
          }
        }
        const label =
          (c.operation === 'receive' && (outcome as unknown[]).length > 0) ||
          (c.operation === 'queue-receive' && (outcome as number) > 0)
            ? `${c.operation} (messages)`
            : c.operation;
        recordOutcome(labelled(label, outcome));
      } catch (error) {
        if (error instanceof Error && /still pending after/.test(error.message)) throw error;
        if (error instanceof Error && error.name === 'PropertyViolation') throw error;
        check(isTypedError(error), `${c.operation} threw untyped: ${String(error).slice(0, 200)}`);
        assertNoCredential(error);
        recordOutcome(labelled(c.operation, error));
      } finally {
        current = undefined;
      }
    });
  },
};

export const targets: FuzzTarget[] = [target];
