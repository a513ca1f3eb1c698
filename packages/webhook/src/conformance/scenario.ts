import fc from 'fast-check';
import { CRASH_POINTS, type CrashPoint } from '../worker';

/** One publish of a scenario. */
export interface ScenarioPublish {
  event: number;
  /** Seconds that pass before it (301 s steps past a 5-minute dedupe window). */
  gapSeconds: number;
  /** Past SQS's 900 s it goes through the delay bridge where the driver needs it. */
  delaySeconds: number;
  /**
   * The payload's version. Publishing an event id again with another version reuses the id for
   * a different payload (another digest): the ledger must refuse it. Default 0.
   */
  variant?: 0 | 1;
}

/** What fast-check chooses for one crash-window run. */
export interface CrashScenario {
  events: number;
  /**
   * Publishes in order, duplicates and reused ids among them, all before the workers start, so
   * copies of one event wait side by side (a crash can also fall between two bridged hops).
   */
  publishes: ScenarioPublish[];
  /** Crash the `nth` time any worker reaches `point` for `event`. */
  crashes: Array<{ event: number; point: CrashPoint; nth: number }>;
  workers: number;
  /** Per round: how many workers act at once (clamped to `workers`). */
  rounds: number[];
  /** Events whose first request the receiver answers 503, exercising the retry path. */
  flaky: number[];
  /**
   * Whether requests are signed (the receiver then verifies them and deduplicates on the signed
   * webhook-id) or not (it deduplicates on Idempotency-Key). Default false.
   */
  signed?: boolean;
}

/**
 * The generator leans towards what is hard to get right: several copies of one event waiting
 * at once (duplicates past the dedupe window), several workers acting in the same round, and
 * crashes and 503s that leave a ledger row behind with its lease lapsed or released, so that
 * the next round's workers race to claim an existing row. Those races are what a non-atomic
 * claim loses, and uniform choices reach them too rarely to catch one at 40 runs.
 */
export const crashScenarioArb: fc.Arbitrary<CrashScenario> = fc
  .integer({ min: 1, max: 4 })
  .chain((events) => {
    const event = fc.integer({ min: 0, max: events - 1 });
    const publish = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          event,
          gapSeconds: fc.constantFrom(0, 0, 1, 301),
          delaySeconds: fc.constantFrom(0, 0, 0, 1000),
          variant: fc.constant<0 | 1>(0),
        }),
      },
      {
        // A copy past the dedupe window: the queue keeps it, the ledger must absorb it.
        weight: 6,
        arbitrary: fc.record({
          event,
          gapSeconds: fc.constant(301),
          delaySeconds: fc.constantFrom(0, 0, 0, 1000),
          variant: fc.constant<0 | 1>(0),
        }),
      },
      {
        // The id reused for another payload, mostly past the dedupe window so the ledger sees it.
        weight: 1,
        arbitrary: fc.record({
          event,
          gapSeconds: fc.constantFrom(0, 301, 301),
          delaySeconds: fc.constantFrom(0, 0, 1000),
          variant: fc.constant<0 | 1>(1),
        }),
      },
    );
    return fc.record({
      events: fc.constant(events),
      publishes: fc.array(publish, { minLength: 1, maxLength: 8 }),
      crashes: fc.array(
        fc.record({
          event,
          // A crash after the claim or after the send leaves a row whose lease lapses.
          point: fc.constantFrom<CrashPoint>(...CRASH_POINTS, 'after-claim', 'after-send'),
          nth: fc.integer({ min: 1, max: 2 }),
        }),
        { maxLength: 4 },
      ),
      workers: fc.constantFrom(1, 2, 3, 3, 3),
      rounds: fc.array(fc.constantFrom(1, 2, 3, 3, 3), { minLength: 1, maxLength: 6 }),
      // A 503 releases the row: its copies then come back together, to a row that exists.
      flaky: fc.oneof(
        { weight: 3, arbitrary: fc.uniqueArray(event, { minLength: 1, maxLength: 2 }) },
        { weight: 1, arbitrary: fc.constant<number[]>([]) },
      ),
      signed: fc.boolean(),
    });
  });
