import { type PairScenario, type PairSession, timed } from '../runner';
import {
  benchDetail,
  encoded,
  openBullmqBench,
  PUBLISH_CHUNK,
  rawAddBulk,
  rawWorker,
} from '../shared/bullmq-bench';

/**
 * The adapter alone: the driver gets what the Queue hands it (envelopes already validated and
 * encoded), so the pair shows what BullmqDriver costs beyond BullMQ itself, and the Queue-level
 * pairs show what the portable layer adds on top.
 */
export const bullmqDriverPublish: PairScenario = {
  kind: 'pair',
  name: 'bullmq-driver-publish',
  description:
    "The adapter's own publish cost (job ids from the key helper, BullMQ's deduplication, the duplicate signal) beside BullMQ's addBulk: the driver is given envelopes the Queue already validated and encoded.",
  subject: `BullmqDriver.publish in ${PUBLISH_CHUNK}s of encoded envelopes`,
  remains:
    "BullMQ's own deduplication, which the plain addBulk beside it does not do: the add script's TTL key per job and the larger options it packs, plus a job id per publish (the duplicate signal). addBulk given the same deduplication and job ids costs about as much as the adapter (22 to 28 µs of CPU per job against 17 to 24 plain, measured side by side). Removing it means giving up queue-level dedupe, which the manifest declares.",
  baseline: `bullmq Queue.addBulk in ${PUBLISH_CHUNK}s, the same data size`,
  targets: [{ metric: 'ratio', atLeast: 0.9 }],
  async open({ quick }): Promise<PairSession | { skipped: string }> {
    const bench = await openBullmqBench(quick);
    if ('skipped' in bench) return bench;
    return {
      detail: benchDetail(bench),
      subject: async (label) => {
        const name = bench.fresh();
        const driver = bench.driver(name);
        const all = encoded(label, bench.messages);
        try {
          return await timed(async () => {
            for (let i = 0; i < all.length; i += PUBLISH_CHUNK)
              await driver.publish(all.slice(i, i + PUBLISH_CHUNK));
            return all.length;
          });
        } finally {
          await driver.close();
          await bench.drop(name);
        }
      },
      baseline: rawAddBulk(bench),
      close: () => bench.close(),
    };
  },
};

function driverConsumeScenario(concurrency: number): PairScenario {
  return {
    kind: 'pair',
    name: `bullmq-driver-consume-${concurrency}`,
    description: `The adapter's own consume cost (the lock per lease, the fetch-ahead on ack) beside BullMQ's Worker at the same concurrency: ${concurrency} loops of driver.receive + driver.ack, one job each, as the Worker's slots take them.`,
    subject: `${concurrency} loops of BullmqDriver.receive(1) + ack`,
    remains:
      "A few µs of CPU per job beyond the Worker, for the same Redis round trips (one per job: an ack fetches the next job). The driver's own code is about 2 % of a CPU profile of this loop; the rest is the promise chain of a separate receive and ack call per job, which the Worker's loop, completing and fetching in one step, does not have.",
    baseline: `bullmq Worker, concurrency ${concurrency}, no-op processor`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    async open({ quick }): Promise<PairSession | { skipped: string }> {
      const bench = await openBullmqBench(quick);
      if ('skipped' in bench) return bench;
      return {
        detail: benchDetail(bench),
        subject: async (label) => {
          const name = bench.fresh();
          const driver = bench.driver(name);
          const all = encoded(label, bench.messages);
          for (let i = 0; i < all.length; i += PUBLISH_CHUNK)
            await driver.publish(all.slice(i, i + PUBLISH_CHUNK));
          try {
            return await timed(async () => {
              let done = 0;
              const slot = async () => {
                while (done < all.length) {
                  const [message] = await driver.receive({
                    maxMessages: 1,
                    leaseSeconds: 30,
                    waitSeconds: 0,
                  });
                  if (!message) {
                    // Another slot holds the last jobs: let it finish.
                    await new Promise((resolve) => setImmediate(resolve));
                    continue;
                  }
                  await driver.ack([message.receipt]);
                  done++;
                }
              };
              await Promise.all(Array.from({ length: concurrency }, slot));
              return done;
            });
          } finally {
            await driver.close();
            await bench.drop(name);
          }
        },
        baseline: rawWorker(bench, concurrency),
        close: () => bench.close(),
      };
    },
  };
}

export const bullmqDriverConsume10 = driverConsumeScenario(10);
export const bullmqDriverConsume50 = driverConsumeScenario(50);
