import { POSTGRES_BATCH } from '@queueport/postgres';
import { timed } from '../runner';
import { onFreshQueue } from '../shared/bench-pair';
import { consumeUntilDone } from '../shared/consume-until-done';
import { publishThroughQueue } from '../shared/kilobyte-envelopes';
import {
  bareInsertAll,
  bareSkipLocked,
  LEASE_SECONDS,
  POOL_MAX,
  PUBLISH_CHUNK,
  postgresPair,
} from '../shared/postgres-bench';

const CONCURRENCY = 10;
/** What the consumer asks per receive at this concurrency: its free slots, at most the driver's receive batch. */
const RECEIVE_BATCH = Math.min(CONCURRENCY, POSTGRES_BATCH);

/** The portable Queue's own work, as bullmq-queue.ts measured it over a driver that does nothing. */
const PORTABLE_LAYER = `The portable Queue's own work per message, measured over a driver that does nothing (see the bullmq pairs): publish about 16 µs of CPU (envelope validation, canonical JSON and its SHA-256 digest, size and attribute checks), consume 16 to 19 µs (parsing, the schema and digest re-check, the consumer's lease keeping and the ack path).`;

const PUBLISH_REMAINS = `${PORTABLE_LAYER} Beyond the bare INSERT, the adapter's publish statement claims each key in the dedupe table with its window's expiry (a second index and row per message, kept after the ack, which a unique column on the message row cannot do), writes the queue's name on every row, answers each message's id and whether it was a duplicate, and sends the queue's NOTIFY; a sweep of expired keys runs every 30 s.`;

const CONSUME_REMAINS = `${PORTABLE_LAYER} Beyond the bare loop, the adapter's receive also looks for rows past the queue's receive limit (to move them to dead letters) in the same statement, and each receive waits on the queue's LISTEN connection; the consumer runs one receive loop that asks for its free slots (${RECEIVE_BATCH} here) with its acks coalesced, where the baseline's ${CONCURRENCY} workers each keep a receive or an ack in flight, so the server works on up to ${CONCURRENCY} statements at once for the baseline and about two for the subject.`;

/** The whole port over PostgreSQL: what an application sees, the portable Queue's own work included. */
export const postgresPublish = postgresPair(
  {
    name: 'postgres-publish',
    otel: 'subject',
    description: `Publishing about 1 KB envelopes through the portable Queue over the PostgreSQL adapter (the Queue's validation, canonical encoding and digest, then the adapter's one statement per batch) beside bare pg doing what a hand-written outbox does: a multi-row INSERT of the same bodies into an equivalent table with the same unique dedupe key, on a Pool as large as the driver's.`,
    subject: `Queue.publishBatch in ${PUBLISH_CHUNK}s over PostgresDriver, one at a time`,
    baseline: `bare pg multi-row INSERT … ON CONFLICT (dedupe_key) DO NOTHING in ${PUBLISH_CHUNK}s, the same bodies, pg Pool of ${POOL_MAX}`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: PUBLISH_REMAINS,
  },
  (bench) => ({
    subject: (label) => {
      const publishAll = publishThroughQueue(label, bench.messages, PUBLISH_CHUNK);
      return onFreshQueue(bench, (queue) => timed(() => publishAll(queue)));
    },
    baseline: bareInsertAll(bench),
  }),
);

export const postgresConsume10 = postgresPair(
  {
    name: `postgres-consume-${CONCURRENCY}`,
    otel: 'subject',
    description: `Consuming about 1 KB envelopes through the portable Queue over the PostgreSQL adapter (the Queue's decoding and digest check, the consumer's lease keeping, then the adapter's SKIP LOCKED receive and ack by token) beside a bare SKIP LOCKED loop in the driver's statement shapes at the same concurrency, both with a handler that does nothing, over a queue filled before the clock starts.`,
    subject: `queue.consume, concurrency ${CONCURRENCY}, no-op handler, over PostgresDriver`,
    baseline: `${CONCURRENCY} bare pg workers: UPDATE … FROM (SELECT … LIMIT ${RECEIVE_BATCH} FOR UPDATE SKIP LOCKED) RETURNING, then DELETE by id and token, pg Pool of ${POOL_MAX}`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: CONSUME_REMAINS,
  },
  (bench) => ({
    subject: (label) => {
      const publishAll = publishThroughQueue(label, bench.messages, PUBLISH_CHUNK);
      return onFreshQueue(bench, async (queue) => {
        // Filled as the baseline's table is, 10 batches in flight: the pool's connections open here, untimed.
        const total = await publishAll(queue, POOL_MAX);
        return timed(() =>
          consumeUntilDone(queue, total, { concurrency: CONCURRENCY, leaseSeconds: LEASE_SECONDS }),
        );
      });
    },
    baseline: bareSkipLocked(bench, CONCURRENCY, RECEIVE_BATCH),
  }),
);
