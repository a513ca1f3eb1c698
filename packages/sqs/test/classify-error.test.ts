import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import {
  BatchRequestTooLong,
  GetQueueUrlCommand,
  InvalidAttributeValue,
  InvalidSecurity,
  KmsThrottled,
  MessageNotInflight,
  OverLimit,
  PurgeQueueInProgress,
  QueueDeletedRecently,
  QueueDoesNotExist,
  ReceiptHandleIsInvalid,
  RequestThrottled,
  SQSClient,
  SQSServiceException,
} from '@aws-sdk/client-sqs';
import { normalizeError, type QueueError } from '@queueport/core/driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifySqsFailure, sqsErrorClassifier } from '../src';

const WHERE = 'sqs:orders';
const classify = (error: unknown): QueueError => normalizeError(error, WHERE, sqsErrorClassifier(WHERE));
const metadata = (httpStatusCode: number) => ({
  $metadata: { httpStatusCode, requestId: 'req-1', attempts: 1 },
});

// Fake credentials as an SDK error could echo them (a signature mismatch answers with the
// canonical request, its x-amz-security-token header included).
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY';
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLEsessionTOKENzzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const LEAKY_MESSAGE =
  'The request signature we calculated does not match the signature you provided. Check your AWS ' +
  `Secret Access Key and signing method. The Canonical String for this request should have been ` +
  `'POST\n/\n\ncontent-type:application/x-amz-json-1.0\nhost:sqs.us-east-1.amazonaws.com\n` +
  `x-amz-security-token:${SESSION_TOKEN}\n' and the key was ${SECRET_KEY}`;

/** Everything an error shows to a logger, a JSON serialiser or a person. */
function everythingShown(error: QueueError): string {
  return [
    error.message,
    JSON.stringify(error.details),
    JSON.stringify(error.cause ?? null),
    inspect(error.cause),
    JSON.stringify(error),
    String(error),
    inspect(error, { depth: 5 }),
    error.stack ?? '',
  ].join('\n');
}

describe('SQS service exceptions (the SDK exported classes) in the port terms', () => {
  it.each([
    [
      'QueueDoesNotExist',
      'NOT_FOUND',
      () => new QueueDoesNotExist({ message: 'The specified queue does not exist.', ...metadata(400) }),
    ],
    [
      'ReceiptHandleIsInvalid',
      'LEASE_LOST',
      () => new ReceiptHandleIsInvalid({ message: 'The input receipt handle is invalid.', ...metadata(404) }),
    ],
    [
      'MessageNotInflight',
      'LEASE_LOST',
      () => new MessageNotInflight({ message: 'not in flight', ...metadata(400) }),
    ],
    ['InvalidSecurity', 'UNAUTHORIZED', () => new InvalidSecurity({ message: 'insecure', ...metadata(403) })],
    [
      'RequestThrottled',
      'RATE_LIMITED',
      () => new RequestThrottled({ message: 'slow down', ...metadata(403) }),
    ],
    ['OverLimit', 'RATE_LIMITED', () => new OverLimit({ message: 'too many in flight', ...metadata(403) })],
    ['KmsThrottled', 'RATE_LIMITED', () => new KmsThrottled({ message: 'kms', ...metadata(400) })],
    [
      'InvalidAttributeValue',
      'INVALID_ARGUMENT',
      () => new InvalidAttributeValue({ message: 'bad value', ...metadata(400) }),
    ],
    [
      'BatchRequestTooLong',
      'PAYLOAD_TOO_LARGE',
      () => new BatchRequestTooLong({ message: 'too long', ...metadata(400) }),
    ],
  ] as const)('reads %s as %s', (name, code, make) => {
    const error = classify(make());
    expect(error).toMatchObject({ code, details: { sqsCode: name } });
    expect(error.message).toContain(WHERE);
    expect(error.message).toContain(`(${name})`);
  });

  it('gives NOT_FOUND and LEASE_LOST a fixed message, not SQS’s', () => {
    const notFound = classify(
      new QueueDoesNotExist({ message: `no queue; ${SESSION_TOKEN}`, ...metadata(400) }),
    );
    expect(notFound.message).toBe(`${WHERE}: the queue does not exist (QueueDoesNotExist)`);
    expect(notFound.retryable).toBe(false);
    const lost = classify(
      new ReceiptHandleIsInvalid({ message: `handle ${SESSION_TOKEN}`, ...metadata(404) }),
    );
    expect(lost.code).toBe('LEASE_LOST');
    expect(lost.retryable).toBe(false);
    expect(everythingShown(lost)).not.toContain(SESSION_TOKEN);
  });

  it.each([
    ['PurgeQueueInProgress', () => new PurgeQueueInProgress({ message: 'wait', ...metadata(403) })],
    ['QueueDeletedRecently', () => new QueueDeletedRecently({ message: 'wait', ...metadata(400) })],
  ] as const)('reads %s as RATE_LIMITED with retryAfterSeconds 60', (_name, make) => {
    expect(classify(make())).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterSeconds: 60 });
  });

  it('asks no particular wait of other throttles', () => {
    expect(
      classify(new RequestThrottled({ message: 'slow', ...metadata(403) })).retryAfterSeconds,
    ).toBeUndefined();
  });

  it('reads an unknown server fault as retryable UNAVAILABLE and an unknown client error as INTERNAL', () => {
    const server = new SQSServiceException({
      name: 'SomethingBroke',
      $fault: 'server',
      ...metadata(500),
      message: 'x',
    });
    expect(classify(server)).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
      details: { sqsCode: 'SomethingBroke', httpStatus: 500 },
    });
    const client = new SQSServiceException({
      name: 'NoSuchThing',
      $fault: 'client',
      ...metadata(400),
      message: 'odd',
    });
    expect(classify(client)).toMatchObject({
      code: 'INTERNAL',
      retryable: false,
      details: { sqsCode: 'NoSuchThing' },
    });
    expect(classify(client).message).toBe(`${WHERE}: odd (NoSuchThing)`);
  });

  it('never lets an UNAUTHORIZED answer echo what SQS said (a secret key, a session token)', () => {
    for (const name of [
      'SignatureDoesNotMatch',
      'InvalidClientTokenId',
      'UnrecognizedClientException',
      'ExpiredToken',
    ]) {
      const sdk = new SQSServiceException({
        name,
        $fault: 'client',
        ...metadata(403),
        message: LEAKY_MESSAGE,
      });
      const error = classify(sdk);
      expect(error.code, name).toBe('UNAUTHORIZED');
      expect(error.message).toBe(`${WHERE}: AWS refused the credentials or their permissions (${name})`);
      expect(error.details).toEqual({ sqsCode: name, httpStatus: 403 });
      expect(error.cause).toBeUndefined();
      const shown = everythingShown(error);
      expect(shown).not.toContain(SECRET_KEY);
      expect(shown).not.toContain(SESSION_TOKEN);
      expect(shown).not.toContain('Canonical String');
    }
  });

  it('reads a missing credential chain as UNAUTHORIZED', () => {
    const error = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });
    expect(classify(error)).toMatchObject({ code: 'UNAUTHORIZED', retryable: false });
    expect(classify(error).message).toContain('no AWS credentials were found');
  });

  it('leaves what is not an SDK error to core, the rest INTERNAL', () => {
    const classifier = sqsErrorClassifier(WHERE);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED' });
    expect(classifier('a string')).toBeUndefined();
    expect(classifier(new Error('boom'))).toBeUndefined();
    expect(classify(refused)).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(classify(new Error('boom'))).toMatchObject({ code: 'INTERNAL', message: `${WHERE}: boom` });
  });
});

describe('socket failures, however the SDK wraps them', () => {
  const socket = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });

  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ENOTFOUND',
    'ECONNABORTED',
    'UND_ERR_SOCKET',
    'ERR_SSL_WRONG_VERSION_NUMBER',
  ])('reads %s, with the $metadata the SDK adds, as UNAVAILABLE naming it (not "not SQS")', (code) => {
    // What the SDK throws for a refused connection: the socket error, its retries in $metadata.
    const thrown = Object.assign(socket(code), { $metadata: { attempts: 3, totalRetryDelay: 60 } });
    const error = classify(thrown);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true, details: { networkCode: code } });
    expect(error.message).toContain(code);
    expect(error.message).not.toContain('not SQS');
  });

  it('finds the socket error in causes and aggregated attempts', () => {
    const nested = Object.assign(new Error('request failed', { cause: socket('ECONNREFUSED') }), {
      $metadata: { attempts: 1 },
    });
    expect(classify(nested).message).toContain('ECONNREFUSED');
    const aggregated = Object.assign(new AggregateError([socket('ETIMEDOUT'), socket('ENETUNREACH')], ''), {
      $metadata: {},
    });
    expect(classify(aggregated)).toMatchObject({
      code: 'UNAVAILABLE',
      details: { networkCode: 'ETIMEDOUT' },
    });
  });

  it('still reads an answer it could not parse as one that is not SQS, with its status', () => {
    const html = Object.assign(new SyntaxError('Unexpected token <'), { $metadata: { httpStatusCode: 502 } });
    expect(classify(html)).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('HTTP 502'),
    });
  });
});

describe('what a server says, as far as errors repeat it', () => {
  const SECRET = 'zq9ConfiguredSecretValue';
  const KEY_ID = 'AKIAZZCONFIGURED01';

  it("masks the configured secrets in an unknown code's message, and cuts it short", () => {
    const said = `you sent ${KEY_ID} signed with ${SECRET}; ${'detail '.repeat(2000)}`;
    const error = classifySqsFailure({ code: 'HostileThing', message: said, senderFault: true }, WHERE, [
      KEY_ID,
      SECRET,
    ]);
    expect(error.code).toBe('INTERNAL');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain(KEY_ID);
    expect(error.message).toContain('(HostileThing)');
    expect(error.message.length).toBeLessThan(300);
  });

  it('does the same through the classifier of an SDK error, and never repeats a code that is no code', () => {
    const thrown = Object.assign(new Error(`echo ${SECRET}`), {
      name: 'HostileThing',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      Code: `not a code ${SECRET}`,
    });
    const error = sqsErrorClassifier(WHERE, [SECRET])(thrown)!;
    expect(JSON.stringify(error) + error.message).not.toContain(SECRET);
    expect(error.details.sqsCode).toBe('Unknown');
  });

  it('masks a configured secret that is also the code', () => {
    const error = classifySqsFailure({ code: SECRET, message: '', senderFault: true }, WHERE, [SECRET]);
    expect(JSON.stringify(error) + error.message).not.toContain(SECRET);
  });
});

describe('classifySqsFailure: a batch entry or a whole call', () => {
  const failure = (code: string, senderFault: boolean, httpStatus?: number) =>
    classifySqsFailure(
      { code, message: `said ${code}`, senderFault, ...(httpStatus ? { httpStatus } : {}) },
      WHERE,
    );

  it('maps the codes both protocols spell', () => {
    expect(failure('ReceiptHandleIsInvalid', true).code).toBe('LEASE_LOST');
    expect(failure('AWS.SimpleQueueService.MessageNotInflight', true).code).toBe('LEASE_LOST');
    expect(failure('AWS.SimpleQueueService.NonExistentQueue', true).code).toBe('NOT_FOUND');
    expect(failure('AWS.SimpleQueueService.PurgeQueueInProgress', true)).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 60,
    });
    expect(failure('InvalidParameterValue', true).code).toBe('INVALID_ARGUMENT');
    expect(failure('InternalError', false).code).toBe('UNAVAILABLE');
  });

  it('reads an unknown code by who SQS blamed and the HTTP status', () => {
    expect(failure('Weird', false)).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(failure('Weird', true, 503)).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(failure('Weird', true, 429)).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(failure('Weird', true, 401).code).toBe('UNAUTHORIZED');
    expect(failure('Weird', true, 403).code).toBe('UNAUTHORIZED');
    expect(failure('Weird', true, 400)).toMatchObject({ code: 'INTERNAL', retryable: false });
    expect(failure('Weird', true)).toMatchObject({ code: 'INTERNAL', details: { sqsCode: 'Weird' } });
  });

  it("quotes SQS's own message, redacted, only where it carries no request details", () => {
    const error = classifySqsFailure(
      { code: 'InvalidParameterValue', message: 'bad value; token=abcdef123456 here', senderFault: true },
      WHERE,
    );
    expect(error.message).toBe(`${WHERE}: bad value; token=[REDACTED] here (InvalidParameterValue)`);
    expect(classifySqsFailure({ code: 'Odd', message: '', senderFault: true }, WHERE).message).toBe(
      `${WHERE}: Odd (Odd)`,
    );
  });
});

/**
 * A server that answers every SQS call with one canned HTTP response, so the SDK itself builds
 * the error (its query-compatible `Code`, `$fault`, `$metadata`) as it would for AWS.
 */
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

let answer: Answer = { status: 200, body: '{}' };
let lastRequest: IncomingHttpHeaders = {};
let server: Server;
let client: SQSClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    lastRequest = req.headers;
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', ...answer.headers });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new SQSClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'fake', sessionToken: SESSION_TOKEN },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client?.destroy();
  await new Promise((resolve) => server?.close(resolve));
});

async function sdkErrorFor(next: Answer): Promise<unknown> {
  answer = next;
  try {
    await client.send(new GetQueueUrlCommand({ QueueName: 'orders' }));
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** SQS's JSON error answer, with the query-protocol code in x-amzn-query-error as AWS sends it. */
const sqsAnswer = (status: number, type: string, message: string, queryCode?: string): Answer => ({
  status,
  headers: queryCode ? { 'x-amzn-query-error': `${queryCode};${status >= 500 ? 'Receiver' : 'Sender'}` } : {},
  body: JSON.stringify({ __type: `com.amazonaws.sqs#${type}`, message }),
});

describe('errors as the SDK builds them from what came over the wire', () => {
  it('reads a missing queue (query code AWS.SimpleQueueService.NonExistentQueue) as NOT_FOUND', async () => {
    const sdk = await sdkErrorFor(
      sqsAnswer(
        400,
        'QueueDoesNotExist',
        'The specified queue does not exist.',
        'AWS.SimpleQueueService.NonExistentQueue',
      ),
    );
    expect(sdk).toBeInstanceOf(QueueDoesNotExist);
    expect(classify(sdk)).toMatchObject({
      code: 'NOT_FOUND',
      details: { sqsCode: 'AWS.SimpleQueueService.NonExistentQueue', httpStatus: 400 },
    });
  });

  it('reads PurgeQueueInProgress (HTTP 403) as RATE_LIMITED after 60 s, not UNAUTHORIZED', async () => {
    const sdk = await sdkErrorFor(
      sqsAnswer(
        403,
        'PurgeQueueInProgress',
        'Only one PurgeQueue operation is allowed every 60 seconds.',
        'AWS.SimpleQueueService.PurgeQueueInProgress',
      ),
    );
    expect(sdk).toBeInstanceOf(PurgeQueueInProgress);
    expect(classify(sdk)).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterSeconds: 60 });
  });

  it('answers a signature mismatch with a fixed UNAUTHORIZED that carries neither key nor token', async () => {
    // The request really carried the session token: this is what the answer could echo.
    const sdk = await sdkErrorFor({
      status: 403,
      headers: { 'x-amzn-query-error': 'SignatureDoesNotMatch;Sender' },
      body: JSON.stringify({
        __type: 'com.amazon.coral.service#InvalidSignatureException',
        message: LEAKY_MESSAGE,
      }),
    });
    expect(lastRequest['x-amz-security-token']).toBe(SESSION_TOKEN);
    expect((sdk as Error).message).toContain(SESSION_TOKEN);
    const error = classify(sdk);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', retryable: false });
    expect(error.details).toEqual({ sqsCode: 'SignatureDoesNotMatch', httpStatus: 403 });
    const shown = everythingShown(error);
    expect(shown).not.toContain(SECRET_KEY);
    expect(shown).not.toContain(SESSION_TOKEN);
  });

  it('reads a 403 with an unmodelled code as UNAUTHORIZED, still without its message', async () => {
    const sdk = await sdkErrorFor({
      status: 403,
      body: JSON.stringify({
        __type: 'com.amazon.coral.service#AccessDeniedException',
        message: LEAKY_MESSAGE,
      }),
    });
    const error = classify(sdk);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(everythingShown(error)).not.toContain(SESSION_TOKEN);
  });

  it.each([
    [500, 'InternalError'],
    [503, 'ServiceUnavailable'],
    [500, 'SomethingNobodyModelled'],
  ])('reads HTTP %i %s as retryable UNAVAILABLE', async (status, type) => {
    const error = classify(await sdkErrorFor(sqsAnswer(status, type, 'try again')));
    expect(error).toMatchObject({ code: 'UNAVAILABLE', retryable: true, details: { httpStatus: status } });
  });

  it('reads an unmodelled client error as INTERNAL, naming its code', async () => {
    const error = classify(await sdkErrorFor(sqsAnswer(400, 'SomethingNew', 'new rule')));
    expect(error).toMatchObject({
      code: 'INTERNAL',
      retryable: false,
      details: { sqsCode: 'SomethingNew', httpStatus: 400 },
    });
  });

  it.each([
    [502, 'UNAVAILABLE', true],
    [503, 'UNAVAILABLE', true],
    [404, 'INTERNAL', false],
    [200, 'INTERNAL', false],
  ] as const)('reads an answer that is not SQS (HTML, HTTP %i) as %s', async (status, code, retryable) => {
    const sdk = await sdkErrorFor({
      status,
      headers: { 'content-type': 'text/html' },
      body: '<!doctype html><html><body>Bad Gateway from the corporate proxy</body></html>',
    });
    const error = classify(sdk);
    expect(error).toMatchObject({ code, retryable, details: { httpStatus: status } });
    expect(error.message).toContain('not SQS');
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).not.toContain('corporate proxy');
  });

  // Regression test. The bug was:
  // it looks up `sdk.Code ?? error.name`. The SDK sets `Code` from x-amzn-query-error, the query
  // protocol's code, which for these errors is `AWS.SimpleQueueService.<Name>` (the SDK's own
  // model: awsQueryError trait), and CODES spells them only by shape name. So SQS's
  // BatchRequestTooLong becomes INTERNAL, not PAYLOAD_TOO_LARGE.
  it('reads the batch refusals as SQS sends them (query codes AWS.SimpleQueueService.*)', async () => {
    const cases = [
      ['BatchRequestTooLong', 'PAYLOAD_TOO_LARGE'],
      ['TooManyEntriesInBatchRequest', 'INVALID_ARGUMENT'],
      ['BatchEntryIdsNotDistinct', 'INVALID_ARGUMENT'],
    ] as const;
    const seen: Record<string, string> = {};
    for (const [type] of cases) {
      const sdk = await sdkErrorFor(sqsAnswer(400, type, 'refused', `AWS.SimpleQueueService.${type}`));
      expect((sdk as Error).name).toBe(type);
      seen[type] = classify(sdk).code;
    }
    expect(seen).toEqual(Object.fromEntries(cases));
  });
});
