import type { BullmqDriver } from '@queueport/bullmq';
import { timed } from '../runner';
import {
  type BullmqBench,
  bullmqPair,
  encoded,
  onFreshQueue,
  PUBLISH_CHUNK,
  rawAddBulk,
  rawWorker,
} from '../shared/bullmq-bench';
import { drainInLoops } from '../shared/drain-loops';

/**
 * The adapter alone: the driver gets what the Queue hands it (envelopes already validated and
 * encoded), so these pairs show what BullmqDriver costs beyond BullMQ itself, and the
 * Queue-level pairs show what the portable layer adds on top.
 */
export const bullmqDriverPublish = bullmqPair(
  {
    name: 'bullmq-driver-publish',
    description:
      "The adapter's own publish cost (job ids from the key helper, BullMQ's deduplication, the duplicate signal) beside BullMQ's addBulk: the driver is given envelopes the Queue already validated and encoded.",
    subject: `BullmqDriver.publish in ${PUBLISH_CHUNK}s of encoded envelopes`,
    baseline: `bullmq Queue.addBulk in ${PUBLISH_CHUNK}s, the same data size`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains:
      "BullMQ's own deduplication, which the plain addBulk beside it does not do: the add script's TTL key per job and the larger options it packs, plus a job id per publish (the duplicate signal). addBulk given the same deduplication and job ids costs about as much as the adapter (22 to 28 µs of CPU per job against 17 to 24 plain, measured side by side). Removing it means giving up queue-level dedupe, which the manifest declares.",
  },
  (bench) => ({
    subject: (label) =>
      onFreshQueue(bench, bench.driver, (driver) => {
        const all = encoded(label, bench.messages);
        return timed(async () => {
          for (let i = 0; i < all.length; i += PUBLISH_CHUNK)
            await driver.publish(all.slice(i, i + PUBLISH_CHUNK));
          return all.length;
        });
      }),
    baseline: rawAddBulk(bench),
  }),
);

/** `concurrency` loops of receive(1) + ack until every job is done, as the Worker's slots take them. */
function drainJobs(driver: BullmqDriver, total: number, concurrency: number): Promise<number> {
  return drainInLoops(
    total,
    () => driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 }),
    (message) => message.messageId,
    async ([message]) => {
      const [outcome] = await driver.ack([message!.receipt]);
      if (outcome && !outcome.ok) throw outcome.error;
    },
    // Another loop holds the last jobs: a turn of the event loop lets it finish, as often as it takes.
    {
      concurrency,
      maxEmpties: Number.POSITIVE_INFINITY,
      afterEmpty: () => new Promise((r) => setImmediate(r)),
    },
  );
}

function driverConsume(concurrency: number) {
  return bullmqPair(
    {
      name: `bullmq-driver-consume-${concurrency}`,
      description: `The adapter's own consume cost (the lock per lease, the fetch-ahead on ack) beside BullMQ's Worker at the same concurrency: ${concurrency} loops of driver.receive + driver.ack, one job each, as the Worker's slots take them.`,
      subject: `${concurrency} loops of BullmqDriver.receive(1) + ack`,
      baseline: `bullmq Worker, concurrency ${concurrency}, no-op processor`,
      targets: [{ metric: 'ratio', atLeast: 0.9 }],
      remains:
        "A few µs of CPU per job beyond the Worker, for the same Redis round trips (one per job: an ack fetches the next job). The driver's own code is about 2 % of a CPU profile of this loop; the rest is the promise chain of a separate receive and ack call per job, which the Worker's loop, completing and fetching in one step, does not have.",
    },
    (bench: BullmqBench) => ({
      subject: (label) =>
        onFreshQueue(bench, bench.driver, async (driver) => {
          const all = encoded(label, bench.messages);
          for (let i = 0; i < all.length; i += PUBLISH_CHUNK)
            await driver.publish(all.slice(i, i + PUBLISH_CHUNK));
          return timed(() => drainJobs(driver, all.length, concurrency));
        }),
      baseline: rawWorker(bench, concurrency),
    }),
  );
}

export const bullmqDriverConsume10 = driverConsume(10);
export const bullmqDriverConsume50 = driverConsume(50);
