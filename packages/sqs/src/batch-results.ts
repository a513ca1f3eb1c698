import type { BatchResultErrorEntry } from '@aws-sdk/client-sqs';
import { QueueError } from '@queueport/core/driver';
import { classifySqsFailure } from './classify-error';

export type EntryResult<T> = { ok: true; value: T } | { ok: false; error: QueueError };

/**
 * One result per entry of an SQS batch call, in entry order. Entries carry their index as Id.
 * An entry SQS answered neither way is a retryable failure, so it is retried or reported and
 * never taken for a success.
 */
export function entryResults<S extends { Id?: string | undefined }, T>(
  count: number,
  successful: readonly S[] | undefined,
  failed: readonly BatchResultErrorEntry[] | undefined,
  where: string,
  read: (entry: S) => T,
): EntryResult<T>[] {
  const results = new Array<EntryResult<T> | undefined>(count);
  for (const entry of successful ?? []) {
    const index = Number(entry.Id);
    if (index >= 0 && index < count) results[index] = { ok: true, value: read(entry) };
  }
  for (const entry of failed ?? []) {
    const index = Number(entry.Id);
    if (index >= 0 && index < count) {
      results[index] = {
        ok: false,
        error: classifySqsFailure(
          {
            code: entry.Code ?? 'Unknown',
            message: entry.Message ?? '',
            senderFault: entry.SenderFault ?? false,
          },
          where,
        ),
      };
    }
  }
  return Array.from(results, (result) => result ?? { ok: false, error: unanswered(where) });
}

function unanswered(where: string): QueueError {
  return new QueueError('UNAVAILABLE', `${where}: SQS answered nothing for this entry`, { retryable: true });
}

/** `[0, 1, ...]` as SQS batch entry ids. */
export function entryId(index: number): string {
  return String(index);
}
