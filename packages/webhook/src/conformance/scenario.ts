import fc from 'fast-check';
import { CRASH_POINTS, type CrashPoint } from '../worker';

/** What fast-check chooses for one crash-window run. */
export interface CrashScenario {
  events: number;
  /**
   * Publishes in order; `gapSeconds` passes before each (301 s steps past a 5-minute dedupe
   * window); `delaySeconds` past SQS's 900 s goes through the delay bridge where the driver
   * needs it, so a crash can fall between two hops.
   */
  publishes: Array<{ event: number; gapSeconds: number; delaySeconds: number }>;
  /** Crash the `nth` time any worker reaches `point` for `event`. */
  crashes: Array<{ event: number; point: CrashPoint; nth: number }>;
  workers: number;
  /** Per round: how many workers act at once (clamped to `workers`). */
  rounds: number[];
  /** Events whose first request the receiver answers 503, exercising the retry path. */
  flaky: number[];
}

export const crashScenarioArb: fc.Arbitrary<CrashScenario> = fc.integer({ min: 1, max: 4 }).chain((events) =>
  fc.record({
    events: fc.constant(events),
    publishes: fc.array(
      fc.record({
        event: fc.integer({ min: 0, max: events - 1 }),
        gapSeconds: fc.constantFrom(0, 0, 1, 301),
        delaySeconds: fc.constantFrom(0, 0, 0, 1000),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    crashes: fc.array(
      fc.record({
        event: fc.integer({ min: 0, max: events - 1 }),
        point: fc.constantFrom(...CRASH_POINTS),
        nth: fc.integer({ min: 1, max: 2 }),
      }),
      { maxLength: 4 },
    ),
    workers: fc.integer({ min: 1, max: 3 }),
    rounds: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 6 }),
    flaky: fc.uniqueArray(fc.integer({ min: 0, max: events - 1 }), { maxLength: 2 }),
  }),
);
