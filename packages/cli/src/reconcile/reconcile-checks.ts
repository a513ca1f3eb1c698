import type { ReconcileResult } from '@queueport/webhook/reconcile';
import { listSome } from '../migrate/list-some';
import type { CheckResult } from '../report/report-types';

/** What the report says about a run: its budget kept, and every reached event accounted for. */
export function reconcileChecks(result: ReconcileResult, provider?: string): CheckResult[] {
  const withProvider = provider ? { provider } : {};
  const stuck =
    result.missing.length + result.mismatched.length + result.failed.length + result.handoffErrors.length;
  const problems = [
    ...(result.missing.length > 0 ? [`no payload for ${listSome(result.missing, 10)}`] : []),
    ...(result.mismatched.length > 0
      ? [`payload differs from the ledger's digest for ${listSome(result.mismatched, 10)}`]
      : []),
    ...(result.failed.length > 0
      ? [
          `failed: ${listSome(
            result.failed.map((f) => `${f.eventId} (${f.error})`),
            5,
          )}`,
        ]
      : []),
    ...result.handoffErrors.map((error) => `could not hand work to the workers: ${error}`),
  ];
  const handedOver =
    result.mode === 'enqueue'
      ? `${result.enqueued.length} handed to workers in ${result.units} units${result.continuation ? ', the rest of the scan as a continuation' : ''}`
      : `${result.republished.length} republished${result.absorbed.length ? `, ${result.absorbed.length} absorbed by the provider` : ''}`;
  return [
    {
      id: 'reconcile.budget',
      title: 'the run kept to its time budget',
      ...withProvider,
      status: result.durationMs <= result.budgetMs ? 'passed' : 'failed',
      durationMs: result.durationMs,
      detail:
        `${result.durationMs} ms of ${result.budgetMs} ms` +
        (result.longestUnitMs > 0 ? ` (longest unit ${result.longestUnitMs} ms)` : '') +
        (result.pending.length > 0 ? `; ${result.pending.length} left pending for the next run` : '') +
        (result.scanComplete ? '' : '; the scan did not reach the end'),
    },
    {
      id: 'reconcile.republish',
      title: 'every stuck event reached was republished',
      ...withProvider,
      status: stuck > 0 ? 'failed' : 'passed',
      durationMs: result.durationMs,
      detail:
        stuck > 0
          ? `${problems.join('; ')}; ${handedOver}`
          : `${result.eligible.length} stuck; ${handedOver}`,
    },
  ];
}
