import type { AnyQueue, PublishInput } from '@queueport/core';
import { messageOf } from './message-of';

/**
 * One entry's publish: `published` (and whether the provider said it absorbed a repeat of its
 * dedupe key, the event id), `failed` with why, or `skipped` (not tried: `stop` said so).
 */
export type IsolatedOutcome =
  | { kind: 'published'; duplicate: boolean }
  | { kind: 'failed'; error: string }
  | { kind: 'skipped' };

/**
 * One batch; if it fails, each on its own (an entry the batch did enqueue is absorbed by the
 * provider's dedupe or, failing that, by the ledger), so one bad event cannot hold up the rest.
 * `stop` is asked before each entry published on its own. Republishing (reconcile, a resumed
 * destination) goes through here, so a duplicate is reported the same way everywhere.
 */
export async function publishIsolated(
  queue: AnyQueue,
  inputs: readonly PublishInput[],
  stop: () => boolean = () => false,
): Promise<IsolatedOutcome[]> {
  if (inputs.length === 0) return [];
  try {
    const receipts = await queue.publishBatch(inputs);
    return receipts.map((receipt) => ({ kind: 'published', duplicate: receipt.duplicate }));
  } catch {
    // Isolated below.
  }
  const outcomes: IsolatedOutcome[] = [];
  for (const input of inputs) {
    if (stop()) {
      outcomes.push({ kind: 'skipped' });
      continue;
    }
    try {
      outcomes.push({ kind: 'published', duplicate: (await queue.publish(input)).duplicate });
    } catch (error) {
      outcomes.push({ kind: 'failed', error: messageOf(error) });
    }
  }
  return outcomes;
}
