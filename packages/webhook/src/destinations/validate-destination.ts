import { QueueError } from '@queueport/core';
import { resolveRetrySchedule } from '../retry/retry-schedule';
import { compileOptionValidator, withoutUndefined } from '../sender/option-validator';
import type { Destination } from '../sender-types';
import { destinationSchema, MAX_DESTINATION_ID_LENGTH } from './destination-schema';

const checkShape = compileOptionValidator(destinationSchema, {
  root: 'destination',
  prepare: prune,
  subject: (value) => {
    const id = usableId(value);
    return id === undefined ? 'destination' : `destination ${id}`;
  },
  details: (value) => {
    const id = usableId(value);
    return id === undefined ? {} : { destinationId: id };
  },
  label: (field) => {
    const secret = /^secrets\[(\d+)\]$/.exec(field);
    return secret ? `signing secret #${Number(secret[1]) + 1}` : undefined;
  },
});

/**
 * Configuration mistakes caught when a destination is registered, and again before each send:
 * an unparsable URL, a malformed secret, a header the sender owns or that cannot travel, a
 * nonsensical retry policy. The SSRF verdict is not taken here: it depends on the sender's
 * options and on DNS at send time.
 */
export function assertDestination(destination: unknown): asserts destination is Destination {
  checkedDestination(destination);
}

/**
 * The destination, checked, as a frozen copy that owns its arrays and header map: what was
 * checked is what gets used, whatever the caller does to its own object afterwards.
 */
export function checkedDestination(destination: unknown): Destination {
  // A snapshot this function made is frozen all the way down (every leaf is a string, number or
  // boolean), so it cannot have changed since it was checked: a registry's destination, sent
  // again and again, is not validated again.
  if (typeof destination === 'object' && destination !== null && SNAPSHOTS.has(destination)) {
    return destination as Destination;
  }
  const checked = checkShape(destination) as Destination;
  try {
    resolveRetrySchedule(checked.retry);
  } catch (error) {
    if (!(error instanceof QueueError)) throw error;
    throw new QueueError(error.code, `destination ${checked.id}: ${error.message}`, {
      details: { ...error.details, destinationId: checked.id },
    });
  }
  const { secrets, headers, retry, rateLimit, disableAfter, ...rest } = checked;
  const snapshot: Destination = Object.freeze({
    ...rest,
    ...(secrets === undefined ? {} : { secrets: Object.freeze([...secrets]) }),
    ...(headers === undefined ? {} : { headers: Object.freeze({ ...headers }) }),
    ...(retry === undefined ? {} : { retry: Object.freeze({ ...retry }) }),
    ...(rateLimit === undefined ? {} : { rateLimit: Object.freeze({ ...rateLimit }) }),
    ...(disableAfter === undefined ? {} : { disableAfter: Object.freeze({ ...disableAfter }) }),
  });
  SNAPSHOTS.add(snapshot);
  return snapshot;
}

/** The snapshots `checkedDestination` returned: checked, and frozen so they stay as checked. */
const SNAPSHOTS = new WeakSet<object>();

// Unset optional fields may be written as `undefined`; inside `headers` an undefined value is
// a mistake the schema must see.
function prune(destination: unknown): unknown {
  const value = withoutUndefined(destination);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const pruned: Record<string, unknown> = { ...value };
  for (const nested of ['retry', 'rateLimit', 'disableAfter']) {
    if (pruned[nested] !== undefined) pruned[nested] = withoutUndefined(pruned[nested]);
  }
  return pruned;
}

function usableId(value: unknown): string | undefined {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' &&
    id.length > 0 &&
    id.length <= MAX_DESTINATION_ID_LENGTH &&
    !/\p{Cc}/u.test(id)
    ? id
    : undefined;
}
