/**
 * The shape of scripts/bench/results.json. BENCHMARKS.md is rendered from this file alone, so
 * everything the page says (descriptions included) has to be in it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { toBiomeJson } from '../json/biome-layout';
import type { ScenarioText } from './runner';

export const RESULTS_PATH = new URL('./results.json', import.meta.url);

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
}

export interface Results {
  machine: Machine;
  date: string;
  run: { rounds: number; quick: boolean; only: string[] | null; seconds: number };
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
  writeFileSync(RESULTS_PATH, formatResults(results));
}

export function readResults(): Results {
  return JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as Results;
}
