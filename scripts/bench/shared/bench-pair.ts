import type { Queue } from '@queueport/core';
import type { OtelAware, PairScenario, Sample, ScenarioText, Side } from '../runner';

/**
 * A pair over a bench opened once per scenario: the sides get it once it is set up, and the
 * scenario is skipped, with the bench's reason, where its provider is unreachable.
 */
export function benchPair<B extends { close(): Promise<void> }>(
  text: ScenarioText & OtelAware,
  open: (quick: boolean) => Promise<B | { skipped: string }>,
  detail: (bench: B) => string,
  sides: (bench: B) => { subject: Side; baseline: Side },
): PairScenario {
  return {
    kind: 'pair',
    ...text,
    async open({ quick }) {
      const bench = await open(quick);
      if ('skipped' in bench) return bench;
      return { detail: detail(bench), ...sides(bench), close: () => bench.close() };
    },
  };
}

/** Where the adapter's admin makes each round a queue of its own. */
export interface FreshQueues {
  /** The portable Queue over a fresh queue, created by the adapter's admin; `drop` closes and deletes it. */
  freshQueue(): Promise<{ queue: Queue; drop(): Promise<void> }>;
}

/** Runs `work` on a fresh queue of its own, and deletes the queue after, whatever happened. */
export async function onFreshQueue(
  bench: FreshQueues,
  work: (queue: Queue) => Promise<Sample>,
): Promise<Sample> {
  const { queue, drop } = await bench.freshQueue();
  try {
    return await work(queue);
  } finally {
    await drop();
  }
}
