import type { QueueError } from '@queueport/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSqsUrl } from '../src';
import { queueUrl, sqsUrls } from '../src/sqs-url';

const parse = (url: string) => parseSqsUrl(new URL(url));

function refusal(url: string): QueueError {
  try {
    parse(url);
  } catch (error) {
    return error as QueueError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('parseSqsUrl: where the queue is', () => {
  it('reads the region as the host and the queue name as the path', () => {
    expect(parse('sqs://eu-west-1/orders.fifo?defaultGroupId=tenant')).toEqual({
      region: 'eu-west-1',
      endpoint: undefined,
      accountId: undefined,
      queueName: 'orders.fifo',
      options: { defaultGroupId: 'tenant' },
    });
    expect(parse('sqs://us-gov-west-1/q').region).toBe('us-gov-west-1');
    expect(parse('sqs://ap-southeast-2/q').region).toBe('ap-southeast-2');
  });

  it('leaves the region to the environment when the host is empty', () => {
    expect(parse('sqs:///orders')).toMatchObject({ region: undefined, queueName: 'orders' });
  });

  it('names no queue for a provider URL', () => {
    expect(parse('sqs://eu-west-1').queueName).toBe('');
    expect(parse('sqs://eu-west-1/').queueName).toBe('');
  });

  it('takes a queue URL with its scheme swapped: the region from the AWS host, the account from the path', () => {
    expect(parse('sqs://sqs.eu-west-1.amazonaws.com/123456789012/orders')).toEqual({
      region: 'eu-west-1',
      endpoint: undefined,
      accountId: '123456789012',
      queueName: 'orders',
      options: {},
    });
    // China's partition has its own domain.
    expect(parse('sqs://sqs.cn-north-1.amazonaws.com.cn/123456789012/orders.fifo')).toMatchObject({
      region: 'cn-north-1',
      accountId: '123456789012',
      queueName: 'orders.fifo',
    });
  });

  it('reads another account from /<12-digit account>/<name> under a region host', () => {
    expect(parse('sqs://eu-west-1/210987654321/shared')).toMatchObject({
      region: 'eu-west-1',
      accountId: '210987654321',
      queueName: 'shared',
    });
  });

  it.each([
    'sqs://eu-west-1/12345/orders',
    'sqs://eu-west-1/1234567890123/orders',
    'sqs://eu-west-1/account/orders',
    'sqs://eu-west-1/123456789012/orders/extra',
    'sqs://eu-west-1/a/b/c',
  ])('refuses a path that is not [account/]name (%s)', (url) => {
    expect(refusal(url)).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'queueName' } });
  });

  it.each([
    ['EU-WEST-1', 'sqs://EU-WEST-1/orders'],
    ['eu_west_1', 'sqs://eu_west_1/orders'],
  ])("refuses a host that has a region name's shape but is none (%s), quoting it", (host, url) => {
    const error = refusal(url);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'region' } });
    expect(error.message).toContain(`"${host}"`);
    // The adapter's urls.check (the CLI's check of a configuration) holds the same rule.
    expect(() => sqsUrls.check(new URL(url))).toThrow(`"${host}" is not a region`);
  });

  it.each([
    ['localhost', 'sqs://localhost/orders'],
    ['127.0.0.1', 'sqs://127.0.0.1/orders'],
    ['sqs.nowhere.amazonaws.com', 'sqs://sqs.nowhere.amazonaws.com/123456789012/orders'],
    ['eu-west-1.queue.amazonaws.com', 'sqs://eu-west-1.queue.amazonaws.com/123456789012/orders'],
    ['AKIAIOSFODNN7EXAMPLE', 'sqs://AKIAIOSFODNN7EXAMPLE/orders'],
  ])(
    'refuses a host that names no region (%s), without quoting it (it may be a pasted secret)',
    (host, url) => {
      const error = refusal(url);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'region' } });
      expect(error.message).toContain('this host (not shown) is not a region');
      expect(error.message).not.toContain(host);
      expect(() => sqsUrls.check(new URL(url))).toThrow('this host (not shown) is not a region');
    },
  );
});

describe('parseSqsUrl: queue names', () => {
  it('accepts letters, digits, "-" and "_", up to 80 of them, and ".fifo" at the end', () => {
    const name = `${'a'.repeat(40)}-_${'Z9'.repeat(19)}`;
    expect(name).toHaveLength(80);
    expect(parse(`sqs://eu-west-1/${name}`).queueName).toBe(name);
    expect(parse('sqs://eu-west-1/Orders_2-eu.fifo').queueName).toBe('Orders_2-eu.fifo');
  });

  it('decodes a %-escaped name before checking it', () => {
    expect(parse('sqs://eu-west-1/%6Frders').queueName).toBe('orders');
  });

  it.each([
    ['81 characters', `sqs://eu-west-1/${'a'.repeat(81)}`],
    ['a dot', 'sqs://eu-west-1/orders.eu'],
    ['.fifo twice', 'sqs://eu-west-1/orders.fifo.fifo'],
    ['only .fifo', 'sqs://eu-west-1/.fifo'],
    ['a space', 'sqs://eu-west-1/orders%20eu'],
    ['an escaped slash', 'sqs://eu-west-1/orders%2Feu'],
    ['a colon', 'sqs://eu-west-1/orders:eu'],
    ['a non-ASCII letter', 'sqs://eu-west-1/caf%C3%A9'],
    ['a malformed %-escape', 'sqs://eu-west-1/%E0%A4%A'],
  ])('refuses a name with %s', (_what, url) => {
    expect(refusal(url)).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'queueName' } });
  });

  // Regression test. The bug was:
  // SQS counts ".fifo" inside the 80 characters (CreateQueue: "1 to 80 in length" for the whole
  // name; moto enforces `[A-Za-z0-9_-]{1,75}\.fifo`), so an 85-character FIFO name passes the
  // parser and only fails later, at the server.
  it('refuses a FIFO name longer than 80 characters with its .fifo', () => {
    expect(parse(`sqs://eu-west-1/${'a'.repeat(75)}.fifo`).queueName).toHaveLength(80);
    expect(refusal(`sqs://eu-west-1/${'a'.repeat(76)}.fifo`)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'queueName' },
    });
  });
});

describe('parseSqsUrl: credentials never come from the URL', () => {
  it.each([
    ['password', 'sqs://AKIAEXAMPLE:wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY@eu-west-1/orders'],
    ['password', 'sqs://:wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY@eu-west-1/orders'],
    ['username', 'sqs://AKIAEXAMPLE@eu-west-1/orders'],
  ])('refuses credentials (%s) and echoes none of them', (field, url) => {
    const error = refusal(url);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    const told = JSON.stringify(error) + String(error);
    expect(told).not.toContain('wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY');
    expect(told).not.toContain('AKIAEXAMPLE');
  });

  it('keeps a password out of every refusal, whatever else is wrong with the URL', () => {
    const secret = fc
      .string({ unit: 'grapheme-ascii', minLength: 12, maxLength: 40 })
      // Only characters a URL carries as they are, and nothing the messages themselves say.
      .filter((s) => /^[A-Za-z0-9]+$/.test(s) && !/sqs|region|queue|endpoint|option|number/i.test(s));
    const broken = fc.constantFrom(
      (pw: string) => `sqs://AKIA:${pw}@eu-west-1/orders`,
      (pw: string) => `sqs://AKIA:${pw}@not_a_region/a/b/c?colour=blue`,
      (pw: string) => `sqs://:${pw}@eu-west-1/orders?endpoint=ftp://x`,
      (pw: string) =>
        `sqs://eu-west-1/orders?endpoint=${encodeURIComponent(`http://AKIA:${pw}@localhost:4566`)}`,
    );
    fc.assert(
      fc.property(secret, broken, (pw, make) => {
        const error = refusal(make(pw));
        expect(error.code).toBe('INVALID_ARGUMENT');
        expect(JSON.stringify(error) + String(error)).not.toContain(pw);
      }),
      { numRuns: 200 },
    );
  });
});

describe('parseSqsUrl: endpoint=', () => {
  it('keeps the origin and a path prefix of an http(s) endpoint, without a trailing slash', () => {
    expect(parse('sqs://us-east-1/q?endpoint=http://127.0.0.1:4566/').endpoint).toBe('http://127.0.0.1:4566');
    expect(
      parse(`sqs://us-east-1/q?endpoint=${encodeURIComponent('https://sqs.local:9324/some/path/')}`).endpoint,
    ).toBe('https://sqs.local:9324/some/path');
    expect(parse('sqs://us-east-1/q?endpoint=HTTP://LOCALHOST').endpoint).toBe('http://localhost');
  });

  it.each([
    ['not a URL', 'not a url'],
    ['empty', ''],
    ['another scheme', 'ftp://127.0.0.1:21'],
    ['sqs itself', 'sqs://us-east-1'],
    ['a username', 'http://user@127.0.0.1:4566'],
    ['a password', 'http://user:hunter2hunter2@127.0.0.1:4566'],
  ])('refuses an endpoint that is %s', (_what, endpoint) => {
    const error = refusal(`sqs://us-east-1/q?endpoint=${encodeURIComponent(endpoint)}`);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'endpoint' } });
    expect(error.message).not.toContain('hunter2hunter2');
  });
});

describe('parseSqsUrl: driver options', () => {
  it('reads the numeric options as numbers and defaultGroupId as it is', () => {
    expect(
      parse('sqs://us-east-1/q.fifo?nativeMaxDelaySeconds=60&maxBodyBytes=65536&defaultGroupId=t-1').options,
    ).toEqual({
      nativeMaxDelaySeconds: 60,
      maxBodyBytes: 65_536,
      defaultGroupId: 't-1',
    });
  });

  it.each(['nativeMaxDelaySeconds', 'maxBodyBytes', 'timeoutMs'])(
    'refuses %s unless it is a whole number, naming the option',
    (field) => {
      for (const value of ['1.5', '-1', '', '1e3', ' 1', '0x10', 'ten', '9007199254740993']) {
        const error = refusal(`sqs://us-east-1/q?${field}=${encodeURIComponent(value)}`);
        expect(error, `${field}=${value}`).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
        expect(error.message).toContain(field);
      }
    },
  );

  it.each([
    // Option names are case-sensitive: a near miss must not silently mean the default.
    ['DefaultGroupId', 'DefaultGroupId=t', 'defaultGroupId'],
    ['maxbodybytes', 'maxbodybytes=1000', 'maxBodyBytes'],
    ['timeoutMS', 'timeoutMS=5', 'timeoutMs'],
    ['endpont', 'endpont=http://x', 'endpoint'],
  ])('refuses the near miss %s by name, saying which option it looks like', (field, query, near) => {
    const error = refusal(`sqs://us-east-1/q?maxBodyBytes=2048&${query}`);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field, suggestion: near } });
    expect(error.message).toContain(`"${field}"`);
    expect(error.message).toContain(`did you mean ${near}?`);
  });

  it.each([
    ['colour', 'colour=blue'],
    ['region', 'region=eu-west-1'],
    ['queue', 'queue=other'],
    ['accessKeyId', 'accessKeyId=AKIAEXAMPLE'],
  ])('refuses the unknown option %s without repeating its name, listing the known ones', (field, query) => {
    const error = refusal(`sqs://us-east-1/q?maxBodyBytes=2048&${query}`);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: '(not shown)' } });
    expect(JSON.stringify(error) + String(error)).not.toContain(field);
    expect(error.message).toContain('defaultGroupId');
  });

  it('refuses an unknown secret-looking option without echoing its name or value', () => {
    const error = refusal('sqs://us-east-1/q?secretAccessKey=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY');
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: '(not shown)' } });
    expect(JSON.stringify(error) + String(error)).not.toMatch(
      /wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY|secretAccessKey/,
    );
  });

  const TOKEN = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
  it.each([
    ['as an unknown option value', `db=${TOKEN}`],
    ['as an option name', `${TOKEN}=1`],
    ['as an option name with no value', TOKEN],
    ['as a number option', `maxBodyBytes=${TOKEN}`],
    ['as timeoutMs', `timeoutMs=${TOKEN}`],
    ['as the endpoint', `endpoint=${TOKEN}`],
    ['as an endpoint credential', `endpoint=${encodeURIComponent(`http://u:${TOKEN}@127.0.0.1:1`)}`],
  ])('never echoes a token typed %s', (_where, query) => {
    const error = refusal(`sqs://us-east-1/q?${query}`);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(error) + String(error) + JSON.stringify(error.details)).not.toContain(TOKEN);
  });

  it('takes timeoutMs as a whole number of milliseconds', () => {
    expect(parse('sqs://us-east-1/q?timeoutMs=2500').options).toEqual({ timeoutMs: 2500 });
  });
});

describe('queueUrl', () => {
  it("names a queue beside the provider's, keeping region, endpoint and options", () => {
    const provider = new URL('sqs://us-east-1?endpoint=http%3A%2F%2F127.0.0.1%3A4566&maxBodyBytes=65536');
    const url = queueUrl(provider, 'orders.fifo');
    expect(parse(url)).toEqual({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:4566',
      accountId: undefined,
      queueName: 'orders.fifo',
      options: { maxBodyBytes: 65_536 },
    });
    expect(parse(queueUrl(provider, 'shared', '123456789012'))).toMatchObject({
      accountId: '123456789012',
      queueName: 'shared',
    });
    // The provider URL itself is left as it was.
    expect(provider.pathname).toBe('');
  });

  it('round-trips any queue name the parser accepts', () => {
    const name = fc
      .string({ unit: fc.constantFrom(...'abcXYZ019-_'), minLength: 1, maxLength: 75 })
      .chain((base) => fc.constantFrom(base, `${base}.fifo`));
    fc.assert(
      fc.property(name, (queueName) => {
        expect(parse(queueUrl(new URL('sqs://eu-west-1'), queueName)).queueName).toBe(queueName);
      }),
      { numRuns: 200 },
    );
  });
});
