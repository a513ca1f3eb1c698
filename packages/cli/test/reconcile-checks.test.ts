import type { ReconcileResult } from '@queueport/webhook/reconcile';
import { describe, expect, it } from 'vitest';
import { reconcileChecks } from '../src/reconcile/reconcile-checks';

const result = (extra: Partial<ReconcileResult>): ReconcileResult => ({
  runId: 'r',
  mode: 'inline',
  budgetMs: 1_000,
  durationMs: 10,
  scanComplete: true,
  eligible: [],
  republished: [],
  absorbed: [],
  missing: [],
  mismatched: [],
  failed: [],
  handoffErrors: [],
  pending: [],
  enqueued: [],
  continuation: undefined,
  units: 0,
  longestUnitMs: 0,
  leased: 0,
  scheduled: 0,
  ambiguous: [],
  ambiguousComplete: true,
  ...extra,
});

const republishCheck = (r: ReconcileResult) =>
  reconcileChecks(r, 'a').find((c) => c.id === 'reconcile.republish');

describe('reconcileChecks', () => {
  it('passes a run that republished every stuck event within its budget', () => {
    const checks = reconcileChecks(result({ eligible: ['e1'], republished: ['e1'] }), 'a');
    expect(checks.map((c) => [c.id, c.status, c.provider])).toEqual([
      ['reconcile.budget', 'passed', 'a'],
      ['reconcile.republish', 'passed', 'a'],
    ]);
    expect(checks[1]?.detail).toBe('1 stuck; 1 republished');
  });

  it('fails the republish check naming the missing, changed and failed events', () => {
    const check = republishCheck(
      result({
        eligible: ['m', 'c', 't'],
        missing: ['m'],
        mismatched: ['c'],
        failed: [{ eventId: 't', error: 'the payload loader threw: store unavailable' }],
      }),
    );
    expect(check?.status).toBe('failed');
    expect(check?.detail).toContain('no payload for m');
    expect(check?.detail).toContain("payload differs from the ledger's digest for c");
    expect(check?.detail).toContain('failed: t (the payload loader threw: store unavailable)');
  });

  it('fails on work that could not be handed to the workers', () => {
    const check = republishCheck(
      result({
        mode: 'enqueue',
        eligible: ['e1'],
        pending: ['e1'],
        handoffErrors: ['unit 1: queue is closed'],
      }),
    );
    expect(check?.status).toBe('failed');
    expect(check?.detail).toMatch(/could not hand work to the workers: unit 1: queue is closed/);
  });

  it('fails the budget check of a run that overran it, saying what was left', () => {
    const [budget] = reconcileChecks(result({ durationMs: 1_200, pending: ['e2'], scanComplete: false }));
    expect(budget?.status).toBe('failed');
    expect(budget?.detail).toBe(
      '1200 ms of 1000 ms; 1 left pending for the next run; the scan did not reach the end',
    );
  });
});
