import { type ConformanceProperty, check, defineProperty, show } from '@queueport/conformance';
import fc from 'fast-check';
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

interface CrashPropertySpec {
  id: string;
  title: string;
  receiver: 'idempotent' | 'ignores-key';
  /** Throws a ConformanceViolation when the observed outcome breaks the promise. */
  judge(outcome: ScenarioOutcome): void;
}

function crashProperty(openLedger: LedgerFactory, spec: CrashPropertySpec): ConformanceProperty {
  return defineProperty({
    id: spec.id,
    title: spec.title,
    runs: { virtual: 40 },
    skipReason: (_caps, timing) => (timing.virtual ? undefined : REAL_TIME_REASON),
    build: (harness) =>
      fc.asyncProperty(crashScenarioArb, async (scenario) =>
        spec.judge(await runCrashScenario(harness, openLedger, scenario, spec.receiver)),
      ),
  });
}

/**
 * The crash window, proven: whatever the crash points, duplicates and interleavings, every event
 * takes effect exactly once at an idempotent receiver. Needs a ledger, so it is built from one.
 */
export function crashWindowProperties(openLedger: LedgerFactory): ConformanceProperty[] {
  return [
    crashProperty(openLedger, {
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
      },
    }),
    crashProperty(openLedger, {
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
      },
    }),
  ];
}
