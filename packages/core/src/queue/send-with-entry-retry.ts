import { QueueError } from '../errors';
import { type RetryContext, type RetryPolicy, withRetry } from '../retry';

export type EntryFailure = { ok: false; error: QueueError };

export interface EntryRetryOptions {
  driverName: string;
  operation: string;
  normalize: (error: unknown) => QueueError;
  policy: RetryPolicy;
  context?: RetryContext;
  /** What a success must carry besides `ok: true` (a publish's message id); a problem, or undefined. */
  checkSuccess?: (outcome: { ok: true }) => string | undefined;
}

/**
 * An entry's outcome as the driver answered it is outside input: only `ok: true` (passing
 * `checkSuccess`) is a success, an `ok: false` carries its error normalized, and anything else
 * is a failure of the driver's own.
 */
function checkedOutcome<R extends { ok: true }>(
  outcome: unknown,
  options: EntryRetryOptions,
): R | EntryFailure {
  const fault = (what: string): EntryFailure => ({
    ok: false,
    error: new QueueError('INTERNAL', `${options.driverName}: ${options.operation} ${what}`, {
      details: { driverFault: true },
    }),
  });
  try {
    const ok = (outcome as { ok?: unknown } | null)?.ok;
    if (ok === true) {
      const problem = options.checkSuccess?.(outcome as { ok: true });
      return problem === undefined ? (outcome as R) : fault(problem);
    }
    if (ok === false) return { ok: false, error: options.normalize((outcome as { error?: unknown }).error) };
  } catch {
    // A getter or Proxy in the answer: the entry is the driver's fault like any other.
  }
  return fault('answered an entry that is neither a success nor a failure');
}

/**
 * Sends `entries` in one provider call and retries only the entries that failed retryably (or
 * all of them, when the whole call failed retryably). Never throws: an entry that could not be
 * sent gets its error as its outcome. Shared by publish and every settle operation.
 */
export async function sendWithEntryRetry<T, R extends { ok: true }>(
  entries: readonly T[],
  send: (pending: readonly T[]) => Promise<ReadonlyArray<R | EntryFailure>>,
  options: EntryRetryOptions,
): Promise<Array<R | EntryFailure>> {
  const results = new Array<R | EntryFailure | undefined>(entries.length);
  let pending = entries.map((_, index) => index);
  try {
    await withRetry(
      async () => {
        const answered: unknown = await send(pending.map((i) => entries[i]!));
        if (!Array.isArray(answered) || answered.length !== pending.length) {
          throw new QueueError(
            'INTERNAL',
            `${options.driverName}: ${options.operation} returned ${Array.isArray(answered) ? answered.length : 'no list of'} outcomes for ${pending.length} entries`,
          );
        }
        const outcomes = answered.map((outcome) => checkedOutcome<R>(outcome, options));
        const retry: number[] = [];
        let firstRetryable: QueueError | undefined;
        outcomes.forEach((outcome, position) => {
          const index = pending[position]!;
          results[index] = outcome;
          if (!outcome.ok && outcome.error.retryable) {
            retry.push(index);
            firstRetryable ??= outcome.error;
          }
        });
        pending = retry;
        if (firstRetryable) throw firstRetryable;
      },
      options.normalize,
      options.policy,
      options.context,
    );
  } catch (raw) {
    const error = options.normalize(raw);
    for (const index of pending) results[index] = { ok: false, error };
  }
  return results as Array<R | EntryFailure>;
}

/** The error a caller of a whole batch should see: a non-retryable one wins, it will never succeed. */
export function decisiveError(
  outcomes: ReadonlyArray<{ ok: boolean; error?: QueueError }>,
): QueueError | undefined {
  let chosen: QueueError | undefined;
  for (const outcome of outcomes) {
    if (outcome.ok || !outcome.error) continue;
    if (!chosen || (chosen.retryable && !outcome.error.retryable)) chosen = outcome.error;
  }
  return chosen;
}
