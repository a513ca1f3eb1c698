import { canonicalJson, type JsonValue } from '@queueport/core';
import type { IdempotencyScope, IdempotencyStore } from './idempotency-store';
import { MAX_BODY_BYTES } from './queue-rules';
import { SimulatorError } from './simulator-error';

export interface Outcome<T> {
  data: T;
  /** The remembered answer of an earlier request with the same key and the same canonical request. */
  replayed: boolean;
}

/**
 * `run` once per idempotency key: a repeat of the same canonical request within the window gets
 * the first answer back and runs nothing; the key with another request is IDEMPOTENCY_CONFLICT.
 * Without a key every call runs.
 */
export function idempotently<T>(
  store: IdempotencyStore,
  scope: IdempotencyScope,
  key: string | undefined,
  request: Readonly<Record<string, unknown>>,
  now: number,
  run: () => T,
): Outcome<T> {
  if (key === undefined) return { data: run(), replayed: false };
  const fingerprint = canonicalJson(request as JsonValue, { maxBytes: MAX_BODY_BYTES });
  const decision = store.lookup(scope, key, fingerprint, now);
  if (decision.kind === 'replay') return { data: decision.data as T, replayed: true };
  if (decision.kind === 'conflict') {
    throw new SimulatorError(
      'IDEMPOTENCY_CONFLICT',
      'this idempotency_key was used within the last 24 hours for a different request',
      {
        hint: 'use a new idempotency_key for a new request; resend the original request unchanged to retry it',
      },
    );
  }
  const data = run();
  store.remember(scope, key, fingerprint, data, now);
  return { data, replayed: false };
}
