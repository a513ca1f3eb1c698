/**
 * What each scenario is asked to reach, kept beside the numbers so the report can say plainly
 * which targets a run met and, for those it did not, which cost stands in the way.
 */
import type { ScenarioResult } from './results';

/** A bound on one of a result's numbers: `atLeast` for ratios, `atMost` for heap and lag. */
export interface Target {
  metric: 'ratio' | 'heapRatio' | 'lagP99Ms';
  atLeast?: number;
  atMost?: number;
}

export interface TargetVerdict {
  target: Target;
  value: number | null;
  /** null when the scenario did not produce the number (skipped, or a quick run's sizes). */
  met: boolean | null;
}

export function verdicts(result: ScenarioResult): TargetVerdict[] {
  return (result.targets ?? []).map((target) => {
    const value = result[target.metric];
    if (typeof value !== 'number') return { target, value: null, met: null };
    const met =
      (target.atLeast === undefined || value >= target.atLeast) &&
      (target.atMost === undefined || value <= target.atMost);
    return { target, value, met };
  });
}

export function describeTarget(target: Target): string {
  const bound = target.atLeast !== undefined ? `≥ ${target.atLeast}` : `≤ ${target.atMost}`;
  return `${target.metric} ${bound}`;
}
