import { isQueueError, type QueueError } from '@queueport/core';
import { expect } from 'vitest';

/** The QueueError `run` throws; fails the test if it throws anything else, or nothing. */
export function thrown(run: () => unknown): QueueError {
  try {
    run();
  } catch (error) {
    expect(isQueueError(error), `expected a QueueError, got ${String(error)}`).toBe(true);
    return error as QueueError;
  }
  throw new Error('expected a QueueError, but nothing was thrown');
}

/** The QueueError `promise` rejects with; fails the test if it rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<QueueError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isQueueError(error), `expected a QueueError, got ${String(error)}`).toBe(true);
  return error as QueueError;
}
