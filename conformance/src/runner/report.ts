import type { Capabilities } from '@queueport/core';

export type PropertyStatus = 'passed' | 'failed' | 'skipped';

export interface PropertyResult {
  id: string;
  title: string;
  status: PropertyStatus;
  /** Why it was skipped. */
  reason?: string;
  runs: number;
  durationMs: number;
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
  durationMs: number;
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
