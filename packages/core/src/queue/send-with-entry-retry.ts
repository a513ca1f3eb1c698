import { QueueError } from '../errors';
import { type RetryContext, type RetryPolicy, withRetry } from '../retry';

export type EntryFailure = { ok: false; error: QueueError };

export interface EntryRetryOptions {
  driverName: string;
  operation: string;
  normalize: (error: unknown) => QueueError;
  policy: RetryPolicy;
  context?: RetryContext;
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
        const outcomes = await send(pending.map((i) => entries[i]!));
        if (outcomes.length !== pending.length) {
          throw new QueueError(
            'INTERNAL',
            `${options.driverName}: ${options.operation} returned ${outcomes.length} outcomes for ${pending.length} entries`,
          );
        }
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
