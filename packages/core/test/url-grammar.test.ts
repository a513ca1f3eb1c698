import { redactUrl } from '@queueport/core';
import {
  decodeQueueName,
  defineUrlGrammar,
  encodeQueueName,
  isEnvironmentVariableName,
  type QueueError,
  readEnv,
  urlOption,
} from '@queueport/core/driver';
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';

const demo = defineUrlGrammar({
  scheme: 'demo',
  queueName: 'path',
  example: 'demo://host/orders',
  queueNameRule: { accepts: (name) => !name.includes(':'), refusal: 'a demo queue name may not contain ":"' },
  scope: { accepts: (segment) => /^[0-9]{4}$/.test(segment) },
  credentials: 'name the variable that holds the password with passwordEnv=',
  secretOptions: { names: ['apiKey', 'password'], instead: 'name its variable with passwordEnv=' },
  options: {
    count: urlOption.integer({ min: 1, max: 10 }),
    db: urlOption.integer({ min: 0, default: 0 }),
    tls: urlOption.boolean({ default: false }),
    fifo: urlOption.boolean(),
    prefix: urlOption.string(),
    region: urlOption.string({ pattern: /^[a-z]+-[a-z]+$/, expected: 'a region such as eu-west' }),
    mode: urlOption.oneOf(['fast', 'safe'], { default: 'safe' }),
    passwordEnv: urlOption.environmentVariable(),
    keyEnv: urlOption.environmentVariable({ default: 'DEMO_API_KEY' }),
    holdSeconds: urlOption.seconds({ min: 1, max: 900 }),
    timeoutMs: urlOption.milliseconds({ min: 100, max: 60_000, default: 10_000 }),
    window: urlOption.custom({
      expected: 'window:<seconds>',
      parse: (text) => (/^window:[0-9]{1,6}$/.test(text) ? Number(text.slice(7)) : undefined),
    }),
  },
});

const read = (url: string) => demo.read(new URL(url));

function refusal(url: string): QueueError {
  try {
    read(url);
  } catch (error) {
    return error as QueueError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('defineUrlGrammar: option kinds', () => {
  it('gives every option its default, or undefined, where the URL does not give it', () => {
    expect(read('demo://h/q')).toEqual({
      queueName: 'q',
      scope: undefined,
      options: {
        count: undefined,
        db: 0,
        tls: false,
        fifo: undefined,
        prefix: undefined,
        region: undefined,
        mode: 'safe',
        passwordEnv: undefined,
        keyEnv: 'DEMO_API_KEY',
        holdSeconds: undefined,
        timeoutMs: 10_000,
        window: undefined,
      },
    });
  });

  it('infers each option’s type from its kind', () => {
    const { options } = read('demo://h/q');
    expectTypeOf(options.count).toEqualTypeOf<number | undefined>();
    expectTypeOf(options.db).toEqualTypeOf<number>();
    expectTypeOf(options.tls).toEqualTypeOf<boolean>();
    expectTypeOf(options.mode).toEqualTypeOf<'fast' | 'safe'>();
    expectTypeOf(options.keyEnv).toEqualTypeOf<string>();
    expectTypeOf(options.passwordEnv).toEqualTypeOf<string | undefined>();
    expectTypeOf(options.window).toEqualTypeOf<number | undefined>();
  });

  it('reads each kind from its text', () => {
    expect(
      read(
        'demo://h/q?count=10&db=0&tls=true&fifo=false&prefix=app&region=eu-west&mode=fast&passwordEnv=DEMO_PW&keyEnv=_K2&holdSeconds=900&timeoutMs=100&window=window:60',
      ).options,
    ).toEqual({
      count: 10,
      db: 0,
      tls: true,
      fifo: false,
      prefix: 'app',
      region: 'eu-west',
      mode: 'fast',
      passwordEnv: 'DEMO_PW',
      keyEnv: '_K2',
      holdSeconds: 900,
      timeoutMs: 100,
      window: 60,
    });
  });

  it.each([
    [
      'count',
      ['0', '11', '-1', '1.5', '1e1', ' 1', '0x1', '', 'ten', '9007199254740993'],
      'a whole number from 1 to 10',
    ],
    ['db', ['-1', '1.5', '', '9007199254740993'], 'a whole number'],
    ['tls', ['1', 'yes', 'TRUE', ''], 'true or false'],
    ['prefix', [''], 'a non-empty text'],
    ['region', ['EU-WEST', 'eu west', 'euwest'], 'a region such as eu-west'],
    ['mode', ['FAST', 'quick', ''], 'one of fast, safe'],
    [
      'passwordEnv',
      ['redis_pw', '1PW', 'MY-PW', 'PW=1', '', 'A'.repeat(65)],
      "an environment variable's name",
    ],
    ['holdSeconds', ['0', '901'], 'a whole number of seconds from 1 to 900'],
    ['timeoutMs', ['99', '60001'], 'a whole number of milliseconds from 100 to 60000'],
    ['window', ['window:', 'forever'], 'window:<seconds>'],
  ])('refuses a %s it does not take, by its bounds, saying what it takes', (field, values, expected) => {
    for (const value of values) {
      const error = refusal(`demo://h/q?${field}=${encodeURIComponent(value)}`);
      expect(error, `${field}=${value}`).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
      expect(error.message).toContain(`demo:// option ${field} is invalid: expected ${expected}`);
    }
  });

  it('takes 0 only where the bounds do: the rule is the option’s, not the adapter’s', () => {
    expect(read('demo://h/q?db=0').options.db).toBe(0);
    expect(refusal('demo://h/q?count=0').details).toEqual({ field: 'count' });
  });

  it('refuses an option given twice', () => {
    expect(refusal('demo://h/q?db=1&db=2')).toMatchObject({ details: { field: 'db' } });
  });
});

describe('defineUrlGrammar: what is refused, and what a refusal never says', () => {
  it('refuses an unknown option by naming only a near miss', () => {
    const near = refusal('demo://h/q?tiemoutMs=5');
    expect(near.details).toEqual({ field: 'tiemoutMs', suggestion: 'timeoutMs' });
    const far = refusal('demo://h/q?colour=blue');
    expect(far.details).toEqual({ field: '(not shown)' });
    expect(far.message).not.toContain('colour');
    expect(far.message).toContain('timeoutMs');
  });

  it('refuses a secret given as an option, naming the option (a known word) and where it goes', () => {
    const error = refusal('demo://h/q?APIKEY=sk_live_123456');
    expect(error.details).toEqual({ field: 'APIKEY' });
    expect(error.message).toContain('passwordEnv=');
    expect(error.message).not.toContain('sk_live_123456');
  });

  it.each([
    ['password', 'demo://user:hunter2hunter2@h/q'],
    ['password', 'demo://:hunter2hunter2@h/q'],
    ['username', 'demo://hunter2hunter2@h/q'],
  ])('refuses credentials in the URL (%s) by one rule, echoing none', (field, url) => {
    const error = refusal(url);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    expect(error.message).toBe(
      'demo:// URLs carry no credentials: name the variable that holds the password with passwordEnv=',
    );
  });

  it('never echoes a refused value, whatever the option', () => {
    const secret = fc
      .string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 32 })
      .filter((s) => /^[A-Za-z0-9_]+$/.test(s) && !/demo|option|expected|number|true|false|region/i.test(s));
    fc.assert(
      fc.property(secret, fc.constantFrom(...demo.optionNames), (value, option) => {
        let error: QueueError | undefined;
        try {
          read(`demo://h/q?${option}=${value}-x`);
        } catch (caught) {
          error = caught as QueueError;
        }
        if (error === undefined) return; // a text the option takes (prefix=...): nothing refused
        expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain(value);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a URL of another scheme', () => {
    expect(refusal('other://h/q').details).toEqual({ field: 'url' });
  });
});

describe('defineUrlGrammar: the queue name', () => {
  it('decodes a %-escaped name and refuses a malformed escape', () => {
    expect(read('demo://h/orders%20eu%2Fwest').queueName).toBe('orders eu/west');
    expect(refusal('demo://h/%E0%A4%A')).toMatchObject({ details: { field: 'queueName' } });
    expect(refusal('demo://h/%E0%A4%A').message).toContain('malformed %-escape');
  });

  it('applies the provider’s rule to the decoded name, and names one queue', () => {
    expect(refusal('demo://h/a%3Ab').message).toBe('a demo queue name may not contain ":"');
    expect(refusal('demo://h/a/b').message).toBe(
      'the path of a demo:// URL names one queue: demo://host/orders',
    );
    expect(read('demo://h/2024/b')).toMatchObject({ scope: '2024', queueName: 'b' });
  });

  it('names no queue for a provider URL', () => {
    expect(read('demo://h').queueName).toBe('');
    expect(read('demo://h/').queueName).toBe('');
  });

  it('round-trips any name through queueUrl and read, by one encoding', () => {
    const provider = new URL('demo://h:1?db=2');
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 40 })
          .filter((name) => !name.includes(':') && name !== '.' && name !== '..'),
        (name) => {
          const url = new URL(demo.queueUrl(provider, name));
          expect(read(url.href)).toMatchObject({ queueName: name, options: { db: 2 } });
          expect(decodeQueueName('demo', encodeQueueName(name))).toBe(name);
          expect(demo.providerUrl(url)).toBe('demo://h:1?db=2');
        },
      ),
      { numRuns: 300 },
    );
    expect(demo.queueUrl(provider, 'b', '2024')).toBe('demo://h:1/2024/b?db=2');
    // A path reads these as steps: refused where a URL is made, not silently a provider URL.
    for (const name of ['.', '..']) expect(() => demo.queueUrl(provider, name)).toThrow('"." or ".."');
  });

  it('reads a host-named queue (memory://orders) the same way', () => {
    const local = defineUrlGrammar({
      scheme: 'local',
      queueName: 'host',
      example: 'local://orders',
      credentials: 'remove them',
      options: { n: urlOption.integer() },
    });
    expect(local.read(new URL('local://orders/eu/?n=1'))).toMatchObject({
      queueName: 'orders/eu',
      options: { n: 1 },
    });
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (name) => {
        const url = new URL(local.queueUrl(new URL('local://?n=3'), name));
        expect(local.read(url).queueName).toBe(name);
        expect(local.providerUrl(url)).toBe('local://?n=3');
      }),
      { numRuns: 200 },
    );
  });
});

describe('environment variables', () => {
  it('one rule: upper case, digits and _, not starting with a digit, at most 64', () => {
    for (const name of ['REDIS_PASSWORD', '_X', 'A1', 'A'.repeat(64)])
      expect(isEnvironmentVariableName(name), name).toBe(true);
    for (const name of ['redis_pw', 'Redis_PW', '1A', 'A-B', '', 'A B', 'A'.repeat(65)])
      expect(isEnvironmentVariableName(name), name).toBe(false);
  });

  it('redactUrl shows exactly the names the grammar takes (the bug: redis_pw read, then masked)', () => {
    expect(redactUrl('demo://h/q?passwordEnv=REDIS_PW')).toContain('passwordEnv=REDIS_PW');
    expect(redactUrl('demo://h/q?passwordEnv=redis_pw')).not.toContain('redis_pw');
    expect(refusal('demo://h/q?passwordEnv=redis_pw').details).toEqual({ field: 'passwordEnv' });
  });

  it('envNames lists the variables a URL reads, defaults included, in declared order', () => {
    expect(demo.envNames(new URL('demo://h/q?passwordEnv=PW'))).toEqual(['PW', 'DEMO_API_KEY']);
    expect(demo.envNames(new URL('demo://h/q?keyEnv=OTHER'))).toEqual(['OTHER']);
  });

  it('readEnv reads only the env it is given, refusing unset and empty by naming the variable', () => {
    const where = { scheme: 'demo', option: 'passwordEnv' };
    expect(readEnv('PW', { PW: 's3cret' }, where)).toBe('s3cret');
    for (const env of [{}, { PW: '' }, { PW: undefined }]) {
      expect(() => readEnv('PW', env, where)).toThrow('demo:// option passwordEnv names the variable PW');
    }
    expect(process.env.PATH).toBeTruthy();
    expect(() => readEnv('PATH', {}, where)).toThrow(/PATH/);
  });
});
