import { AdapterRegistry } from '@queueport/core';
import { type AdapterDefinition, type Driver, QueueError } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { FakeDriver } from './helpers/fake-driver';

/** An adapter whose opens fail with `failures`, in turn, before one succeeds. */
function flakyAdapter(failures: unknown[]): { adapter: AdapterDefinition; opens: () => number } {
  let opens = 0;
  const adapter: AdapterDefinition = {
    scheme: 'flaky',
    packageName: '@acme/flaky',
    virtualClock: false,
    open(): Driver {
      opens++;
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return new FakeDriver();
    },
  };
  return { adapter, opens: () => opens };
}

const fast = { retry: { baseMs: 1, maxMs: 2 } };

describe('openQueue retries a transient failure of the open', () => {
  it('opens after a 429 and a dropped connection, as any later call would have been retried', async () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const limited = new QueueError('RATE_LIMITED', 'flaky: 429', { retryAfterSeconds: 0 });
    const { adapter, opens } = flakyAdapter([limited, reset]);
    const queue = await new AdapterRegistry([adapter]).openQueue('flaky://host/orders', fast);
    expect(opens()).toBe(3);
    await queue.close();
  });

  it('gives up after the policy’s tries with the open’s own error', async () => {
    const unavailable = () => new QueueError('UNAVAILABLE', 'flaky: down');
    const failures = [unavailable(), unavailable(), unavailable()];
    const last = failures[2];
    const { adapter, opens } = flakyAdapter(failures);
    const error = await new AdapterRegistry([adapter])
      .openQueue('flaky://host/orders', { retry: { ...fast.retry, maxAttempts: 3 } })
      .catch((e: unknown) => e);
    expect(error).toBe(last);
    expect(opens()).toBe(3);
  });

  it('does not retry what is not transient, and throws it unchanged', async () => {
    const refused = new QueueError('NOT_FOUND', 'flaky: no queue named orders');
    const odd = new TypeError('not a function');
    for (const failure of [refused, odd]) {
      const { adapter, opens } = flakyAdapter([failure]);
      const error = await new AdapterRegistry([adapter])
        .openQueue('flaky://host/orders', fast)
        .catch((e) => e);
      expect(error).toBe(failure);
      expect(opens()).toBe(1);
    }
  });
});
