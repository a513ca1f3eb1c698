import { AdapterRegistry, type QueueError } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { bullmqAdapter } from '../src';
import { connectFailure } from '../src/redis-connection';
import { shownHost } from '../src/shown-host';

const TOKEN = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

describe('the Redis host in a refusal', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['10.0.12.7', '10.0.12.7'],
    ['localhost', 'localhost'],
    ['redis.internal', 'redis.internal'],
    [
      'my-cluster.abc123.ng.0001.use1.cache.amazonaws.com',
      'my-cluster.abc123.ng.0001.use1.cache.amazonaws.com',
    ],
    ['::1', '[::1]'],
    ['fd00::12:7', '[fd00::12:7]'],
  ])('shows %s, which reads as a plain hostname or IP literal', (host, shown) => {
    expect(shownHost(host)).toBe(shown);
  });

  it.each([
    ['a token pasted as the host', TOKEN],
    ['a token with a prefix', `ghp_${TOKEN}`],
    ['user info', 'user:pw@redis'],
    ['a host past 100 characters', `${'a'.repeat(60)}.${'b'.repeat(60)}`],
    ['a label past 63 characters', 'c'.repeat(64)],
    ['a space', 'redis internal'],
    ['percent-escapes', 'redis%2Einternal'],
    ['nothing', ''],
  ])('hides %s', (_, host) => {
    expect(shownHost(host)).toBe('(host not shown)');
  });

  it('names 127.0.0.1 and its port when the connection is refused', async () => {
    const registry = new AdapterRegistry([bullmqAdapter]);
    const error = await registry.openQueue('bullmq://127.0.0.1:1/q').then(
      () => undefined,
      (e: QueueError) => e,
    );
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(error!.message).toContain('Redis at 127.0.0.1:1 refused the connection');
  });

  it('keeps a token typed as the host out of the message, its details and its cause', () => {
    const error = connectFailure(
      Object.assign(new Error(`connect EHOSTUNREACH ${TOKEN}:6379`), { code: 'EHOSTUNREACH' }),
      { where: `(host not shown):6379`, tls: false, timeoutMs: 1000, secrets: [TOKEN] },
    );
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('(host not shown):6379');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(TOKEN);
    expect(String((error.cause as Error | undefined)?.message ?? '')).not.toContain(TOKEN);
  });

  it('keeps a token typed as the host out of a real refusal', async () => {
    const registry = new AdapterRegistry([bullmqAdapter]);
    const error = await registry.openQueue(`bullmq://${TOKEN}.invalid:1/q?timeoutMs=2000`).then(
      () => undefined,
      (e: QueueError) => e,
    );
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(error!.message).toContain('(host not shown):1');
    expect(error!.message).not.toContain(TOKEN);
  });
});
