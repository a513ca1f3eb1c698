import { normalizeError, QueueError } from '@queueport/core/driver';
import { Redis, type RedisOptions } from 'ioredis';
import { classifyBullmqError } from './classify-error';
import { isShowableHost, shownHostPort } from './shown-host';

/** Once a connection was open, it reconnects at this pace for as long as Redis is away. */
const RECONNECT_MAX_DELAY_MS = 2000;

/** The cause of a connect that the overall deadline ended. */
const TIMED_OUT = new Error('ETIMEDOUT');

/** A connection the adapter opened from a URL, and the way to wait until it is usable. */
export interface OpenedRedis {
  connection: Redis;
  /**
   * Resolves once Redis answered within `timeoutMs`; rejects with UNAVAILABLE naming the cause
   * (refused, TLS handshake, no answer) or UNAUTHORIZED. A refused connection is closed, with
   * every socket it had, and never retried: a wrong URL fails fast instead of hanging.
   */
  ready(): Promise<void>;
}

/**
 * Opens the connection a URL describes, every step bounded: the connect (TCP and TLS) by
 * `connectTimeout`, every command by `commandTimeout`. BullMQ's workers need commands held
 * through a Redis restart (`maxRetriesPerRequest: null`); the command timeout still ends each one.
 * Reconnects only once it was open: before that, a failure is the answer.
 */
export function openRedis(redis: RedisOptions, timeoutMs: number): OpenedRedis {
  let opened = false;
  let lastError: unknown;
  const connection = new Redis({
    ...redis,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: (times) => (opened ? Math.min(times * 200, RECONNECT_MAX_DELAY_MS) : null),
  });
  connection.on('error', (error: unknown) => {
    lastError = error;
  });
  connection.once('ready', () => {
    opened = true;
  });
  const where = shownHostPort(redis.host, redis.port);
  // A host not shown is not repeated by a cause's message either (ioredis names the host it tried).
  const hiddenHost = redis.host && !isShowableHost(redis.host) ? redis.host : undefined;
  const secrets = [redis.password, hiddenHost].filter((s): s is string => typeof s === 'string' && s !== '');
  let connecting: Promise<void> | undefined;
  return {
    connection,
    ready() {
      connecting ??= new Promise<void>((resolve, reject) => {
        if (connection.status === 'ready') return resolve();
        // The connect, TLS and the ready check each have timeoutMs of their own: this bounds all.
        const deadline = setTimeout(() => fail(TIMED_OUT), timeoutMs);
        const fail = (cause: unknown = lastError) => {
          clearTimeout(deadline);
          connection.off('ready', succeed);
          connection.off('end', onEnd);
          connection.disconnect();
          reject(connectFailure(cause, { where, tls: Boolean(redis.tls), timeoutMs, secrets }));
        };
        const succeed = () => {
          clearTimeout(deadline);
          connection.off('end', onEnd);
          resolve();
        };
        const onEnd = () => fail();
        if (connection.status === 'end') return fail();
        connection.once('ready', succeed);
        // Ends rather than reconnects while it was never open (see retryStrategy).
        connection.once('end', onEnd);
        // Whatever used it first (a BullMQ Queue, a command) may have started the connect already.
        if (connection.status === 'wait') connection.connect().catch(() => {});
      });
      return connecting;
    },
  };
}

/** What went wrong with a connect, in words an operator can act on; no secret in them. */
export function connectFailure(
  error: unknown,
  { where, tls, timeoutMs, secrets }: { where: string; tls: boolean; timeoutMs: number; secrets: string[] },
): QueueError {
  const normalized = normalizeError(error, 'bullmq', classifyBullmqError, { secrets });
  if (normalized.code === 'UNAUTHORIZED') return normalized;
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : '';
  const reason =
    code === 'ECONNREFUSED'
      ? `Redis at ${where} refused the connection (is it running, on this port?)`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `the host of ${where} is not known`
        : typeof code === 'string' && /^ERR_(SSL|TLS)|^(CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code)
          ? `the TLS handshake with ${where} failed (${code})`
          : error === TIMED_OUT || code === 'ETIMEDOUT' || /ETIMEDOUT|Command timed out/.test(message)
            ? tls
              ? `no TLS handshake with ${where} within ${timeoutMs} ms (timeoutMs): is tls=true right for this server? A plain Redis never answers one`
              : `no answer from Redis at ${where} within ${timeoutMs} ms (timeoutMs)`
            : `could not connect to Redis at ${where} (${normalized.message})`;
  return new QueueError('UNAVAILABLE', `bullmq: ${reason}`, { cause: normalized.cause ?? normalized });
}
