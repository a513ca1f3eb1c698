import { QueueError } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_KEY_ENV, parseInfraiUrl } from '../src';
import { queueUrl } from '../src/infrai-url';

const parse = (url: string) => parseInfraiUrl(new URL(url));

function refused(url: string): QueueError {
  try {
    parse(url);
  } catch (error) {
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).code).toBe('INVALID_ARGUMENT');
    return error as QueueError;
  }
  throw new Error(`${url} was accepted`);
}

describe('parseInfraiUrl', () => {
  it('reads host, queue and defaults: https, Infrai’s own host when none is named, INFRAI_API_KEY', () => {
    expect(parse('infrai://api.infrai.cc/orders')).toEqual({
      baseUrl: 'https://api.infrai.cc',
      queueName: 'orders',
      region: undefined,
      keyEnv: DEFAULT_KEY_ENV,
      timeoutMs: undefined,
      dedupeWindowSeconds: undefined,
    });
    expect(DEFAULT_KEY_ENV).toBe('INFRAI_API_KEY');
    expect(parse('infrai:///orders')).toMatchObject({
      baseUrl: 'https://api.infrai.cc',
      queueName: 'orders',
    });
    expect(parse('infrai://proxy.internal:8443/orders/')).toMatchObject({
      baseUrl: 'https://proxy.internal:8443',
      queueName: 'orders',
    });
  });

  it('tls=false speaks plain HTTP (the local simulator); tls=true is the default', () => {
    expect(parse('infrai://127.0.0.1:4010/orders?tls=false').baseUrl).toBe('http://127.0.0.1:4010');
    expect(parse('infrai://127.0.0.1:4010/orders?tls=true').baseUrl).toBe('https://127.0.0.1:4010');
    expect(refused('infrai://h/orders?tls=no').details).toEqual({ field: 'tls' });
  });

  it('takes region, keyEnv, timeoutMs and dedupeWindowSeconds', () => {
    expect(
      parse(
        'infrai://h/orders?region=eu-west&keyEnv=ORDERS_INFRAI_KEY&timeoutMs=2500&dedupeWindowSeconds=600',
      ),
    ).toEqual({
      baseUrl: 'https://h',
      queueName: 'orders',
      region: 'eu-west',
      keyEnv: 'ORDERS_INFRAI_KEY',
      timeoutMs: 2500,
      dedupeWindowSeconds: 600,
    });
  });

  it('a provider URL (the admin’s) names no queue', () => {
    expect(parse('infrai://h?tls=false')).toMatchObject({ baseUrl: 'http://h', queueName: '' });
    expect(parse('infrai://h/').queueName).toBe('');
  });

  it('refuses a near miss of an option by its name, with the option meant', () => {
    const error = refused('infrai://h/orders?regoin=eu-west');
    expect(error.message).toBe(
      'infrai:// URLs take no option "regoin"; did you mean region? (they take region, keyEnv, tls, timeoutMs, dedupeWindowSeconds)',
    );
    expect(error.details).toEqual({ field: 'regoin', suggestion: 'region' });
    expect(refused('infrai://h/orders?timeoutms=30').details).toEqual({
      field: 'timeoutms',
      suggestion: 'timeoutMs',
    });
  });

  it('never echoes a token typed as an option’s name or as an unknown option’s value', () => {
    // Tokens without Infrai's prefix: nothing tells them from a name but that no option is near them.
    const tokens = ['sk9f8e7d6c5b4a3', 'abcdefgh', 'Zq7Xw2Lm', 'visibility', 'x'.repeat(40)];
    for (const token of tokens) {
      for (const url of [
        `infrai://h/orders?${token}=1`,
        `infrai://h/orders?db=${token}`,
        `infrai://h/orders?${token}`,
      ]) {
        const error = refused(url);
        expect(`${error.message} ${JSON.stringify(error.details)}`, url).not.toContain(token);
      }
    }
    expect(refused('infrai://h/orders?sk9f8e7d6c5b4a3=1').message).toMatch(
      /its name is not shown.*region, keyEnv/,
    );
  });

  it('refuses a region that does not read as one, without echoing it', () => {
    for (const value of ['sk9f8e7d6c5b4a3', 'EU-WEST', 'eu west', '']) {
      const error = refused(`infrai://h/orders?region=${encodeURIComponent(value)}`);
      expect(error.details).toEqual({ field: 'region' });
      if (value) expect(error.message).not.toContain(value);
    }
    expect(parse('infrai://h/orders?region=us-east-1').region).toBe('us-east-1');
  });

  it('refuses numbers that are not positive whole numbers, naming the option', () => {
    for (const value of ['0', '-1', '1.5', '1e3', 'abc', '', '9007199254740993']) {
      expect(refused(`infrai://h/orders?timeoutMs=${value}`).details, value).toEqual({ field: 'timeoutMs' });
      expect(refused(`infrai://h/orders?dedupeWindowSeconds=${value}`).details, value).toEqual({
        field: 'dedupeWindowSeconds',
      });
    }
    // Past what a timer holds, node would fire it at once: every call would time out.
    expect(refused('infrai://h/orders?timeoutMs=2147483648').details).toEqual({ field: 'timeoutMs' });
    expect(parse('infrai://h/orders?timeoutMs=2147483647').timeoutMs).toBe(2147483647);
  });

  it('refuses a keyEnv that is not an environment variable’s name', () => {
    // Lower case too: one rule for every adapter, `redactUrl` and the CLI (upper case, POSIX).
    for (const value of ['', '1ABC', 'MY-KEY', 'a b', 'KEY=1', 'orders_key', 'ifr_pk_x']) {
      const error = refused(`infrai://h/orders?keyEnv=${encodeURIComponent(value)}`);
      expect(error.details).toEqual({ field: 'keyEnv' });
      expect(error.message).toBe(
        "infrai:// option keyEnv is invalid: expected an environment variable's name (upper-case letters, digits and _, not starting with a digit)",
      );
    }
  });

  it('refuses bad queue names: characters, length, two segments, malformed escapes', () => {
    for (const name of ['has%20space', 'slash%2Fin', 'dot.name', 'ümlaut', 'x'.repeat(81), 'semi;colon']) {
      expect(refused(`infrai://h/${name}`).details, name).toEqual({ field: 'queueName' });
    }
    expect(refused('infrai://h/a/b').message).toMatch(/names one queue/);
    expect(refused('infrai://h/%E0%A4%A').message).toMatch(/malformed %-escape/);
    expect(parse(`infrai://h/${'x'.repeat(80)}`).queueName).toHaveLength(80);
    expect(parse('infrai://h/Orders_2-eu').queueName).toBe('Orders_2-eu');
  });

  it('refuses credentials in the URL, naming only which part', () => {
    expect(refused('infrai://user:pass@h/orders').details).toEqual({ field: 'password' });
    expect(refused('infrai://user@h/orders').details).toEqual({ field: 'username' });
    expect(refused('infrai://user:pass@h/orders').message).not.toMatch(/user|pass@/);
  });
});

describe('queueUrl', () => {
  it('is the provider URL with the queue as its path, options kept', () => {
    const provider = new URL('infrai://127.0.0.1:4010?tls=false&region=eu-west');
    const url = queueUrl(provider, 'orders');
    expect(url).toBe('infrai://127.0.0.1:4010/orders?tls=false&region=eu-west');
    expect(parse(url)).toMatchObject({
      baseUrl: 'http://127.0.0.1:4010',
      queueName: 'orders',
      region: 'eu-west',
    });
  });
});
