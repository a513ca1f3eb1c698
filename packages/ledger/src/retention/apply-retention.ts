import type { PayloadStore } from '@queueport/core';
import { hasAttemptLog } from '../attempts/attempt-log';
import type { Ledger } from '../ledger';
import { checkRetentionPolicy, type RetentionPolicy } from './retention-policy';

/** The prunes a policy runs, in the order they run. */
export type RetentionStep = 'attempts' | 'history' | 'payloads';

/** Why a step did not run. */
export type RetentionSkipReason =
  /** attempts: the ledger keeps no attempt log (`hasAttemptLog`). */
  | 'no-attempt-log'
  /** payloads: the policy has `payloadsSeconds` but no payload store was given. */
  | 'no-payload-store'
  /** payloads: a payload store was given but the policy has no `payloadsSeconds`. */
  | 'no-payload-age'
  /** payloads: the store has no `prune` (a bucket lifecycle rule may do the job). */
  | 'store-cannot-prune'
  /** The signal was aborted before the step began. */
  | 'stopped';

export interface RetentionSkip {
  step: RetentionStep;
  reason: RetentionSkipReason;
  /** The same, for people. */
  detail: string;
}

/** What one `applyRetention` deleted, and what it did not do. */
export interface RetentionReport {
  /** Delivered and failed ledger rows deleted, each with whatever attempts it still had. */
  historyRows: number;
  /**
   * Attempts deleted by age. They are pruned before the history, so this counts the attempts of
   * the rows the history prune then deletes too (an attempt starts before its row is settled).
   */
  attempts: number;
  /** Stored payloads deleted. */
  payloads: number;
  /** The steps that did not run, in step order. */
  skipped: RetentionSkip[];
}

export type RetentionProgress =
  | { step: RetentionStep; phase: 'started'; olderThanSeconds: number }
  | { step: RetentionStep; phase: 'finished'; olderThanSeconds: number; deleted: number }
  | ({ phase: 'skipped' } & RetentionSkip);

export interface ApplyRetentionOptions {
  ledger: Ledger;
  /** Where the queue offloads large payloads (`FilePayloadStore`, `S3PayloadStore`), if it does. */
  payloadStore?: Pick<PayloadStore, 'prune'>;
  /** Called as each step starts, finishes or is skipped: each one can take long on a large store. */
  onProgress?: (progress: RetentionProgress) => void;
  /** Aborted: no further step starts (one under way runs to its end); they are reported as skipped. */
  signal?: AbortSignal;
}

/**
 * Applies a retention policy: attempts, then history, then payloads, each by its own age. The
 * policy is checked in full first (`checkRetentionPolicy`), so a refused one deletes nothing.
 * A failure stops at its step and is thrown; every prune deletes in short batches of its own, so
 * what went before it stays done, and running the policy again carries on.
 */
export async function applyRetention(
  policy: RetentionPolicy,
  options: ApplyRetentionOptions,
): Promise<RetentionReport> {
  const resolved = checkRetentionPolicy(policy);
  const { ledger, payloadStore, onProgress, signal } = options;
  const report: RetentionReport = { historyRows: 0, attempts: 0, payloads: 0, skipped: [] };

  const skip = (step: RetentionStep, reason: RetentionSkipReason, detail: string): void => {
    const skipped = { step, reason, detail };
    report.skipped.push(skipped);
    onProgress?.({ phase: 'skipped', ...skipped });
  };
  const run = async (
    step: RetentionStep,
    olderThanSeconds: number,
    prune: (request: { olderThanSeconds: number }) => Promise<number>,
  ): Promise<number> => {
    if (signal?.aborted) {
      skip(step, 'stopped', 'stopped before it began');
      return 0;
    }
    onProgress?.({ step, phase: 'started', olderThanSeconds });
    const deleted = await prune({ olderThanSeconds });
    onProgress?.({ step, phase: 'finished', olderThanSeconds, deleted });
    return deleted;
  };

  if (hasAttemptLog(ledger)) {
    report.attempts = await run('attempts', resolved.attemptsSeconds, (request) =>
      ledger.pruneAttempts(request),
    );
  } else skip('attempts', 'no-attempt-log', 'the ledger keeps no attempt log');

  report.historyRows = await run('history', resolved.historySeconds, (request) => ledger.prune(request));

  const { payloadsSeconds } = resolved;
  if (payloadsSeconds === undefined) {
    if (payloadStore) skip('payloads', 'no-payload-age', 'the policy sets no payloadsSeconds');
  } else if (!payloadStore) {
    skip('payloads', 'no-payload-store', 'no payload store was given');
  } else if (typeof payloadStore.prune !== 'function') {
    skip('payloads', 'store-cannot-prune', 'the payload store has no prune');
  } else {
    const store = payloadStore as Required<Pick<PayloadStore, 'prune'>>;
    report.payloads = await run('payloads', payloadsSeconds, (request) => store.prune(request));
  }
  return report;
}
