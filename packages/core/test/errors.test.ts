import { ERROR_CODES, type ErrorCode, isQueueError, QueueError } from '@queueport/core';
import {
  normalizeError,
  RETRYABLE_BY_DEFAULT,
  redactSecrets,
  registeredSecretPatterns,
  registerSecretPatterns,
} from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';

describe('QueueError', () => {
  it('takes retryable from its code unless told otherwise', () => {
    const retryable = new Set<ErrorCode>(['UNAVAILABLE', 'RATE_LIMITED']);
    for (const code of ERROR_CODES) {
      const error = new QueueError(code, 'm');
      expect(error.retryable, code).toBe(retryable.has(code));
      expect(error.retryable, code).toBe(RETRYABLE_BY_DEFAULT[code]);
      expect(new QueueError(code, 'm', { retryable: !retryable.has(code) }).retryable, code).toBe(
        !retryable.has(code),
      );
    }
  });

  it('is an Error with a name, a code, empty details and no retry-after by default', () => {
    const error = new QueueError('NOT_FOUND', 'no such queue');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('QueueError');
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('no such queue');
    expect(error.details).toEqual({});
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(error.cause).toBeUndefined();
  });

  it('serialises to JSON without the cause', () => {
    const cause = new Error('Authorization: Bearer secret-token');
    const limited = new QueueError('RATE_LIMITED', 'slow down', {
      retryAfterSeconds: 7,
      details: { limit: 100 },
      cause,
    });
    expect(limited.cause).toBe(cause);
    expect(limited.toJSON()).toEqual({
      name: 'QueueError',
      code: 'RATE_LIMITED',
      message: 'slow down',
      retryable: true,
      retryAfterSeconds: 7,
      details: { limit: 100 },
    });
    expect(JSON.stringify(limited)).not.toContain('secret-token');
    expect(Object.hasOwn(new QueueError('INTERNAL', 'x').toJSON(), 'retryAfterSeconds')).toBe(false);
  });

  it('isQueueError checks the class and, when given, the code', () => {
    const error = new QueueError('LEASE_LOST', 'gone');
    expect(isQueueError(error)).toBe(true);
    expect(isQueueError(error, 'LEASE_LOST')).toBe(true);
    expect(isQueueError(error, 'INTERNAL')).toBe(false);
    expect(isQueueError(Object.assign(new Error('x'), { code: 'LEASE_LOST' }))).toBe(false);
    expect(isQueueError(undefined)).toBe(false);
  });
});

describe('normalizeError', () => {
  const networkError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:6379`), { code });

  it('maps ECONNREFUSED to a retryable UNAVAILABLE', () => {
    const raw = networkError('ECONNREFUSED');
    const error = normalizeError(raw, 'bullmq');
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('bullmq');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.cause).toEqual({ name: 'Error', message: raw.message, code: 'ECONNREFUSED' });
  });

  it('keeps only a redacted summary of the original error as cause, since loggers print it', () => {
    const raw = new Error('401 for request with Authorization: Bearer sk_live_abc123');
    const error = normalizeError(raw, 'infrai');
    expect(JSON.stringify(error.cause)).not.toContain('sk_live_abc123');
    expect(error.cause).not.toBe(raw);
  });

  it('finds a transient code beneath a wrapper that has a code of its own', () => {
    const raw = Object.assign(new Error('send failed'), {
      code: 'ERR_SEND',
      cause: networkError('ECONNRESET'),
    });
    expect(normalizeError(raw, 'sqs').code).toBe('UNAVAILABLE');
  });

  it('finds a network code nested in cause (as fetch reports it)', () => {
    const raw = new TypeError('fetch failed', { cause: networkError('ECONNREFUSED') });
    expect(normalizeError(raw, 'infrai').code).toBe('UNAVAILABLE');
    const deeper = new Error('outer', { cause: new Error('middle', { cause: networkError('ECONNRESET') }) });
    expect(normalizeError(deeper, 'infrai')).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
  });

  it.each(['ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])(
    'treats %s as UNAVAILABLE',
    (code) => {
      expect(normalizeError(networkError(code), 'd').code).toBe('UNAVAILABLE');
    },
  );

  it('maps anything unknown to a non-retryable INTERNAL', () => {
    for (const raw of [new Error('boom'), 'a string', 42, null, undefined, { code: 'EACCES' }]) {
      const error = normalizeError(raw, 'sqs');
      expect(error.code).toBe('INTERNAL');
      expect(error.retryable).toBe(false);
      expect(error.message.startsWith('sqs: ')).toBe(true);
    }
    expect(normalizeError(new Error('boom'), 'sqs').message).toBe('sqs: boom');
  });

  it('keeps a QueueError as it is, without asking the classifier', () => {
    const original = new QueueError('LEASE_LOST', 'gone');
    let asked = 0;
    const classify = () => {
      asked++;
      return new QueueError('INTERNAL', 'no');
    };
    expect(normalizeError(original, 'd', classify)).toBe(original);
    expect(asked).toBe(0);
  });

  it("uses the driver's classifier first, even for network errors", () => {
    const raw = networkError('ECONNREFUSED');
    const mine = new QueueError('UNAUTHORIZED', 'bad credentials');
    expect(normalizeError(raw, 'd', (error) => (error === raw ? mine : undefined))).toBe(mine);
  });

  it('falls through when the classifier does not know the error', () => {
    expect(normalizeError(networkError('ECONNREFUSED'), 'd', () => undefined).code).toBe('UNAVAILABLE');
    expect(normalizeError(new Error('odd'), 'd', () => undefined).code).toBe('INTERNAL');
  });

  it('redacts secrets from an INTERNAL message', () => {
    const raw = new Error('request failed: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig (401)');
    const error = normalizeError(raw, 'infrai');
    expect(error.code).toBe('INTERNAL');
    expect(error.message).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(JSON.stringify(error)).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(String(error)).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(error.message).toContain('[REDACTED]');
    expect(error.message).toContain('(401)');
  });
});

describe('redactSecrets', () => {
  it.each([
    ['a bearer token', 'Authorization: Bearer xyz', 'xyz'],
    ['a lower-case bearer token', 'bearer abc.def-ghi', 'abc.def-ghi'],
    ['an api_key query parameter', 'GET https://api.example/v1?api_key=sk_live_51H&x=1', 'sk_live_51H'],
    ['an api-key header', 'api-key: "k-123456"', 'k-123456'],
    ['a password field', '{"password":"hunter22"}', 'hunter22'],
  ])('removes %s', (_name, text, secret) => {
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[REDACTED]');
  });

  it('keeps the surrounding text', () => {
    expect(redactSecrets('GET /v1?api_key=abc123&page=2 failed')).toBe(
      'GET /v1?api_key=[REDACTED]&page=2 failed',
    );
    expect(redactSecrets('Authorization: Bearer xyz')).not.toContain('xyz');
    expect(redactSecrets('nothing secret here: 404 Not Found')).toBe('nothing secret here: 404 Not Found');
  });

  it('removes known secrets wherever they appear, every time', () => {
    const secret = 'p4ss-w0rd-that-matches-no-pattern';
    const out = redactSecrets(`user=${secret} host=db retry with ${secret}`, [secret]);
    expect(out).not.toContain(secret);
    expect(out).toBe('user=[REDACTED] host=db retry with [REDACTED]');
  });

  it('removes a known secret that contains replacement patterns literally', () => {
    const secret = 'a$&b$1c';
    expect(redactSecrets(`x ${secret} y`, [secret])).toBe('x [REDACTED] y');
  });
});

describe('registerSecretPatterns', () => {
  // A prefix no real package declares, so this file's registrations are its own.
  const key = 'zzq_pk_proj_abc123';

  it("masks a provider's key prefix only once a package registered it, everywhere after", () => {
    expect(redactSecrets(`key ${key} rejected`)).toBe(`key ${key} rejected`);
    registerSecretPatterns([/\bzzq_[A-Za-z0-9_]+/]);
    expect(redactSecrets(`key ${key} rejected, and ${key} again`)).toBe(
      'key [REDACTED] rejected, and [REDACTED] again',
    );
    // Errors built by any package go through the same masking.
    const error = normalizeError(new Error(`upstream said ${key}`), 'driver');
    expect(error.message).not.toContain(key);
  });

  it('keeps a pattern registered twice once, and hands out copies', () => {
    registerSecretPatterns([/\bzzr_[a-z]+/i, /\bzzr_[a-z]+/i]);
    const sources = registeredSecretPatterns().map((pattern) => pattern.source);
    expect(sources.filter((source) => source === '\\bzzr_[a-z]+')).toHaveLength(1);
    expect(redactSecrets('ZZR_abc and zzr_def')).toBe('[REDACTED] and [REDACTED]');
  });

  it('refuses a pattern that matches the empty string', () => {
    expect(() => registerSecretPatterns([/x*/])).toThrow('matches the empty string');
    expect(redactSecrets('xxx')).toBe('xxx');
  });
});
