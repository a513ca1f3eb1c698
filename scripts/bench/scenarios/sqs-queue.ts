import type { Queue } from '@queueport/core';
import { timed } from '../runner';
import { consumeUntilAcked, drainQueueInLoops } from '../shared/drain-loops';
import {
  BATCH,
  CONCURRENCY,
  inputs,
  LEASE_SECONDS,
  onFreshPortableQueues,
  publishThroughQueue,
  rawPublish,
  rawReceiveAck,
  type SqsBench,
  sqsPair,
  WAIT_SECONDS,
} from '../shared/sqs-bench';

/**
 * Queues per side and round, each of `bench.messages` (200): moto slows as a queue deepens, and
 * publishing 200 is over in under half a second, so a publish side goes through five of them.
 */
const PUBLISH_QUEUES = 5;
const CONSUME_QUEUES = 1;

/** Measured with these scenarios' own loops; printed by the report beside a missed target. */
const PORTABLE_LAYER =
  "Against moto both sides make the same calls (20 SendMessageBatch per 200 messages; 20 DeleteMessageBatch and 20 to 25 ReceiveMessage, the extra ones empty at the end of a drain), so the server sets the pace and a miss is most likely a noisy round. What the subject adds is client CPU: with the SDK's HTTP handler replaced by an in-process stub (no network, client CPU only), raw SQS costs about 62 µs per message to publish and 76 to receive and delete, SqsDriver 0 to 7 more, the portable Queue 13 to 20 more (envelope validation, canonical JSON and its SHA-256 digest on publish; decoding and the digest re-check on receive). Where the client is the bottleneck (a server far faster than moto) that is a ratio near 0.8; a manifest flag letting the Queue skip the receive-side re-proof on providers that return bytes unchanged would remove most of the receive part.";

/**
 * The whole port over SQS, as an application runs it: the portable Queue (validation, canonical
 * encoding and digest on publish; decoding and the digest re-check on receive; the stale-lease
 * guard on ack) over SqsDriver, beside the raw @aws-sdk/client-sqs calls doing the same work
 * with the same batches, concurrency and client, against the same server in the same run.
 */
export const sqsPublish = sqsPair(
  {
    name: 'sqs-publish',
    description: `Publishing through the portable Queue over the SQS adapter beside raw SendMessageBatch calls of the same 1 KB bodies: ${BATCH} messages per call, ${CONCURRENCY} calls in flight on both sides.`,
    subject: `Queue.publishBatch of ${BATCH} envelopes, ${CONCURRENCY} in flight, over SqsDriver`,
    baseline: `SendMessageBatchCommand of ${BATCH} entries, ${CONCURRENCY} in flight, the same bodies encoded ahead`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: PORTABLE_LAYER,
  },
  PUBLISH_QUEUES,
  (bench) => ({
    subject: (label) =>
      onFreshPortableQueues(bench, PUBLISH_QUEUES, (queue, index) => {
        const envelopes = inputs(`${label}q${index}`, bench.messages);
        return timed(() => publishThroughQueue(queue, envelopes));
      }),
    baseline: rawPublish(bench, PUBLISH_QUEUES),
  }),
);

/** The Queue's side of a consume pair: each queue filled through the Queue (untimed), then drained by `drain`. */
function filledQueues(
  bench: SqsBench,
  label: string,
  drain: (queue: Queue, total: number) => Promise<number>,
) {
  return onFreshPortableQueues(bench, CONSUME_QUEUES, async (queue, index) => {
    const total = await publishThroughQueue(queue, inputs(`${label}q${index}`, bench.messages));
    return timed(() => drain(queue, total));
  });
}

export const sqsReceiveAck = sqsPair(
  {
    name: 'sqs-receive-ack',
    description: `Receiving and acking through the portable Queue over the SQS adapter beside raw ReceiveMessage + DeleteMessageBatch calls: ${CONCURRENCY} loops on both sides, each receiving up to ${BATCH} (the same message and system attributes the driver asks for) and deleting them in one call, over a queue filled beforehand with the same 1 KB bodies.`,
    subject: `${CONCURRENCY} loops of queue.receive({ maxMessages: ${BATCH}, waitSeconds: ${WAIT_SECONDS} }) + queue.ackBatch`,
    baseline: `${CONCURRENCY} loops of ReceiveMessageCommand (${BATCH}, MessageAttributeNames All, the driver's system attributes) + DeleteMessageBatchCommand`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: PORTABLE_LAYER,
  },
  CONSUME_QUEUES,
  (bench) => ({
    subject: (label) =>
      filledQueues(bench, label, (queue, total) =>
        drainQueueInLoops(
          queue,
          total,
          { maxMessages: BATCH, leaseSeconds: LEASE_SECONDS, waitSeconds: WAIT_SECONDS },
          { concurrency: CONCURRENCY },
        ),
      ),
    baseline: rawReceiveAck(bench, CONSUME_QUEUES),
  }),
);

/** The consumer until every envelope was acked once (closed after, with the Queue: onFreshPortableQueues). */
function consumeAll(queue: Queue, total: number): Promise<number> {
  return consumeUntilAcked(queue, total, {
    concurrency: CONCURRENCY,
    leaseSeconds: LEASE_SECONDS,
    waitSeconds: WAIT_SECONDS,
  });
}

export const sqsConsume = sqsPair(
  {
    name: 'sqs-consume',
    description: `queue.consume at concurrency ${CONCURRENCY} (one receive loop that asks for as many as it has free slots; the acks of handlers that finish in one turn go out as one DeleteMessageBatch) beside the raw loops of sqs-receive-ack, which delete ${BATCH} per call.`,
    subject: `queue.consume, concurrency ${CONCURRENCY}, no-op handler, waitSeconds ${WAIT_SECONDS}, over SqsDriver`,
    baseline: `${CONCURRENCY} loops of ReceiveMessageCommand (${BATCH}) + DeleteMessageBatchCommand, as in sqs-receive-ack`,
    targets: [{ metric: 'ratio', atLeast: 0.95 }],
    remains:
      'one receive loop where the baseline has ten: a receive waits for free slots, so fewer calls are in flight against the provider at once; the coalesced acks already make the calls as few as the baseline’s.',
  },
  CONSUME_QUEUES,
  (bench) => ({
    subject: (label) => filledQueues(bench, label, consumeAll),
    baseline: rawReceiveAck(bench, CONSUME_QUEUES),
  }),
);
