import { AdapterRegistry, QueueError } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { parseRabbitmqUrl, rabbitmqAdapter, rabbitmqUrls } from '../src';

const parse = (url: string, env: Record<string, string | undefined> = {}) =>
  parseRabbitmqUrl(new URL(url), env);

function refusal(url: string, env: Record<string, string | undefined> = {}): QueueError {
  try {
    parse(url, env);
  } catch (error) {
    return error as QueueError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('rabbitmq:// URLs', () => {
  it('reads where the broker is, the queue, the vhost, the user and the bounds', () => {
    const parsed = parse(
      'rabbitmq://mq.example.com:5673/orders%20eu?vhost=prod&user=svc&passwordEnv=RMQ_PW&tls=true&timeoutMs=2500&maxReceives=7',
      { RMQ_PW: 'correct-horse-battery' },
    );
    expect(parsed).toMatchObject({
      queueName: 'orders eu',
      host: 'mq.example.com',
      port: 5673,
      vhost: 'prod',
      user: 'svc',
      password: 'correct-horse-battery',
      tls: true,
      timeoutMs: 2500,
      maxReceives: 7,
    });
    expect(parsed.secrets).toEqual(['correct-horse-battery']);
  });

  it('defaults: port 5672 (5671 with TLS), vhost /, user guest with its well-known password, no redrive', () => {
    const parsed = parse('rabbitmq://127.0.0.1/orders');
    expect(parsed).toMatchObject({ port: 5672, vhost: '/', user: 'guest', password: 'guest', tls: false });
    expect(parsed.maxReceives).toBeUndefined();
    // guest's password is no secret: masking the word would garble every message.
    expect(parsed.secrets).toEqual([]);
    expect(parse('rabbitmq://h/q?tls=true').port).toBe(5671);
  });

  it('refuses a password or a user in the URL, and a password option, never quoting the value', () => {
    for (const url of [
      'rabbitmq://guest:hunter2-secret@127.0.0.1/orders',
      'rabbitmq://hunter2-secret@127.0.0.1/orders',
      'rabbitmq://127.0.0.1/orders?password=hunter2-secret',
    ]) {
      const error = refusal(url);
      expect(error.code, url).toBe('INVALID_ARGUMENT');
      expect(error.message).not.toContain('hunter2-secret');
    }
  });

  it('reads the password only from the variable passwordEnv names; another user than guest must name one', () => {
    const error = refusal('rabbitmq://127.0.0.1/orders?passwordEnv=RMQ_MISSING', {});
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('RMQ_MISSING'),
    });
    expect(refusal('rabbitmq://127.0.0.1/orders?user=svc')).toMatchObject({
      details: { field: 'passwordEnv' },
    });
    expect(rabbitmqUrls.envNames(new URL('rabbitmq://h/q?passwordEnv=RMQ_PW'))).toEqual(['RMQ_PW']);
  });

  it('refuses the broker’s own names, bad bounds, unknown options and a second path segment', () => {
    for (const [url, field] of [
      ['rabbitmq://h/amq.gen-x', 'queueName'],
      [`rabbitmq://h/${'q'.repeat(201)}`, 'queueName'],
      ['rabbitmq://h/q?timeoutMs=50', 'timeoutMs'],
      ['rabbitmq://h/q?maxReceives=0', 'maxReceives'],
      ['rabbitmq://h/q?vhots=x', 'vhots'],
      ['rabbitmq://h/test/orders', 'queueName'],
    ] as const) {
      expect(refusal(url), url).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    }
  });

  it('makes provider and queue URLs that keep the options', () => {
    const queue = new URL('rabbitmq://h:5672/orders?vhost=prod&user=guest');
    const provider = rabbitmqUrls.providerUrl(queue);
    expect(provider).toBe('rabbitmq://h:5672?vhost=prod&user=guest');
    expect(rabbitmqUrls.queueUrl(new URL(provider), 'invoices eu')).toBe(
      'rabbitmq://h:5672/invoices%20eu?vhost=prod&user=guest',
    );
  });

  it('never shows the password when nothing listens', async () => {
    const registry = new AdapterRegistry([rabbitmqAdapter]);
    const secret = 'never-print-this-9f2c';
    // Nothing listens on port 1: the open fails, and its error must not carry the password.
    const error: unknown = await registry
      .openQueue('rabbitmq://127.0.0.1:1/orders?user=svc&passwordEnv=RMQ_PW&timeoutMs=500', {
        env: { RMQ_PW: secret },
        retry: { maxAttempts: 1 },
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(QueueError);
    const failure = error as QueueError;
    expect(failure.code).toBe('UNAVAILABLE');
    expect(JSON.stringify({ message: failure.message, details: failure.details })).not.toContain(secret);
  });
});
