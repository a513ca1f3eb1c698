import { RABBITMQ_BATCH } from '@queueport/rabbitmq';
import { timed } from '../runner';
import { onFreshQueue } from '../shared/bench-pair';
import { consumeUntilDone } from '../shared/consume-until-done';
import { publishThroughQueue } from '../shared/kilobyte-envelopes';
import {
  bareConfirmedPublish,
  bareConsume,
  LEASE_SECONDS,
  PUBLISH_CHUNK,
  rabbitmqPair,
} from '../shared/rabbitmq-bench';

const CONCURRENCY = 10;

/** The portable Queue's own work, as bullmq-queue.ts measured it over a driver that does nothing. */
const PORTABLE_LAYER = `The portable Queue's own work per message, measured over a driver that does nothing (see the bullmq pairs): publish about 16 µs of CPU (envelope validation, canonical JSON and its SHA-256 digest, size and attribute checks), consume 16 to 19 µs (parsing, the schema and digest re-check, the consumer's lease keeping and the ack path).`;

const PUBLISH_REMAINS = `${PORTABLE_LAYER} The broker work is the same on both sides (one persistent message and its confirm each, the same headers, chunks of ${PUBLISH_CHUNK}); at about 200 µs of broker time per message the portable layer is under a tenth, so the pair sits at the target and moves with the broker's fsyncs.`;

const CONSUME_REMAINS = `${PORTABLE_LAYER} The gap is by design: the driver takes with basic.get, one round trip per message and, on a quorum queue, one Raft command with its log write each, where the baseline's consumer has ${CONCURRENCY} deliveries pushed ahead. A prefetching consumer would be handed messages no receive asked for, and a quorum queue counts each one given back as a delivery, so receive counts (and the redrive by count) would rise for receives nobody saw; the long poll uses a one-message consumer only while the queue is empty. A consumer-mode driver that keeps prefetched deliveries as its own leases (giving back only on close) would close most of the gap; it is not built.`;

/** The whole port over RabbitMQ: what an application sees, the portable Queue's own work included. */
export const rabbitmqPublish = rabbitmqPair(
  {
    name: 'rabbitmq-publish',
    otel: 'subject',
    description: `Publishing about 1 KB envelopes through the portable Queue over the RabbitMQ adapter (the Queue's validation, canonical encoding and digest, then the driver's persistent sends with publisher confirms) beside bare amqplib sending the same bodies and headers on a confirm channel to an equivalent quorum queue, each chunk's confirms awaited.`,
    subject: `Queue.publishBatch in ${PUBLISH_CHUNK}s over RabbitmqDriver, one at a time`,
    baseline: `bare amqplib ConfirmChannel.sendToQueue in ${PUBLISH_CHUNK}s, persistent, each chunk's confirms awaited, the same bodies`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: PUBLISH_REMAINS,
  },
  (bench) => ({
    subject: (label) => {
      const publishAll = publishThroughQueue(label, bench.messages, PUBLISH_CHUNK);
      return onFreshQueue(bench, (queue) => timed(() => publishAll(queue)));
    },
    baseline: bareConfirmedPublish(bench),
  }),
);

export const rabbitmqConsume10 = rabbitmqPair(
  {
    name: `rabbitmq-consume-${CONCURRENCY}`,
    otel: 'subject',
    description: `Consuming about 1 KB envelopes through the portable Queue over the RabbitMQ adapter (the Queue's decoding and digest check, the consumer's lease keeping, the driver's basic.get receives of up to ${RABBITMQ_BATCH} and acks) beside a bare amqplib consumer with a prefetch of ${CONCURRENCY} acking each delivery, both with a handler that does nothing, over a quorum queue filled before the clock starts.`,
    subject: `queue.consume, concurrency ${CONCURRENCY}, no-op handler, over RabbitmqDriver`,
    baseline: `bare amqplib consume, prefetch ${CONCURRENCY}, ack per delivery`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: CONSUME_REMAINS,
  },
  (bench) => ({
    subject: (label) => {
      const publishAll = publishThroughQueue(label, bench.messages, PUBLISH_CHUNK);
      return onFreshQueue(bench, async (queue) => {
        // Filled as the baseline's queue is, 10 batches in flight, untimed.
        const total = await publishAll(queue, 10);
        return timed(() =>
          consumeUntilDone(queue, total, { concurrency: CONCURRENCY, leaseSeconds: LEASE_SECONDS }),
        );
      });
    },
    baseline: bareConsume(bench, CONCURRENCY),
  }),
);
