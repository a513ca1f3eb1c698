import { type AnyQueue, type PublishInput, payloadDigest, prepareEnvelope } from '@queueport/core';
import type { LedgerRecord } from '@queueport/ledger';
import type { Budget } from './budget';
import { messageOf } from './message-of';
import type { LoadedPayload, PayloadLoader } from './payload-loader';
import { publishIsolated } from './publish-isolated';
import type { ReconcileResult } from './reconcile-result';

type Loaded =
  | { kind: 'ready'; input: PublishInput }
  | { kind: 'missing' }
  | { kind: 'mismatched' }
  | { kind: 'failed'; error: string }
  | { kind: 'late' };

export interface RepublishRequest {
  queue: AnyQueue;
  loadPayload: PayloadLoader;
  /** Events per unit: loaded together, then published in one batch. */
  batch: number;
}

/** Units of `batch`, each loaded together and published in one batch, while the budget lasts. */
export async function republishRecords(
  records: readonly LedgerRecord[],
  request: RepublishRequest,
  budget: Budget,
  result: ReconcileResult,
  progress: (line: string) => void,
): Promise<void> {
  let longestUnit = result.longestUnitMs;
  let longestPublish = 0;
  for (let index = 0; index < records.length; index += request.batch) {
    const unitStart = budget.now();
    if (unitStart + longestUnit > budget.stopAt) return;
    const unit = records.slice(index, index + request.batch);
    const loaded = await loadWithin(unit, request.loadPayload, budget.stopAt - longestPublish - budget.now());
    const ready: { record: LedgerRecord; input: PublishInput }[] = [];
    let late = false;
    unit.forEach((record, i) => {
      const outcome = loaded[i]!;
      if (outcome.kind === 'ready') ready.push({ record, input: outcome.input });
      else if (outcome.kind === 'missing') result.missing.push(record.eventId);
      else if (outcome.kind === 'mismatched') result.mismatched.push(record.eventId);
      else if (outcome.kind === 'failed')
        result.failed.push({ eventId: record.eventId, error: outcome.error });
      else late = true;
    });
    const publishStart = budget.now();
    await publishReady(request.queue, ready, budget, result);
    longestPublish = Math.max(longestPublish, budget.now() - publishStart);
    longestUnit = Math.max(longestUnit, budget.now() - unitStart);
    result.longestUnitMs = Math.round(longestUnit);
    progress(
      `reconcile: ${result.republished.length + result.absorbed.length} of ${records.length} republished`,
    );
    // Loads still out when the budget's reserve began: whatever comes after would not fit either.
    if (late) return;
  }
}

/** Loads a unit's payloads at once; those not back within `ms` are `late` (left running, ignored). */
async function loadWithin(unit: readonly LedgerRecord[], load: PayloadLoader, ms: number): Promise<Loaded[]> {
  if (ms <= 0) return unit.map(() => ({ kind: 'late' }));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Loaded>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'late' }), ms);
  });
  try {
    return await Promise.all(
      unit.map((record) =>
        Promise.race([
          Promise.resolve()
            .then(() => load(record.eventId))
            .then(
              (loaded) => toInput(record, loaded),
              (error: unknown): Loaded => ({
                kind: 'failed',
                error: `the payload loader threw: ${messageOf(error)}`,
              }),
            ),
          late,
        ]),
      ),
    );
  } finally {
    clearTimeout(timer);
  }
}

function toInput(record: LedgerRecord, loaded: LoadedPayload | undefined): Loaded {
  if (loaded === undefined || loaded === null) return { kind: 'missing' };
  if (typeof loaded !== 'object' || typeof loaded.type !== 'string' || !('payload' in loaded)) {
    return { kind: 'failed', error: 'the payload loader returned no { type, payload }' };
  }
  try {
    // The worker would refuse a changed payload under the same id (IDEMPOTENCY_CONFLICT): a
    // person must see it here, and it must not reach the queue.
    if (payloadDigest(loaded.payload) !== record.payloadSha256) return { kind: 'mismatched' };
    const envelope = {
      event_id: record.eventId,
      type: loaded.type,
      payload: loaded.payload,
      ...(loaded.occurred_at !== undefined ? { occurred_at: loaded.occurred_at } : {}),
    };
    // Refused here, one by one, rather than failing the whole unit's batch at publish.
    prepareEnvelope(envelope);
    return { kind: 'ready', input: { envelope } };
  } catch (error) {
    return { kind: 'failed', error: messageOf(error) };
  }
}

/** Publishes a unit and notes each entry in the result; past the deadline the rest is left for the next run. */
async function publishReady(
  queue: AnyQueue,
  ready: readonly { record: LedgerRecord; input: PublishInput }[],
  budget: Budget,
  result: ReconcileResult,
): Promise<void> {
  // Past the deadline itself, not the reserve: the unit was begun in time, and leaving it half
  // published only means the rest is found again by the next run.
  const outcomes = await publishIsolated(
    queue,
    ready.map((entry) => entry.input),
    () => budget.now() >= budget.deadline,
  );
  outcomes.forEach((outcome, i) => {
    const { eventId } = ready[i]!.record;
    if (outcome.kind === 'published')
      (outcome.duplicate ? result.absorbed : result.republished).push(eventId);
    else if (outcome.kind === 'failed') result.failed.push({ eventId, error: outcome.error });
  });
}
