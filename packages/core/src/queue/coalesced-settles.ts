import { Coalescer } from '../batching';
import type { SettleOutcome } from '../driver';

/**
 * Settle batches of one kind being sent at once. More than one, so a slow provider call does not
 * hold every other settle behind it; few, so what arrives meanwhile waits and forms a fuller
 * batch (SQS: one DeleteMessageBatch of ten, not ten of one).
 */
const SETTLES_IN_FLIGHT = 4;

/**
 * One delivery's settle (an ack, a release, a dead-letter move) joined with the others made in
 * the same turn into calls of up to `batchSize` entries. Each caller gets its own entry's outcome:
 * it resolves, or rejects with that entry's error (LEASE_LOST for a stale receipt, say). A
 * provider that settles one entry per call (`batchSize` 1) is called at once, as before: there
 * is nothing to join, and waiting a turn would only add latency.
 */
export function coalescedSettles<Entry>(
  batchSize: number,
  settle: (entries: Entry[]) => Promise<SettleOutcome[]>,
): (entry: Entry) => Promise<void> {
  if (batchSize <= 1) {
    return async (entry) => {
      const [outcome] = await settle([entry]);
      if (outcome && !outcome.ok) throw outcome.error;
    };
  }
  const coalescer = new Coalescer<Entry, undefined>(
    async (batch) =>
      (await settle(batch)).map((outcome) =>
        outcome.ok ? { ok: true, value: undefined } : { ok: false, error: outcome.error },
      ),
    { maxEntries: batchSize, maxInFlight: SETTLES_IN_FLIGHT },
  );
  return (entry) => coalescer.submit(entry);
}
