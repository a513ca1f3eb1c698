import { pipeline, type Readable, Transform } from 'node:stream';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { QueueError } from '@queueport/core/driver';

/** How long one SQS call may take in total, the SDK's own retries included, unless configured. */
export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 600_000;
/** What any answer but a receive's may weigh: batch results, queue attributes, a URL. */
export const SMALL_ANSWER_BYTES = 1024 * 1024;
/**
 * SQS messages hold XML characters only, so JSON escapes none of them longer than twice its
 * bytes (`"` as `\"`, a tab as `\t`, U+2028 as `\u2028`); base64 (binary attributes) is less.
 * A message carries ids, a receipt handle, digests and attribute names besides.
 */
const ESCAPED_BYTES_PER_BYTE = 2;
const PER_MESSAGE_OVERHEAD_BYTES = 16 * 1024;
const ANSWER_OVERHEAD_BYTES = 64 * 1024;

/** The most a receive of `maxMessages` can weigh when SQS keeps to the queue's message size. */
export function receiveAnswerBytes(maxMessages: number, maxMessageBytes: number): number {
  return (
    maxMessages * (maxMessageBytes * ESCAPED_BYTES_PER_BYTE + PER_MESSAGE_OVERHEAD_BYTES) +
    ANSWER_OVERHEAD_BYTES
  );
}

export interface CallBounds {
  /** For messages: the driver's name. */
  where: string;
  timeoutMs: number;
  maxAnswerBytes: number;
  /** The caller's or the driver's closing signal: its reason is thrown as it is. */
  signal?: AbortSignal;
}

/** Any command of the SQS client; the caller names its output type. */
export interface SqsCommand {
  readonly input: object;
  readonly middlewareStack: object;
}

interface WithStack {
  middlewareStack: { add(middleware: unknown, options: Record<string, unknown>): void };
}

/**
 * `client.send` with a deadline and a cap on the answer's size, for any client (the
 * application's own too: the cap is the command's middleware, the client is left as it is).
 * The deadline covers the SDK's retries and a body that drips; when it passes, the request is
 * aborted and the call rejects at once, whatever the SDK still waits for.
 */
export async function sendBounded<Output>(
  client: SQSClient,
  command: SqsCommand,
  bounds: CallBounds,
): Promise<Output> {
  const timeout = new AbortController();
  const signal = bounds.signal ? AbortSignal.any([timeout.signal, bounds.signal]) : timeout.signal;
  let oversize = false;
  (command as unknown as WithStack).middlewareStack.add(
    capAnswer(bounds, signal, () => {
      oversize = true;
    }),
    { step: 'deserialize', priority: 'low', name: 'queueportAnswerCap', override: true },
  );
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<never>((_, reject) => {
    const end = () =>
      reject(
        bounds.signal?.aborted
          ? bounds.signal.reason
          : new QueueError(
              'UNAVAILABLE',
              `${bounds.where}: SQS gave no answer within ${bounds.timeoutMs} ms`,
              {
                details: { timeoutMs: bounds.timeoutMs },
              },
            ),
      );
    if (signal.aborted) end();
    else signal.addEventListener('abort', end, { once: true });
  });
  timer = setTimeout(() => timeout.abort(), bounds.timeoutMs);
  try {
    return await Promise.race([
      client.send(command as never, { abortSignal: signal }) as Promise<Output>,
      ended,
    ]);
  } catch (error) {
    // A fresh error: the SDK appends its own hints to the one that cut the stream.
    throw oversize ? tooLarge(bounds) : error;
  } finally {
    clearTimeout(timer);
    ended.catch(() => {});
  }
}

/**
 * Sits between the HTTP handler and the deserializer: an answer that says or turns out to be
 * larger than the cap is cut off there, so no more than the cap is ever held.
 */
function capAnswer(bounds: CallBounds, signal: AbortSignal, report: () => void) {
  return (next: (args: unknown) => Promise<{ response: unknown }>) => async (args: unknown) => {
    const result = await next(args);
    const response = result.response as {
      headers?: Record<string, string | undefined>;
      body?: unknown;
    };
    const body = response.body as Readable | undefined;
    const declared = Number(response.headers?.['content-length']);
    if (Number.isFinite(declared) && declared > bounds.maxAnswerBytes) {
      body?.destroy?.();
      report();
      throw tooLarge(bounds);
    }
    if (body && typeof body.pipe === 'function') {
      let seen = 0;
      const counted = new Transform({
        transform(chunk: Uint8Array, _encoding, done) {
          seen += chunk.length;
          if (seen <= bounds.maxAnswerBytes) done(null, chunk);
          else {
            report();
            done(tooLarge(bounds));
          }
        },
      });
      const onAbort = () => counted.destroy(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      pipeline(body, counted, () => signal.removeEventListener('abort', onAbort));
      response.body = counted;
    }
    return result;
  };
}

function tooLarge(bounds: CallBounds): QueueError {
  return new QueueError(
    'UNAVAILABLE',
    `${bounds.where}: the answer passed ${bounds.maxAnswerBytes} bytes, more than SQS sends for this call`,
    { details: { maxAnswerBytes: bounds.maxAnswerBytes } },
  );
}
