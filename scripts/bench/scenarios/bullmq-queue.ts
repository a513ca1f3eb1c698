import { Queue } from '@queueport/core';
import { type PairScenario, type PairSession, timed } from '../runner';
import {
  benchDetail,
  inputs,
  openBullmqBench,
  PUBLISH_CHUNK,
  rawAddBulk,
  rawWorker,
} from '../shared/bullmq-bench';

/** The whole port over BullMQ: what an application sees, the portable Queue's own work included. */
export const bullmqPublish: PairScenario = {
  kind: 'pair',
  name: 'bullmq-publish',
  description:
    "Publishing through the portable Queue over the BullMQ adapter (the Queue's validation, canonical encoding and digest, then the adapter) beside BullMQ's own addBulk of jobs as large.",
  subject: `Queue.publishBatch in ${PUBLISH_CHUNK}s over BullmqDriver`,
  baseline: `bullmq Queue.addBulk in ${PUBLISH_CHUNK}s, the same data size`,
  targets: [{ metric: 'ratio', atLeast: 0.9 }],
  async open({ quick }): Promise<PairSession | { skipped: string }> {
    const bench = await openBullmqBench(quick);
    if ('skipped' in bench) return bench;
    return {
      detail: benchDetail(bench),
      subject: async (label) => {
        const name = bench.fresh();
        const queue = new Queue(bench.driver(name));
        const all = inputs(label, bench.messages).map((envelope) => ({ envelope }));
        try {
          return await timed(async () => {
            for (let i = 0; i < all.length; i += PUBLISH_CHUNK) {
              await queue.publishBatch(all.slice(i, i + PUBLISH_CHUNK));
            }
            return all.length;
          });
        } finally {
          await queue.close();
          await bench.drop(name);
        }
      },
      baseline: rawAddBulk(bench),
      close: () => bench.close(),
    };
  },
};

function consumeScenario(concurrency: number): PairScenario {
  return {
    kind: 'pair',
    name: `bullmq-consume-${concurrency}`,
    description: `Consuming through the portable Queue over the BullMQ adapter (the Queue's decoding and digest check, the consumer's lease keeping, then the adapter) beside BullMQ's own Worker at the same concurrency, both with a handler that does nothing.`,
    subject: `queue.consume, concurrency ${concurrency}, no-op handler, over BullmqDriver`,
    baseline: `bullmq Worker, concurrency ${concurrency}, no-op processor`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    async open({ quick }): Promise<PairSession | { skipped: string }> {
      const bench = await openBullmqBench(quick);
      if ('skipped' in bench) return bench;
      return {
        detail: benchDetail(bench),
        subject: async (label) => {
          const name = bench.fresh();
          const queue = new Queue(bench.driver(name));
          const all = inputs(label, bench.messages).map((envelope) => ({ envelope }));
          for (let i = 0; i < all.length; i += PUBLISH_CHUNK)
            await queue.publishBatch(all.slice(i, i + PUBLISH_CHUNK));
          try {
            return await timed(
              () =>
                new Promise<number>((resolve, reject) => {
                  let done = 0;
                  const consumer = queue.consume(
                    async () => {
                      if (++done === all.length) {
                        setImmediate(() => void consumer.close().then(() => resolve(done), reject));
                      }
                    },
                    { concurrency, leaseSeconds: 30 },
                  );
                }),
            );
          } finally {
            await queue.close();
            await bench.drop(name);
          }
        },
        baseline: rawWorker(bench, concurrency),
        close: () => bench.close(),
      };
    },
  };
}

export const bullmqConsume10 = consumeScenario(10);
export const bullmqConsume50 = consumeScenario(50);
