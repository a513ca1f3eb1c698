import { type ConformanceProperty, check, defineProperty, show } from '@queueport/conformance';
import fc from 'fast-check';
import { type EventHistory, tally } from './checker';
import {
  type CrashRunOptions,
  type LedgerFactory,
  runCrashScenario,
  type ScenarioOutcome,
} from './run-scenario';
import { crashScenarioArb } from './scenario';

const REAL_TIME_REASON = 'needs a virtual clock: ledger leases of 10+ s would be waited out for every crash';

const short = (digest: string) => digest.slice(0, 8);

function describeOutcome(outcome: ScenarioOutcome): string {
  const rows = outcome.histories.map((h) => ({
    event: h.eventId,
    verdict: outcome.verdicts.get(h.eventId),
    effects: h.effects,
    ...(h.dedupeKeys.length > 1 ? { dedupedOn: h.dedupeKeys } : {}),
    crashes: h.crashes,
    ...(h.enqueuedDigests.length > 1 || h.refusedDigests.length > 0 ? { conflict: describeConflict(h) } : {}),
    ...(h.overlappingClaims > 0 ? { overlappingClaims: h.overlappingClaims } : {}),
    ledger: h.record
      ? `${h.record.state} after ${h.record.attempts} attempt(s)${h.record.ambiguous ? ', ambiguous' : ''}`
      : 'no row',
  }));
  return show(rows);
}

/** An id reused for another payload: which payloads were queued, which the ledger refused. */
function describeConflict(h: EventHistory): string {
  const kept = h.record ? short(h.record.payloadSha256) : 'none';
  const refused = [...new Set(h.refusedDigests)].map(short);
  const parts = [
    `payloads ${h.enqueuedDigests.map(short).join(', ')}`,
    `ledger kept ${kept}`,
    `refused ${refused.length > 0 ? `${h.refusedDigests.length}x (${refused.join(', ')})` : 'none'}`,
  ];
  if (h.acceptedConflicts > 0) parts.push(`${h.acceptedConflicts} changed-digest claim(s) answered`);
  if (h.leftoverDigests.length > 0) parts.push(`still queued ${h.leftoverDigests.map(short).join(', ')}`);
  return parts.join('; ');
}

/** The promises both properties keep whatever the receiver: the reused id and the lease. */
function judgeConflictsAndLeases(outcome: ScenarioOutcome): void {
  const counts = tally([...outcome.verdicts.values()]);
  check(
    counts['conflict-accepted'] === 0 && counts['conflict-unsettled'] === 0 && counts['double-claimed'] === 0,
    `${counts['conflict-accepted']} conflict-accepted, ${counts['conflict-unsettled']} conflict-unsettled, ` +
      `${counts['double-claimed']} double-claimed: ${describeOutcome(outcome)}`,
  );
}

interface CrashPropertySpec {
  id: string;
  title: string;
  receiver: 'idempotent' | 'ignores-key';
  /** Throws a ConformanceViolation when the observed outcome breaks the promise. */
  judge(outcome: ScenarioOutcome): void;
}

export type CrashWindowOptions = CrashRunOptions;

function crashProperty(
  openLedger: LedgerFactory,
  options: CrashWindowOptions,
  spec: CrashPropertySpec,
): ConformanceProperty {
  return defineProperty({
    id: spec.id,
    title: spec.title,
    runs: { virtual: 40 },
    skipReason: (_caps, timing) => (timing.virtual ? undefined : REAL_TIME_REASON),
    build: (harness) =>
      fc.asyncProperty(crashScenarioArb, async (scenario) =>
        spec.judge(await runCrashScenario(harness, openLedger, scenario, spec.receiver, options)),
      ),
  });
}

/**
 * The crash window, proven: whatever the crash points, duplicates, reused ids and
 * interleavings, every event takes effect exactly once at an idempotent receiver, counted by
 * the business identity in the body. Needs a ledger, so it is built from one.
 */
export function crashWindowProperties(
  openLedger: LedgerFactory,
  options: CrashWindowOptions = {},
): ConformanceProperty[] {
  return [
    crashProperty(openLedger, options, {
      id: 'crash-window',
      title:
        'with crashes at every point, no event is lost and none takes effect twice at an idempotent receiver',
      receiver: 'idempotent',
      judge: (outcome) => {
        const counts = tally([...outcome.verdicts.values()]);
        check(
          counts.lost === 0 && counts.duplicated === 0,
          `${counts.lost} lost, ${counts.duplicated} duplicated: ${describeOutcome(outcome)}`,
        );
        judgeConflictsAndLeases(outcome);
      },
    }),
    crashProperty(openLedger, options, {
      id: 'crash-window-ambiguity',
      title:
        'against a receiver that ignores the key, no event is lost and every duplicate is flagged ambiguous',
      receiver: 'ignores-key',
      judge: (outcome) => {
        const ambiguous = new Set(outcome.reconciliation.ambiguous.map((r) => r.eventId));
        const lost = outcome.histories.filter((h) => outcome.verdicts.get(h.eventId) === 'lost');
        const unflagged = outcome.histories.filter(
          (h) => outcome.verdicts.get(h.eventId) === 'duplicated' && !ambiguous.has(h.eventId),
        );
        check(lost.length === 0, `${lost.length} lost: ${describeOutcome(outcome)}`);
        check(
          unflagged.length === 0,
          `duplicates the reconciliation report does not flag: ${unflagged.map((h) => h.eventId).join(', ')}: ${describeOutcome(outcome)}`,
        );
        judgeConflictsAndLeases(outcome);
      },
    }),
  ];
}
