import { MAX_DELAY_SECONDS, MAX_RETENTION_SECONDS } from '@queueport/core';
import { invalidArgument } from '../errors';
import { MAX_DURATION_SECONDS } from '../validation';

/**
 * One retention policy for everything queueport keeps about delivered events: the ledger's
 * history, its attempt log and the stored payloads, each by age. Parked events are not in it:
 * they wait for their destination, however long that takes, and are never deleted by age.
 */
export interface RetentionPolicy {
  /**
   * Delivered and failed ledger rows last updated longer ago than this are deleted, with their
   * attempts. The ledger's memory of what was delivered: at least `messageLifetimeSeconds`.
   */
  historySeconds: number;
  /**
   * Attempts that started longer ago than this are deleted, whatever their event's state (the
   * rows themselves stay). At most `historySeconds`, which is also the default.
   */
  attemptsSeconds?: number;
  /**
   * Stored payloads last written longer ago than this are deleted. At least
   * `messageLifetimeSeconds`. Left out: payloads are not pruned.
   */
  payloadsSeconds?: number;
  /**
   * The longest a message can stay in the queue after it was published, so the longest a copy
   * of it can still arrive: the queue's retention, the longest delay, and whatever comes on top
   * in your setup (a stay in the dead letters before a redrive, retries released past the
   * provider's native delay, which start over as new messages). Default
   * `DEFAULT_MESSAGE_LIFETIME_SECONDS`; state your queue's own to prune sooner, or more to be safe.
   */
  messageLifetimeSeconds?: number;
}

/** A policy checked, with its defaults filled in. */
export interface ResolvedRetentionPolicy {
  historySeconds: number;
  attemptsSeconds: number;
  /** Undefined: payloads are not pruned. */
  payloadsSeconds: number | undefined;
  messageLifetimeSeconds: number;
}

/**
 * The portable longest life of a message: published with the longest delay (7 days), then kept
 * unreceived for the longest retention any supported provider offers (14 days): 21 days.
 */
export const DEFAULT_MESSAGE_LIFETIME_SECONDS = MAX_DELAY_SECONDS + MAX_RETENTION_SECONDS;

const FIELDS = ['historySeconds', 'attemptsSeconds', 'payloadsSeconds', 'messageLifetimeSeconds'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Checks a policy against the rules that keep queueport's guarantees, before anything is
 * deleted, and fills in its defaults. Every refusal is INVALID_ARGUMENT naming the field to change.
 */
export function checkRetentionPolicy(policy: RetentionPolicy): ResolvedRetentionPolicy {
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) {
    throw invalidArgument('retention: the policy must be an object such as { historySeconds }', {
      field: 'policy',
    });
  }
  // A misspelt age would otherwise fall back to its default and delete what was meant to be kept.
  const unknown = Object.keys(policy).find((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    throw invalidArgument(
      `retention: the policy takes ${FIELDS.join(', ')}; not ${JSON.stringify(unknown)}`,
      {
        field: unknown,
      },
    );
  }
  const historySeconds = age(policy, 'historySeconds');
  if (historySeconds === undefined) {
    throw invalidArgument('retention: historySeconds is required', { field: 'historySeconds' });
  }
  const attemptsSeconds = age(policy, 'attemptsSeconds') ?? historySeconds;
  const payloadsSeconds = age(policy, 'payloadsSeconds');
  const messageLifetimeSeconds = age(policy, 'messageLifetimeSeconds') ?? DEFAULT_MESSAGE_LIFETIME_SECONDS;

  if (historySeconds < messageLifetimeSeconds) {
    throw invalidArgument(
      `retention: historySeconds (${shown(historySeconds)}) is shorter than messageLifetimeSeconds ` +
        `(${shown(messageLifetimeSeconds)}): a copy of a message can still arrive that long after its ` +
        'event was settled, and once the row is pruned the ledger no longer knows the event, so the copy ' +
        "would be delivered again. Keep the history at least that long, or state the queue's real " +
        'message lifetime in messageLifetimeSeconds',
      { field: 'historySeconds' },
    );
  }
  if (attemptsSeconds > historySeconds) {
    throw invalidArgument(
      `retention: attemptsSeconds (${shown(attemptsSeconds)}) is longer than historySeconds ` +
        `(${shown(historySeconds)}): pruning the history deletes the attempts of the rows it deletes, ` +
        'so no settled event keeps its attempts longer than its row. Give at most the history, or ' +
        "leave attemptsSeconds out to prune attempts at the history's age",
      { field: 'attemptsSeconds' },
    );
  }
  if (payloadsSeconds !== undefined && payloadsSeconds < messageLifetimeSeconds) {
    throw invalidArgument(
      `retention: payloadsSeconds (${shown(payloadsSeconds)}) is shorter than messageLifetimeSeconds ` +
        `(${shown(messageLifetimeSeconds)}): a message can still be on the queue that long after its ` +
        'payload was stored, and a message whose payload was pruned fails closed as missing: it is ' +
        'never delivered. Keep payloads at least that long',
      { field: 'payloadsSeconds' },
    );
  }
  return { historySeconds, attemptsSeconds, payloadsSeconds, messageLifetimeSeconds };
}

/** One age of the policy: a number of seconds from 0 to the ledger's longest, or undefined. */
function age(policy: RetentionPolicy, field: Field): number | undefined {
  const value: unknown = policy[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_DURATION_SECONDS) {
    throw invalidArgument(
      `retention: ${field} must be a number of seconds from 0 to ${MAX_DURATION_SECONDS}`,
      {
        field,
      },
    );
  }
  return value;
}

/** Seconds as the refusal shows them: in days as well when it is whole days, as policies are written. */
function shown(seconds: number): string {
  const days = seconds / 86_400;
  return Number.isInteger(days) && days > 0 ? `${seconds} s, ${days} d` : `${seconds} s`;
}
