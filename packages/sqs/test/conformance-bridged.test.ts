import { consumerRedelivery, delayBounds, longPoll, releaseDelay } from '@queueport/conformance';
import { describeSqsConformance } from './support/conformance-run';

// With a 1 s hop, the delays these properties really wait out (up to 3 s) go through the
// portable delay bridge over SQS itself: several hops, each re-sent by the Queue, never early.
// On FIFO queues every hop is also one the driver holds back itself (no per-message delay).
const bridged = [delayBounds, releaseDelay, consumerRedelivery, longPoll];

describeSqsConformance('sqs standard, 1 s hops', false, { hopSeconds: 1, properties: bridged });
describeSqsConformance('sqs fifo, 1 s hops', true, { hopSeconds: 1, properties: bridged });
