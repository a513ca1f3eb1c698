import { inspect, isDeepStrictEqual } from 'node:util';
import { type ErrorCode, isQueueError, type QueueError } from '@queueport/core';

/** A broken promise of the queue contract, phrased for the adapter author who has to fix it. */
export class ConformanceViolation extends Error {
  override readonly name = 'ConformanceViolation';
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceViolation(message);
}

export function checkEqual<T>(actual: T, expected: T, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new ConformanceViolation(`${what}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

/** Runs `operation`, which must fail with a QueueError of `code`; returns that error. */
export async function checkRejects(
  operation: () => Promise<unknown>,
  code: ErrorCode,
  what: string,
): Promise<QueueError> {
  let outcome: unknown;
  try {
    outcome = await operation();
  } catch (error) {
    if (isQueueError(error, code)) return error;
    const got = isQueueError(error)
      ? error.code
      : error instanceof Error
        ? `${error.name}: ${error.message}`
        : show(error);
    throw new ConformanceViolation(`${what}: expected ${code}, got ${got}`);
  }
  throw new ConformanceViolation(`${what}: expected ${code}, but it succeeded (${show(outcome)})`);
}

export function show(value: unknown): string {
  return inspect(value, {
    depth: 4,
    breakLength: Number.POSITIVE_INFINITY,
    maxStringLength: 120,
    maxArrayLength: 20,
  });
}
