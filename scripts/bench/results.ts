/**
 * The shape of scripts/bench/results.json (results-otel.json for `--otel`). BENCHMARKS.md
 * (BENCHMARKS-otel.md) is rendered from this file alone, so everything the page says
 * (descriptions included) has to be in it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { toBiomeJson } from '../json/biome-layout';
import type { ScenarioText } from './runner';

/** The file a run writes; `--otel` has one of its own, so it never overwrites the main results. */
export function resultsFile(otel: boolean): string {
  return otel ? 'scripts/bench/results-otel.json' : 'scripts/bench/results.json';
}

export function resultsPath(otel: boolean): URL {
  return new URL(otel ? './results-otel.json' : './results.json', import.meta.url);
}

export interface Machine {
  cpus: number;
  model: string;
  node: string;
  platform: string;
  /** os.loadavg()[0] before the first scenario and after the last: a busy machine shows here. */
  loadavgBefore: number;
  loadavgAfter: number;
}

export interface PairRound {
  order: 'subject-first' | 'baseline-first';
  subjectOps: number;
  baselineOps: number;
  subjectPerSec: number;
  baselinePerSec: number;
  ratio: number;
  subjectCpuUsPerOp: number;
  baselineCpuUsPerOp: number;
}

/** The backlog drain's numbers: a measurement of one run, not a ratio of two loops. */
export interface DrainMeasurement {
  messages: number;
  concurrency: number;
  publishMs: number;
  drainMs: number;
  /** heapUsed after a forced GC, so garbage does not count: what the queue still holds. */
  heapBeforeMb: number;
  heapAfterDrainMb: number;
  heapAfterWindowMb: number;
  /** heapAfterWindowMb / heapBeforeMb. */
  heapRatio: number;
  /** (heapAfterWindow - heapBefore) / messages: retained bytes per drained message. */
  retainedBytesPerMessage: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** How often a setInterval(…, 10) fired during the drain, and how often it would on an idle loop. */
  timerFires: number;
  timerFiresExpected: number;
}

export interface ScenarioResult extends Partial<DrainMeasurement>, ScenarioText {
  detail?: string;
  /** Why the scenario did not run here; its numbers are then null. */
  skipped?: string;
  /** Medians over the rounds (per-round ops/s, per-round ratio subject/baseline). */
  subjectPerSec: number | null;
  baselinePerSec: number | null;
  ratio: number | null;
  range: [number, number] | null;
  subjectCpuUsPerOp: number | null;
  baselineCpuUsPerOp: number | null;
  rounds?: PairRound[];
  /**
   * In an `--otel` run only: 'subject' ran with OpenTelemetry on and its baseline without;
   * 'built-in' already compares the two and ran unchanged; 'unaffected' has no Queue in its
   * subject and was skipped.
   */
  otel?: 'subject' | 'built-in' | 'unaffected';
}

export interface Results {
  machine: Machine;
  date: string;
  run: {
    rounds: number;
    quick: boolean;
    only: string[] | null;
    seconds: number;
    /** Set by `--otel`: subjects with OpenTelemetry on (the SDK, exporters that drop). */
    otel?: boolean;
  };
  scenarios: ScenarioResult[];
}

export function machineBefore(): Omit<Machine, 'loadavgAfter'> {
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadavgBefore: loadavg(),
  };
}

export function loadavg(): number {
  return Math.round(os.loadavg()[0]! * 100) / 100;
}

/** Biome's JSON layout (`pnpm lint` checks this file too). */
export function formatResults(results: Results): string {
  return toBiomeJson(results);
}

export function writeResults(results: Results): void {
  writeFileSync(resultsPath(results.run.otel === true), formatResults(results));
}

export function readResults(otel = false): Results {
  return JSON.parse(readFileSync(resultsPath(otel), 'utf8')) as Results;
}
