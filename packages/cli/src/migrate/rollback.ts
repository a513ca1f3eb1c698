import { setTimeout as sleep } from 'node:timers/promises';
import type { Ledger } from '@queueport/ledger';
import type { CheckResult } from '../report/report-types';
import type { CanaryPath } from './canary-path';
import { type CanarySeams, monotonicNow } from './canary-seams';

/** How often an empty drain looks again, where the provider has no long poll. */
const DRAIN_POLL_MS = 50;

export interface RollbackOptions {
  /** The provider being rolled back: its configured queue, where the application dual-published. */
  to: CanaryPath;
  /** Read only, to tell which drained events the ledger has already seen delivered. */
  ledger?: Ledger;
  /** How long the drain may take. Default 30000. */
  drainMs?: number;
  progress?: (line: string) => void;
}

export interface RollbackResult {
  name: string;
  /** Messages received and acked. */
  drained: number;
  /** Their event ids, in the order drained (repeats included). */
  eventIds: string[];
  /** Drained events the ledger shows delivered: the other provider carried them. */
  deliveredElsewhere: number;
  /** Drained events the ledger has not seen delivered: the other provider must still carry them. */
  undelivered: string[];
  /** What the queue still holds at the end; null where the provider does not say. */
  remaining: number | null;
  /**
   * Bodies that were not queueport envelopes (or failed their checks): never acked as drained.
   * `deadLettered` moved to the provider's dead letters, `leftInQueue` where it cannot move
   * them (they come back when their lease ends, and count in `remaining`).
   */
  invalid: { deadLettered: number; leftInQueue: number; firstReason: string | undefined };
  durationMs: number;
  checks: CheckResult[];
}

/**
 * `--rollback`: the canary publishes nothing to B; B's queue is drained, every message acked
 * without a claim or a send, so the ledger is exactly as it was. The other provider carries the
 * same event ids, and the ledger (only read here) says which drained ones it has delivered.
 */
export function runRollback(options: RollbackOptions): Promise<RollbackResult> {
  return runRollbackWith(options, {});
}

/** `runRollback` on the command's clock: not exported from the package. */
export async function runRollbackWith(
  options: RollbackOptions,
  seams: Pick<CanarySeams, 'now'>,
): Promise<RollbackResult> {
  const now = seams.now ?? monotonicNow;
  const started = now();
  const deadline = started + (options.drainMs ?? 30_000);
  const { queue } = options.to;
  const progress = options.progress ?? (() => {});
  const eventIds: string[] = [];
  const leaseSeconds = Math.min(30, queue.capabilities.leaseSeconds.max);
  const waitSeconds = Math.min(1, queue.capabilities.longPollMaxSeconds);
  let emptyInARow = 0;
  let remaining: number | null = null;
  const invalid: RollbackResult['invalid'] = { deadLettered: 0, leftInQueue: 0, firstReason: undefined };
  // Listened to here, so the Queue's advice to developers (".on('invalid-message', …)") is not
  // what an operator reads; the report says what happened instead.
  const stopListening = queue.on('invalid-message', ({ deadLetter, error }) => {
    if (deadLetter) invalid.deadLettered++;
    else invalid.leftInQueue++;
    invalid.firstReason ??= error.message;
  });
  progress(`migrate --rollback: draining ${options.to.name}`);
  try {
    while (now() < deadline) {
      // Asked first, so an emptied queue ends the drain without a last long poll.
      remaining = options.to.depth ? await options.to.depth() : null;
      if (remaining === 0 || (remaining === null && emptyInARow >= 2)) break;
      const batch = await queue.receive({
        maxMessages: queue.capabilities.batch.receive,
        leaseSeconds,
        waitSeconds,
      });
      if (batch.length > 0) {
        emptyInARow = 0;
        const outcomes = await queue.ackBatch(batch);
        outcomes.forEach((outcome, i) => {
          if (outcome.ok) eventIds.push(batch[i]!.envelope.event_id);
        });
        continue;
      }
      // Held but not receivable (delayed, or leased by someone else): wait for it within the bound.
      emptyInARow++;
      if (waitSeconds === 0) await sleep(DRAIN_POLL_MS);
    }
    if (options.to.depth && remaining !== 0) remaining = await options.to.depth();
  } finally {
    stopListening();
  }

  const distinct = [...new Set(eventIds)];
  const undelivered: string[] = [];
  let deliveredElsewhere = 0;
  for (const id of distinct) {
    const record = options.ledger ? await options.ledger.get(id) : undefined;
    if (record?.state === 'delivered') deliveredElsewhere++;
    else undelivered.push(id);
  }
  const durationMs = Math.round(now() - started);
  const emptied = remaining === 0 || (remaining === null && emptyInARow >= 2);
  return {
    name: options.to.name,
    drained: eventIds.length,
    eventIds,
    deliveredElsewhere,
    undelivered,
    remaining,
    invalid,
    durationMs,
    checks: [
      {
        id: 'migrate.rollback-drained',
        title: 'the provider rolled back was drained, the ledger left untouched',
        provider: options.to.name,
        status: emptied ? 'passed' : 'failed',
        durationMs,
        detail: `${
          emptied
            ? `drained ${eventIds.length} messages (${distinct.length} events, ${deliveredElsewhere} already delivered per the ledger)`
            : `drained ${eventIds.length} messages; ${remaining ?? 'an unknown number'} still held after ${durationMs} ms`
        }${invalidDetail(invalid)}`,
      },
    ],
  };
}

function invalidDetail(invalid: RollbackResult['invalid']): string {
  const parts: string[] = [];
  if (invalid.deadLettered > 0)
    parts.push(`${invalid.deadLettered} not queueport envelopes, moved to the dead letters`);
  if (invalid.leftInQueue > 0)
    parts.push(`${invalid.leftInQueue} not queueport envelopes, left in the queue`);
  return parts.length > 0 ? `; ${parts.join('; ')}` : '';
}
