import type { BatchResultErrorEntry } from '@aws-sdk/client-sqs';
import { QueueError } from '@queueport/core/driver';
import { classifySqsFailure } from './classify-error';

export type EntryResult<T> = { ok: true; value: T } | { ok: false; error: QueueError };

/**
 * One result per entry of an SQS batch call, in entry order. Entries carry their index as Id,
 * and an answer counts for the entry whose Id it repeats exactly (`"00"` or `" 0"` is no
 * entry's). An entry answered neither way, more than once, or with a success `read` cannot
 * use, is a retryable failure: retried or reported, never taken for a success.
 */
export function entryResults<S extends { Id?: string | undefined }, T>(
  count: number,
  successful: readonly S[] | undefined,
  failed: readonly BatchResultErrorEntry[] | undefined,
  where: string,
  read: (entry: S) => T | undefined,
  secrets: readonly string[] = [],
): EntryResult<T>[] {
  const results = new Array<EntryResult<T> | undefined>(count);
  const answers = new Array<number>(count).fill(0);
  const indexOf = (id: unknown): number | undefined => {
    if (typeof id !== 'string' || !/^(0|[1-9][0-9]{0,3})$/.test(id)) return undefined;
    const index = Number(id);
    return index < count ? index : undefined;
  };
  for (const entry of listOf(successful)) {
    const index = indexOf((entry as S | null)?.Id);
    if (index === undefined) continue;
    answers[index]! += 1;
    const value = read(entry);
    results[index] =
      value === undefined
        ? { ok: false, error: unreadable(where, 'an unreadable success') }
        : { ok: true, value };
  }
  for (const entry of listOf(failed)) {
    const index = indexOf((entry as BatchResultErrorEntry | null)?.Id);
    if (index === undefined) continue;
    answers[index]! += 1;
    results[index] = {
      ok: false,
      error: classifySqsFailure(
        {
          code: typeof entry.Code === 'string' ? entry.Code : 'Unknown',
          message: typeof entry.Message === 'string' ? entry.Message : '',
          senderFault: entry.SenderFault === true,
        },
        where,
        secrets,
      ),
    };
  }
  return Array.from(results, (result, index) =>
    answers[index] === 0
      ? { ok: false, error: unreadable(where, 'no answer') }
      : answers[index]! > 1
        ? { ok: false, error: unreadable(where, 'more than one answer') }
        : result!,
  );
}

/** A list the SDK passed on as SQS wrote it: anything but an array holds no entries. */
function listOf<E>(value: readonly E[] | undefined): readonly E[] {
  return Array.isArray(value) ? value : [];
}

function unreadable(where: string, what: string): QueueError {
  return new QueueError('UNAVAILABLE', `${where}: SQS gave ${what} for this entry`, { retryable: true });
}

/** `[0, 1, ...]` as SQS batch entry ids. */
export function entryId(index: number): string {
  return String(index);
}
