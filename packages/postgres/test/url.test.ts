import type { QueueError } from '@queueport/core';
import { AdapterRegistry } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { parsePostgresUrl, postgresQueueAdapter, postgresUrls } from '../src';

const parse = (url: string, env: Record<string, string | undefined> = {}) =>
  parsePostgresUrl(new URL(url), env);

function refusal(url: string, env: Record<string, string | undefined> = {}): QueueError {
  try {
    parse(url, env);
  } catch (error) {
    return error as QueueError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('pgqueue:// URLs', () => {
  it('reads where the database is, the queue, the schema and the bounds', () => {
    expect(
      parse(
        'pgqueue://db.example.com:6432/orders%20eu?database=app&user=svc&schema=jobs&passwordEnv=PGQ_PW&tls=true&timeoutMs=2500&poolMax=4&pollIntervalMs=200',
        { PGQ_PW: 'correct-horse-battery' },
      ),
    ).toEqual({
      queueName: 'orders eu',
      host: 'db.example.com',
      port: 6432,
      database: 'app',
      user: 'svc',
      schema: 'jobs',
      password: 'correct-horse-battery',
      tls: true,
      timeoutMs: 2500,
      poolMax: 4,
      pollIntervalMs: 200,
    });
  });

  it('defaults: port 5432, database and user postgres, schema queueport_queue, no password, 10 s, 10 connections', () => {
    expect(parse('pgqueue://127.0.0.1/orders')).toMatchObject({
      port: 5432,
      database: 'postgres',
      user: 'postgres',
      schema: 'queueport_queue',
      password: undefined,
      tls: false,
      timeoutMs: 10_000,
      poolMax: 10,
      pollIntervalMs: 500,
    });
  });

  it('refuses a password or a user in the URL, and a password option, never quoting the value', () => {
    for (const url of [
      'pgqueue://postgres:hunter2-secret@127.0.0.1/orders',
      'pgqueue://hunter2-secret@127.0.0.1/orders',
      'pgqueue://127.0.0.1/orders?password=hunter2-secret',
    ]) {
      const error = refusal(url);
      expect(error.code, url).toBe('INVALID_ARGUMENT');
      expect(error.message).not.toContain('hunter2-secret');
    }
  });

  it('reads the password only from the variable passwordEnv names, and refuses an unset one by its name', () => {
    const error = refusal('pgqueue://127.0.0.1/orders?passwordEnv=PGQ_MISSING', {});
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('PGQ_MISSING');
    expect(postgresUrls.envNames(new URL('pgqueue://h/q?passwordEnv=PGQ_PW'))).toEqual(['PGQ_PW']);
  });

  it('refuses a schema that is not a plain identifier, bad bounds, unknown options and a second path segment', () => {
    for (const [url, field] of [
      ['pgqueue://h/q?schema=Bad-Schema', 'schema'],
      ['pgqueue://h/q?schema=a%22%3Bdrop', 'schema'],
      ['pgqueue://h/q?timeoutMs=50', 'timeoutMs'],
      ['pgqueue://h/q?poolMax=0', 'poolMax'],
      ['pgqueue://h/q?databse=x', 'databse'],
      ['pgqueue://h/test/orders', 'queueName'],
    ] as const) {
      expect(refusal(url), url).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    }
  });

  it('makes provider and queue URLs that keep the options', () => {
    const queue = new URL('pgqueue://h:5432/orders?database=test&schema=jobs');
    const provider = postgresUrls.providerUrl(queue);
    expect(provider).toBe('pgqueue://h:5432?database=test&schema=jobs');
    expect(postgresUrls.queueUrl(new URL(provider), 'invoices eu')).toBe(
      'pgqueue://h:5432/invoices%20eu?database=test&schema=jobs',
    );
  });

  it('never shows the password when the server refuses the connection', async () => {
    const registry = new AdapterRegistry([postgresQueueAdapter]);
    const secret = 'never-print-this-9f2c';
    // Nothing listens on port 1: the open fails, and its error must not carry the password.
    const error = await registry
      .openQueue('pgqueue://127.0.0.1:1/orders?passwordEnv=PGQ_PW&timeoutMs=500', {
        env: { PGQ_PW: secret },
        retry: { maxAttempts: 1 },
      })
      .catch((caught: unknown) => caught as QueueError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(
      JSON.stringify({ message: (error as QueueError).message, details: (error as QueueError).details }),
    ).not.toContain(secret);
  });
});
