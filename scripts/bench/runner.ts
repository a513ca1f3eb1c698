/**
 * The one runner every scenario shares: a warm-up round, then rounds in which subject and
 * baseline take turns going first, so slow drift (a neighbour's job, thermal throttling, the
 * heap growing) hits both sides alike instead of always the one that runs second.
 */
import { performance } from 'node:perf_hooks';
import type { PairRound, ScenarioResult } from './results';
import type { Target } from './targets';

export interface BenchConfig {
  rounds: number;
  /** Small sizes: a smoke test that the scenarios still run, not a measurement. */
  quick: boolean;
  /** Subjects with OpenTelemetry on (shared/bench-telemetry.ts), baselines raw. */
  otel: boolean;
}

/** What one side did in one round: operations, wall time, and the process's CPU time. */
export interface Sample {
  ops: number;
  ms: number;
  cpuUs: number;
}

/** One side of a pair; `label` keeps event ids distinct across rounds. */
export type Side = (label: string) => Promise<Sample>;

export interface PairSession {
  subject: Side;
  baseline: Side;
  /** Versions and settings worth printing beside the numbers (database version, pragmas). */
  detail?: string;
  close(): Promise<void>;
}

export interface ScenarioText {
  name: string;
  /** One sentence for BENCHMARKS.md: what is compared with what, and why that baseline. */
  description: string;
  subject: string;
  baseline: string;
  /** What the scenario is asked to reach. */
  targets?: readonly Target[];
  /**
   * Where the subject's time still goes beyond its baseline's, measured, and what would remove
   * it: the report prints it beside any target the run missed.
   */
  remains?: string;
}

/** The text every result repeats from its scenario, so the report needs nothing else. */
export function scenarioText(scenario: ScenarioText): ScenarioText {
  const { name, description, subject, baseline, targets, remains } = scenario;
  return {
    name,
    description,
    subject,
    baseline,
    ...(targets ? { targets } : {}),
    ...(remains ? { remains } : {}),
  };
}

/**
 * What `--otel` does with a scenario. 'subject': its subject runs the portable Queue (or the
 * DeliveryWorker) and takes its options from shared/bench-telemetry.ts, so OpenTelemetry is on
 * there and the baseline stays raw. 'built-in': the scenario already compares telemetry on with
 * off, and runs unchanged. Absent: the subject has no Queue (a ledger, a bare driver), so
 * telemetry changes nothing and --otel skips it.
 */
export type OtelRole = 'subject' | 'built-in';

export interface OtelAware {
  otel?: OtelRole;
}

export interface PairScenario extends ScenarioText, OtelAware {
  kind: 'pair';
  /** Sets up what lives across rounds, or says why the scenario cannot run here. */
  open(config: BenchConfig): Promise<PairSession | { skipped: string }>;
}

export interface MeasurementScenario extends ScenarioText, OtelAware {
  kind: 'measurement';
  run(config: BenchConfig): Promise<ScenarioResult>;
}

export type Scenario = PairScenario | MeasurementScenario;

/**
 * Times `work` (which returns how many operations it did). CPU is the whole process's, so an
 * in-process receiver or database driver thread counts against the side that made it work.
 */
export async function timed(work: () => Promise<number>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const ops = await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ops, ms, cpuUs: used.user + used.system };
}

export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const perSecond = (s: Sample): number => (s.ops * 1000) / s.ms;
const cpuPerOp = (s: Sample): number => s.cpuUs / s.ops;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

export function skippedResult(scenario: ScenarioText, reason: string): ScenarioResult {
  return {
    ...scenarioText(scenario),
    skipped: reason,
    subjectPerSec: null,
    baselinePerSec: null,
    ratio: null,
    range: null,
    subjectCpuUsPerOp: null,
    baselineCpuUsPerOp: null,
  };
}

export async function runPair(scenario: PairScenario, config: BenchConfig): Promise<ScenarioResult> {
  progress(`${scenario.name}: setting up`);
  const session = await scenario.open(config);
  if ('skipped' in session) {
    progress(`${scenario.name}: skipped: ${session.skipped}`);
    return skippedResult(scenario, session.skipped);
  }
  const rounds: PairRound[] = [];
  try {
    for (let round = 0; round <= config.rounds; round++) {
      // Odd rounds (and the warm-up) run the subject first, even rounds the baseline first.
      const subjectFirst = round % 2 === 0;
      const order = subjectFirst ? (['subject', 'baseline'] as const) : (['baseline', 'subject'] as const);
      const samples: Partial<Record<'subject' | 'baseline', Sample>> = {};
      for (const side of order) samples[side] = await session[side](`${side[0]}${round}`);
      const subject = samples.subject!;
      const baseline = samples.baseline!;
      const ratio = perSecond(subject) / perSecond(baseline);
      const label = round === 0 ? 'warm-up' : `round ${round}/${config.rounds}`;
      progress(
        `${scenario.name} ${label} (${subjectFirst ? 'subject first' : 'baseline first'}): ` +
          `subject ${fmt(perSecond(subject))}/s, baseline ${fmt(perSecond(baseline))}/s, ratio ${ratio.toFixed(3)}`,
      );
      if (round === 0) continue;
      rounds.push({
        order: subjectFirst ? 'subject-first' : 'baseline-first',
        subjectOps: subject.ops,
        baselineOps: baseline.ops,
        subjectPerSec: Math.round(perSecond(subject)),
        baselinePerSec: Math.round(perSecond(baseline)),
        ratio: round3(ratio),
        subjectCpuUsPerOp: round1(cpuPerOp(subject)),
        baselineCpuUsPerOp: round1(cpuPerOp(baseline)),
      });
    }
  } finally {
    await session.close();
  }
  const ratios = rounds.map((r) => r.ratio);
  return {
    ...scenarioText(scenario),
    ...(session.detail ? { detail: session.detail } : {}),
    subjectPerSec: Math.round(median(rounds.map((r) => r.subjectPerSec))),
    baselinePerSec: Math.round(median(rounds.map((r) => r.baselinePerSec))),
    ratio: round3(median(ratios)),
    range: [Math.min(...ratios), Math.max(...ratios)],
    subjectCpuUsPerOp: round1(median(rounds.map((r) => r.subjectCpuUsPerOp))),
    baselineCpuUsPerOp: round1(median(rounds.map((r) => r.baselineCpuUsPerOp))),
    rounds,
  };
}

export const round1 = (n: number): number => Math.round(n * 10) / 10;
export const round3 = (n: number): number => Math.round(n * 1000) / 1000;
