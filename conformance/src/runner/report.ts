import type { Capabilities } from '@queueport/core';

export type PropertyStatus = 'passed' | 'failed' | 'skipped';

export interface PropertyResult {
  id: string;
  title: string;
  status: PropertyStatus;
  /** Why it was skipped; `interrupted` when the run's signal stopped it or it never started. */
  reason?: string;
  runs: number;
  /** Wall time of this property, its cleanup included. */
  durationMs: number;
  /** Set when it overran its budget (`propertyTimeoutMs`) and was stopped. */
  timedOut?: true;
  /** Checks it could not make on this harness, and why (a provider that reports a null depth). */
  notes?: string[];
  /** Replays this property exactly: `--seed <seed> --path <path> --only <id>`. */
  seed: number;
  path?: string;
  /** The shrunk input that broke the property, printed for people. */
  counterexample?: string;
  /** What the property saw go wrong on the counterexample. */
  error?: string;
}

export interface ConformanceReport {
  harness: string;
  seed: number;
  startedAt: string;
  /** Wall time of the whole run, the probe and every cleanup included. */
  durationMs: number;
  /** The budget each property had (`propertyTimeoutMs`). */
  propertyTimeoutMs: number;
  /** True when the run's signal stopped it: the results after the running one were not run. */
  interrupted: boolean;
  capabilities?: Capabilities;
  results: PropertyResult[];
  summary: { passed: number; failed: number; skipped: number };
}

export function summarize(results: readonly PropertyResult[]): ConformanceReport['summary'] {
  return {
    passed: results.filter((r) => r.status === 'passed').length,
    failed: results.filter((r) => r.status === 'failed').length,
    skipped: results.filter((r) => r.status === 'skipped').length,
  };
}
