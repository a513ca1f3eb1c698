import type { Queue } from '@queueport/core';
import type { Sample, Side } from '../runner';
import {
  BATCH,
  CONCURRENCY,
  consumeAll,
  envelopes,
  type InfraiBench,
  infraiPair,
  keyed,
  LEASE_SECONDS,
  onFreshPortableQueue,
  onFreshQueue,
  publishThroughQueue,
  queueDrain,
  rawDrain,
  rawPublishAll,
  timedOnServer,
  warmConsume,
  warmPublish,
} from '../shared/infrai-bench';

/**
 * Measured with these scenarios' own calls against a canned-response HTTP server in a child
 * process (real sockets, a server that costs next to nothing: client CPU only) and with each
 * step timed alone; printed by the report beside a missed target.
 */
const PUBLISH_REMAINS =
  "Against the simulator both sides make the same calls (one publish_batch per 10 messages) and the simulator is the slower process (about 55 to 65 µs of its CPU per message, more than either client), so the ratio sits near 1 and a miss is most likely a noisy round on a shared machine. Client CPU alone (canned server): raw 17.4 µs per message building each body with canonicalJson (10.7 with bodies built ahead); InfraiDriver with the Queue's work done ahead 17.3, so the adapter adds about 6.6: idempotencyKey (deriveProviderKey, its rules re-checked on every call) about 2.7, the per-request AbortSignal deadline about 1.5, ajv about 0.15, payload wrapping and the size check 0.2; the Queue 29.4: its envelope validation, canonical encoding and SHA-256 digest cost about 12 µs per message, against 6.7 for the raw side's plain canonicalJson. Where the client is the bottleneck that is a ratio near 0.6. Checking the key rules once (not per key) and dropping the per-request signal would bring the adapter's share under 2.";

const CONSUME_REMAINS =
  "The client is the bottleneck here: the subject's client spends more CPU per message than the simulator (about 65 to 75 µs). Client CPU alone (canned server): raw 44.8 µs per message (about 7 for the consume calls, the rest one ack call per message), InfraiDriver 72.0, the Queue 85.4: a client-bound ratio near 0.52. The driver's +27: the per-request deadline (AbortSignal.timeout handed to undici, about 15 µs per message on 1.1 calls per message; an AbortController with a cleared setTimeout costs nearly as much, about 12, since undici's abort listener is most of it), unwrapPayload re-encoding each freshly parsed envelope object to canonical JSON (about 4.1), ajv (about 1: the consume response 0.7, half of it the date-time format on enqueued_at; the ack request 0.35), the rest InfraiHttp's per-call work. The Queue's +13: decodeEnvelope parses that text again and re-proves the digest (about 7.6 µs per message), plus delivery and settle bookkeeping. What would remove most of it: bound requests with undici's headersTimeout and bodyTimeout and pass a signal only when the caller gives one (about 15); a decode-from-value path in core, so the driver hands over the envelope it parsed and the Queue checks it once, making the payload's canonical text once for the digest and splicing it into the body as prepareEncodedEnvelope does on publish (about 6); response validators without format checks and the fixed queue name checked once at open (about 0.5).";

/**
 * The whole port over Infrai, as an application runs it: the portable Queue (envelope
 * validation, canonical encoding and digest on publish; decoding and the digest re-check on
 * receive; the stale-lease guard on ack) over InfraiDriver (ajv request and response validation
 * against the discovery snapshot, canonical JSON bodies), beside raw undici calls doing the same
 * work with the same bodies, batches, concurrency and dispatcher settings, against the same
 * simulator (in a child process) in the same run.
 */
export const infraiPublish = infraiPair(
  {
    name: 'infrai-publish',
    description: `Publishing through the portable Queue over the Infrai adapter beside raw undici POSTs to /v1/queue/publish_batch with the same canonical JSON bodies: ${BATCH} messages of 1 KB per call, ${CONCURRENCY} calls in flight on both sides. Both sides start from the same prepared envelope objects; neither has its request bodies encoded ahead (the raw side builds each body with canonicalJson inside its clock, from the envelopes and the driver's idempotency keys, which it derives ahead like the envelopes; the driver derives its keys inside its clock).`,
    subject: `Queue.publishBatch of ${BATCH} envelopes, ${CONCURRENCY} in flight, over InfraiDriver (opened by infrai:// URL)`,
    baseline: `undici request POST /v1/queue/publish_batch, canonical JSON of { messages: [{ idempotency_key, payload: { envelope, queueport: 1 } }], queue } + newline, Bearer key, ${CONCURRENCY} in flight`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: PUBLISH_REMAINS,
  },
  (bench) => ({
    subject: (label) =>
      onFreshPortableQueue(bench, async (queue, name) => {
        await warmPublish('subject', bench, queue, name, label);
        const all = envelopes(label, bench.messages);
        return timedOnServer(bench, 'subject', () => publishThroughQueue(queue, all));
      }),
    baseline: (label) =>
      onFreshQueue(bench, 'baseline', async (name) => {
        await warmPublish('baseline', bench, undefined, name, label);
        const all = keyed(name, envelopes(label, bench.messages));
        return timedOnServer(bench, 'baseline', () => rawPublishAll(bench.raw.baseline, name, all));
      }),
  }),
);

/**
 * The subject's side of a consume pair: the fresh queue filled (untimed, with the raw side's
 * bytes, which are the adapter's), one untimed receive + ack, then `drain` timed.
 */
function subjectDrain(bench: InfraiBench, drain: (queue: Queue, total: number) => Promise<number>): Side {
  return (label) =>
    onFreshPortableQueue(bench, async (queue, name) => {
      await rawPublishAll(bench.raw.subject, name, keyed(name, envelopes(label, bench.messages + BATCH)));
      await warmConsume('subject', bench, queue, name);
      return timedOnServer(bench, 'subject', () => drain(queue, bench.messages));
    });
}

/** The raw side of every consume pair: filled alike, one untimed consume + acks, then drained raw. */
function baselineDrain(bench: InfraiBench): Side {
  return (label): Promise<Sample> =>
    onFreshQueue(bench, 'baseline', async (name) => {
      await rawPublishAll(bench.raw.baseline, name, keyed(name, envelopes(label, bench.messages + BATCH)));
      await warmConsume('baseline', bench, undefined, name);
      return timedOnServer(bench, 'baseline', () => rawDrain(bench.raw.baseline, name, bench.messages));
    });
}

export const infraiConsumeAck = infraiPair(
  {
    name: 'infrai-consume-ack',
    description: `Receiving and acking through the portable Queue over the Infrai adapter beside raw undici calls: ${CONCURRENCY} loops on both sides, each a POST /v1/queue/consume of up to ${BATCH} (visibility_timeout ${LEASE_SECONDS}, the subject's lease) followed by one POST /v1/queue/ack per message, sent together (Infrai has no batch ack; the driver sends a batch's acks concurrently), over a queue filled beforehand with the same 1 KB envelopes.`,
    subject: `${CONCURRENCY} loops of queue.receive({ maxMessages: ${BATCH}, leaseSeconds: ${LEASE_SECONDS} }) + queue.ackBatch`,
    baseline: `${CONCURRENCY} loops of undici POST /v1/queue/consume (max_messages ${BATCH}, visibility_timeout ${LEASE_SECONDS}) + one POST /v1/queue/ack per message, concurrently`,
    targets: [{ metric: 'ratio', atLeast: 0.9 }],
    remains: CONSUME_REMAINS,
  },
  (bench) => ({ subject: subjectDrain(bench, queueDrain), baseline: baselineDrain(bench) }),
);

export const infraiConsume = infraiPair(
  {
    name: 'infrai-consume',
    description: `Informative, without a target: queue.consume at concurrency ${CONCURRENCY} (one receive loop asking for as many as it has free slots, one ack call per message as each handler finishes) beside the raw loops of infrai-consume-ack.`,
    subject: `queue.consume, concurrency ${CONCURRENCY}, no-op handler, leaseSeconds ${LEASE_SECONDS}, waitSeconds 0, over InfraiDriver`,
    baseline: `${CONCURRENCY} loops of undici POST /v1/queue/consume (${BATCH}) + one POST /v1/queue/ack per message, as in infrai-consume-ack`,
  },
  (bench) => ({ subject: subjectDrain(bench, consumeAll), baseline: baselineDrain(bench) }),
);
