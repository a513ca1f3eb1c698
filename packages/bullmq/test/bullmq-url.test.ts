import type { QueueError } from '@queueport/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBullmqUrl } from '../src';

const parse = (url: string, env: Record<string, string | undefined> = {}) =>
  parseBullmqUrl(new URL(url), env);

function refusal(url: string, env: Record<string, string | undefined> = {}): QueueError {
  try {
    parse(url, env);
  } catch (error) {
    return error as QueueError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('parseBullmqUrl: where Redis is', () => {
  it('reads host, port, db, prefix, tls and username', () => {
    expect(
      parse('bullmq://redis.example.com:6380/orders?db=3&prefix=app&tls=true&username=svc-orders'),
    ).toEqual({
      queueName: 'orders',
      redis: {
        host: 'redis.example.com',
        port: 6380,
        db: 3,
        // The certificate is checked against the host the URL names, not whatever it resolves to.
        tls: { servername: 'redis.example.com' },
        username: 'svc-orders',
        maxRetriesPerRequest: null,
      },
      options: { prefix: 'app' },
      timeoutMs: 10_000,
    });
  });

  it('reads timeoutMs, and refuses one outside 100 ms to 10 minutes', () => {
    expect(parse('bullmq://h/q?timeoutMs=2500').timeoutMs).toBe(2500);
    for (const value of ['0', '99', '600001', 'soon', '1.5']) {
      expect(refusal(`bullmq://h/q?timeoutMs=${value}`), value).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'timeoutMs' },
      });
    }
  });

  it('defaults to port 6379, no db, no tls, no password, and BullMQ its own prefix', () => {
    const { redis, options, queueName } = parse('bullmq://10.0.0.7/orders?tls=false');
    expect(queueName).toBe('orders');
    expect(redis).toEqual({ host: '10.0.0.7', port: 6379, maxRetriesPerRequest: null });
    expect(options).toEqual({});
  });

  it('unwraps an IPv6 host, falls back to localhost without one, and names no queue for a provider URL', () => {
    expect(parse('bullmq://[::1]:6390/q').redis).toMatchObject({ host: '::1', port: 6390 });
    expect(parse('bullmq:///q').redis.host).toBe('127.0.0.1');
    expect(parse('bullmq://127.0.0.1:6379').queueName).toBe('');
    expect(parse('bullmq://127.0.0.1:6379/').queueName).toBe('');
  });

  it('decodes a %-escaped queue name', () => {
    expect(parse('bullmq://h/orders%20eu%2Fwest').queueName).toBe('orders eu/west');
    expect(parse('bullmq://h/caf%C3%A9').queueName).toBe('café');
  });
});

describe('parseBullmqUrl: driver options', () => {
  it('reads every numeric option as a number', () => {
    const { options } = parse(
      'bullmq://h/q?dedupeWindowSeconds=60&keepCompletedSeconds=120&keepFailedSeconds=86400&stalledIntervalMs=250&maxBodyBytes=65536',
    );
    expect(options).toEqual({
      dedupeWindowSeconds: 60,
      keepCompletedSeconds: 120,
      keepFailedSeconds: 86_400,
      stalledIntervalMs: 250,
      maxBodyBytes: 65_536,
    });
  });

  it.each([
    'dedupeWindowSeconds',
    'keepCompletedSeconds',
    'keepFailedSeconds',
    'stalledIntervalMs',
    'maxBodyBytes',
    'db',
  ])('refuses %s unless it is a whole number, naming the option', (field) => {
    for (const value of ['1.5', '-1', '', '1e3', ' 1', '0x10', 'ten', '9007199254740993']) {
      const error = refusal(`bullmq://h/q?${field}=${encodeURIComponent(value)}`);
      expect(error, `${field}=${value}`).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
      expect(error.message).toContain(field);
    }
  });

  it('refuses tls unless it is true or false', () => {
    for (const value of ['1', 'yes', 'TRUE', '']) {
      expect(refusal(`bullmq://h/q?tls=${value}`)).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { field: 'tls' },
      });
    }
  });

  it.each([
    // Option names are case-sensitive: a near miss must not silently mean the default.
    ['DB', 'DB=2', 'db'],
    ['prefx', 'prefx=app', 'prefix'],
    ['dedupeWindowSecond', 'dedupeWindowSecond=60', 'dedupeWindowSeconds'],
  ])('refuses the unknown option %s by name, as a near miss of a real one', (field, query, suggestion) => {
    const error = refusal(`bullmq://h/q?db=0&${query}`);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field, suggestion } });
    expect(error.message).toContain(`"${field}"`);
    expect(error.message).toContain(suggestion);
  });

  it.each([
    ['colour', 'colour=blue'],
    ['queueName', 'queueName=other'],
    ['lockDuration', 'lockDuration=30000'],
  ])('refuses the unknown option %s, listing those it takes', (_, query) => {
    const error = refusal(`bullmq://h/q?db=0&${query}`);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: '(not shown)' } });
    expect(error.message).toContain('prefix');
  });

  // A token pasted where a name or a number goes must not reach a log through the refusal.
  it.each([
    ['as an option name', (token: string) => `bullmq://h/q?${token}=1`],
    ['as db', (token: string) => `bullmq://h/q?db=${token}`],
    ['as tls', (token: string) => `bullmq://h/q?tls=${token}`],
    ['as a number option', (token: string) => `bullmq://h/q?stalledIntervalMs=${token}`],
    ['as timeoutMs', (token: string) => `bullmq://h/q?timeoutMs=${token}`],
  ])('never echoes a token typed %s', (_, make) => {
    for (const token of ['ghp_4f9Kq2Lz8XwYb7Tn', 'sk-live-51Hx0aQ', 'correcthorse', 'hunter2hunter2']) {
      const error = refusal(make(token));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).not.toContain(token);
      expect(JSON.stringify(error.details ?? {})).not.toContain(token);
    }
  });
});

describe('parseBullmqUrl: the password', () => {
  it('reads the password from the variable passwordEnv names, in the env it is given', () => {
    const { redis } = parse('bullmq://h/q?passwordEnv=ORDERS_REDIS_PASSWORD&username=svc', {
      ORDERS_REDIS_PASSWORD: 's3cret-value',
    });
    expect(redis).toMatchObject({ username: 'svc', password: 's3cret-value' });
  });

  it('never falls back to process.env', () => {
    // PATH is set in every process, so only the env that was passed can explain a refusal.
    expect(process.env.PATH).toBeTruthy();
    expect(refusal('bullmq://h/q?passwordEnv=PATH', {})).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'passwordEnv' },
    });
  });

  it('refuses a passwordEnv that is unset or empty, naming the variable', () => {
    for (const env of [{}, { REDIS_PW: undefined }, { REDIS_PW: '' }]) {
      const error = refusal('bullmq://h/q?passwordEnv=REDIS_PW', env);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'passwordEnv' } });
      expect(error.message).toContain('REDIS_PW');
    }
  });

  it.each(['bullmq://svc:hunter2@h/q', 'bullmq://:hunter2@h/q', 'bullmq://svc@h/q'])(
    'refuses credentials in the URL (%s) without echoing them',
    (url) => {
      const error = refusal(url);
      const field = url.includes('hunter2') ? 'password' : 'username';
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
      expect(error.message).toContain('passwordEnv');
      expect(error.message).not.toContain('hunter2');
    },
  );

  it('keeps a password out of every refusal, whatever else is wrong with the URL', () => {
    const password = fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 24 }).filter(
      // A password that happens to be a word the messages use would match for the wrong reason.
      (p) => /^[A-Za-z0-9]+$/.test(p) && !/bullmq|option|queue|expected|number|true|false/i.test(p),
    );
    const broken = fc.constantFrom(
      (pw: string) => `bullmq://svc:${pw}@h/q`,
      (pw: string) => `bullmq://:${pw}@h/q?passwordEnv=PW`,
      () => 'bullmq://h/q?passwordEnv=PW&db=x',
      () => 'bullmq://h/q?passwordEnv=PW&colour=blue',
      () => 'bullmq://h/q?passwordEnv=PW&tls=maybe',
      () => 'bullmq://h/a/b?passwordEnv=PW',
      () => 'bullmq://h/a:b?passwordEnv=PW',
      () => 'bullmq://h/q?passwordEnv=OTHER',
      () => 'bullmq://h/q?passwordEnv=PW&dedupeWindowSeconds=-5',
    );
    fc.assert(
      fc.property(password, broken, (pw, make) => {
        const error = refusal(make(pw), { PW: pw });
        expect(error.code).toBe('INVALID_ARGUMENT');
        expect(error.message).not.toContain(pw);
        expect(JSON.stringify(error.details ?? {})).not.toContain(pw);
      }),
      { numRuns: 300 },
    );
  });

  // A password pasted into passwordEnv= (a plausible slip for `password=`) must not reach a log.
  it('does not echo a password pasted into passwordEnv=', () => {
    const error = refusal('bullmq://h/q?passwordEnv=Tr0ub4dor-and-3', {});
    expect(error.message).not.toContain('Tr0ub4dor-and-3');
  });
});

describe('parseBullmqUrl: the queue name', () => {
  it.each(['bullmq://h/orders/eu', 'bullmq://h/a/b/c'])('refuses several path segments (%s)', (url) => {
    expect(refusal(url)).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'queueName' } });
  });

  it.each(['bullmq://h/a:b', 'bullmq://h/a%3Ab', 'bullmq://h/%3A'])(
    'refuses ":" in a queue name, escaped or not (%s)',
    (url) => {
      const error = refusal(url);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'queueName' } });
      expect(error.message).toContain(':');
    },
  );

  it('refuses a malformed %-escape instead of throwing a URIError', () => {
    expect(refusal('bullmq://h/%E0%A4%A')).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'queueName' },
    });
  });
});
