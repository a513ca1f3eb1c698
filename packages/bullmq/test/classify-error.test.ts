import { normalizeError } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { classifyBullmqError } from '../src/classify-error';

const classify = (error: unknown) => normalizeError(error, 'bullmq:q', classifyBullmqError);
const withCode = (message: string, code: unknown) => Object.assign(new Error(message), { code });

// What BullMQ and ioredis throw, in the port's terms: the driver hands these outcomes on as they are.
describe('BullMQ and ioredis failures in the port terms', () => {
  it.each([-1, -2, -3, -6])('reads BullMQ lock code %i as LEASE_LOST', (code) => {
    expect(classify(withCode('Missing lock for job 1. moveToFinished', code))).toMatchObject({
      code: 'LEASE_LOST',
      retryable: false,
    });
  });

  it.each([
    new Error('Connection is closed.'),
    Object.assign(new Error('Reached the max retries per request limit (which is 20).'), {
      name: 'MaxRetriesPerRequestError',
    }),
    new Error('LOADING Redis is loading the dataset in memory'),
    withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'),
  ])('reads a connection that is down as retryable UNAVAILABLE (%s)', (error) => {
    expect(classify(error)).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
  });

  it('reads refused credentials as UNAUTHORIZED, without the reply text', () => {
    const error = classify(new Error('WRONGPASS invalid username-password pair or user is disabled.'));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(error.cause).toBeUndefined();
  });

  it('leaves anything else to the port as INTERNAL, naming the driver', () => {
    expect(classify(withCode('Unknown code -9 error for 1.', -9))).toMatchObject({ code: 'INTERNAL' });
    expect(classify(new Error('boom')).message).toContain('bullmq:q');
  });
});
