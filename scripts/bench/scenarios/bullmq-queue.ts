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

/** Where the time beyond raw BullMQ goes, from the driver-level pairs and a run over a driver that does nothing. */
const PORTABLE_LAYER = `The portable Queue's own work per message, measured over a driver that does nothing (same build, same machine): publish about 16 µs of CPU (envelope validation, canonical JSON and its SHA-256 digest, size and attribute checks), consume 16 to 19 µs (parsing, the schema and digest re-check, the consumer's lease keeping and the ack path). BullMQ's whole cost is 18 to 32 µs per job here, so the portable layer alone is several times the 10 % the target allows: no adapter design reaches 0.9 through the Queue while every received body is re-proven. What would remove most of it: a manifest flag for providers that return bytes unchanged, so the Queue skips the receive-side re-proof; a digest check that hashes the stored canonical text instead of re-canonicalizing; acks coalesced across handlers into one settle call.`;

/** The whole port over BullMQ: what an application sees, the portable Queue's own work included. */
export const bullmqPublish: PairScenario = {
  kind: 'pair',
  name: 'bullmq-publish',
  description:
    "Publishing through the portable Queue over the BullMQ adapter (the Queue's validation, canonical encoding and digest, then the adapter) beside BullMQ's own addBulk of jobs as large.",
  subject: `Queue.publishBatch in ${PUBLISH_CHUNK}s over BullmqDriver`,
  remains: PORTABLE_LAYER,
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
    remains: PORTABLE_LAYER,
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
