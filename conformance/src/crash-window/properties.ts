import fc from 'fast-check';
import { type ConformanceProperty, defineProperty } from '../properties/property';
import { check, show } from '../support';
import { tally } from './checker';
import { type LedgerFactory, runCrashScenario, type ScenarioOutcome } from './run-scenario';
import { crashScenarioArb } from './scenario';

const REAL_TIME_REASON = 'needs a virtual clock: ledger leases of 10+ s would be waited out for every crash';

function describeOutcome(outcome: ScenarioOutcome): string {
  const rows = outcome.histories.map((h) => ({
    event: h.eventId,
    verdict: outcome.verdicts.get(h.eventId),
    effects: h.effects,
    crashes: h.crashes,
    ledger: h.record
      ? `${h.record.state} after ${h.record.attempts} attempt(s)${h.record.ambiguous ? ', ambiguous' : ''}`
      : 'no row',
  }));
  return show(rows);
}

/**
 * The crash window, proven: whatever the crash points, duplicates and interleavings, every event
 * takes effect exactly once at an idempotent receiver. Needs a ledger, so it is built from one.
 */
export function crashWindowProperties(openLedger: LedgerFactory): ConformanceProperty[] {
  const exactlyOnce = defineProperty({
    id: 'crash-window',
    title:
      'with crashes at every point, no event is lost and none takes effect twice at an idempotent receiver',
    runs: { virtual: 40, real: 0 },
    skipReason: (_caps, timing) => (timing.virtual ? undefined : REAL_TIME_REASON),
    build: (harness) =>
      fc.asyncProperty(crashScenarioArb, async (scenario) => {
        const outcome = await runCrashScenario(harness, openLedger, scenario, 'idempotent');
        const counts = tally([...outcome.verdicts.values()]);
        check(
          counts.lost === 0 && counts.duplicated === 0,
          `${counts.lost} lost, ${counts.duplicated} duplicated: ${describeOutcome(outcome)}`,
        );
      }),
  });
  const ambiguity = defineProperty({
    id: 'crash-window-ambiguity',
    title:
      'against a receiver that ignores the key, no event is lost and every duplicate is flagged ambiguous',
    runs: { virtual: 40, real: 0 },
    skipReason: (_caps, timing) => (timing.virtual ? undefined : REAL_TIME_REASON),
    build: (harness) =>
      fc.asyncProperty(crashScenarioArb, async (scenario) => {
        const outcome = await runCrashScenario(harness, openLedger, scenario, 'ignores-key');
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
      }),
  });
  return [exactlyOnce, ambiguity];
}
