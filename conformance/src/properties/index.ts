import { ackDeletes } from './ack-deletes';
import { dedupe } from './dedupe';
import { delayBounds } from './delay-bounds';
import { invalidEnvelope } from './invalid-envelope';
import { leaseExpiry } from './lease-expiry';
import { longDelay } from './long-delay';
import { ordering } from './ordering';
import type { ConformanceProperty } from './property';
import { releaseDelay } from './release-delay';
import { roundTrip } from './round-trip';
import { sizeLimit } from './size-limit';
import { staleReceipt } from './stale-receipt';

export { type ConformanceProperty, defineProperty } from './property';

/** The queue contract, in the order a report lists it. */
export const queueProperties: readonly ConformanceProperty[] = [
  roundTrip,
  ackDeletes,
  leaseExpiry,
  staleReceipt,
  releaseDelay,
  delayBounds,
  longDelay,
  sizeLimit,
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
  longDelay,
  ordering,
  releaseDelay,
  roundTrip,
  sizeLimit,
  staleReceipt,
};
