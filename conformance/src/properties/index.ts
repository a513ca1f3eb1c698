import { ackDeletes } from './ack-deletes';
import { dedupe } from './dedupe';
import { delayBounds } from './delay-bounds';
import { invalidEnvelope } from './invalid-envelope';
import { leaseExpiry } from './lease-expiry';
import { ordering } from './ordering';
import type { ConformanceProperty } from './property';
import { releaseDelay } from './release-delay';
import { roundTrip } from './round-trip';
import { sizeLimit } from './size-limit';

export { type ConformanceProperty, defineProperty } from './property';

/** The queue contract, in the order a report lists it. */
export const queueProperties: readonly ConformanceProperty[] = [
  roundTrip,
  ackDeletes,
  leaseExpiry,
  releaseDelay,
  sizeLimit,
  delayBounds,
  dedupe,
  ordering,
  invalidEnvelope,
];

export {
  ackDeletes,
  dedupe,
  delayBounds,
  invalidEnvelope,
  leaseExpiry,
  ordering,
  releaseDelay,
  roundTrip,
  sizeLimit,
};
