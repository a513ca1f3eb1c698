import { describe, expect, it } from 'vitest';
import { isQueueError, normalizeError, QueueError } from '../src/errors';

/**
 * A second evaluation of the error module stands in for the other build (CommonJS beside ESM):
 * its class is a different object with its own prototype, exactly as in an application that
 * loads both builds. (`pnpm check:install` checks the real builds.)
 */
async function otherCopy(): Promise<typeof QueueError> {
  // A query makes it a separate module instance; a variable keeps tsc from resolving the query.
  const specifier = '../src/errors/queue-error.ts?copy';
  const module = (await import(/* @vite-ignore */ specifier)) as {
    QueueError: typeof QueueError;
  };
  return module.QueueError;
}

describe('QueueError across copies of the module', () => {
  it('is a distinct class in the other copy (the premise of these tests)', async () => {
    const Other = await otherCopy();
    expect(Other).not.toBe(QueueError);
    expect(Object.getPrototypeOf(new Other('UNAVAILABLE', 'x'))).not.toBe(QueueError.prototype);
  });

  it('is recognised by isQueueError and instanceof, code included', async () => {
    const Other = await otherCopy();
    const foreign = new Other('UNAVAILABLE', 'provider down');
    expect(isQueueError(foreign)).toBe(true);
    expect(isQueueError(foreign, 'UNAVAILABLE')).toBe(true);
    expect(isQueueError(foreign, 'INTERNAL')).toBe(false);
    expect(foreign instanceof QueueError).toBe(true);
  });

  it('keeps a retryable error from the other copy retryable through normalizeError', async () => {
    const Other = await otherCopy();
    const foreign = new Other('RATE_LIMITED', 'slow down', { retryAfterSeconds: 2 });
    const normalized = normalizeError(foreign, 'driver');
    expect(normalized).toBe(foreign);
    expect(normalized.code).toBe('RATE_LIMITED');
    expect(normalized.retryable).toBe(true);
  });

  it('refuses look-alikes without the brand', () => {
    const lookAlike = Object.assign(new Error('x'), {
      name: 'QueueError',
      code: 'UNAVAILABLE',
      retryable: true,
    });
    expect(isQueueError(lookAlike)).toBe(false);
    expect(lookAlike instanceof QueueError).toBe(false);
    expect(isQueueError(null)).toBe(false);
    expect(isQueueError('QueueError')).toBe(false);
    expect(normalizeError(lookAlike, 'driver').code).toBe('INTERNAL');
  });

  it('leaves subclasses to the prototype chain', async () => {
    class Narrow extends QueueError {}
    expect(new Narrow('INTERNAL', 'x') instanceof Narrow).toBe(true);
    expect(new QueueError('INTERNAL', 'x') instanceof Narrow).toBe(false);
    expect(new Narrow('INTERNAL', 'x') instanceof QueueError).toBe(true);
  });
});
