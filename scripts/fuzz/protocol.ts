/** What the runner (run.ts) and its worker thread (worker.ts) say to each other. */

export interface TargetInfo {
  file: string;
  name: string;
  minCases: number;
}

export interface LoadReport {
  type: 'loaded';
  targets: TargetInfo[];
  errors: Array<{ file: string; message: string }>;
}

export interface RunRequest {
  type: 'run';
  name: string;
  numRuns: number;
  seed: number;
  /** Replays one counterexample (fast-check's path) instead of a fresh run. */
  path?: string;
  /** Report the input of this case (from 1) before running it: how a hang gets its counterexample. */
  captureCase?: number;
}

export interface CaseMessage {
  type: 'case';
  caseNumber: number;
  input: string;
}

export type TargetStatus = 'passed' | 'failed' | 'hang' | 'crash';

export interface TargetFailure {
  /** property: the predicate failed; untyped: an exception that is not a QueueError; error: the target itself broke. */
  kind: 'property' | 'untyped' | 'error' | 'hang' | 'crash';
  message: string;
  counterexample?: string;
  path?: string | null;
  /** The case (from 1) that hung or crashed, as far as the runner saw. */
  caseNumber?: number;
  /** The input of that case, found by running the target again up to it. */
  input?: string;
}

export interface TargetResult {
  name: string;
  file: string;
  status: TargetStatus;
  minCases: number;
  casesRequested: number;
  casesRun: number;
  shrinks: number;
  outcomes: Record<string, number>;
  durationMs: number;
  seed: number;
  failure?: TargetFailure;
  reproduce: string;
}

export interface ResultMessage {
  type: 'result';
  result: Omit<TargetResult, 'file' | 'minCases' | 'reproduce'>;
}

/** Progress counters the worker bumps in shared memory; the runner's watchdog reads them. */
export const PROGRESS = { started: 0, finished: 1 } as const;
export const PROGRESS_SLOTS = 2;
