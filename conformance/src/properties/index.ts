import { ackDeletes } from './ack-deletes';
import { adminSurface } from './admin-surface';
import { attributeLimits } from './attribute-limits';
import { batchBounds } from './batch-bounds';
import { closedQueue } from './closed-queue';
import { connectionDrop } from './connection-drop';
import { consumerRedelivery } from './consumer-redelivery';
import { deadLetters } from './dead-letters';
import { dedupe } from './dedupe';
import { dedupeWindow } from './dedupe-window';
import { delayBounds } from './delay-bounds';
import { invalidArguments } from './invalid-arguments';
import { invalidEnvelope } from './invalid-envelope';
import { leaseExpiry } from './lease-expiry';
import { leaseExtension } from './lease-extension';
import { longDelay } from './long-delay';
import { longDelayHidden } from './long-delay-hidden';
import { longPoll } from './long-poll';
import { maxHold } from './max-hold';
import { missingQueue } from './missing-queue';
import { ordering } from './ordering';
import type { ConformanceProperty } from './property';
import { receiveHolds } from './receive-holds';
import { releaseDelay } from './release-delay';
import { retention } from './retention';
import { roundTrip } from './round-trip';
import { sizeLimit } from './size-limit';
import { staleReceipt } from './stale-receipt';

export { type ConformanceProperty, defineProperty, type SkipContext } from './property';

/** The queue contract, in the order a report lists it. */
export const queueProperties: readonly ConformanceProperty[] = [
  roundTrip,
  ackDeletes,
  leaseExpiry,
  leaseExtension,
  maxHold,
  staleReceipt,
  batchBounds,
  receiveHolds,
  longPoll,
  releaseDelay,
  consumerRedelivery,
  delayBounds,
  longDelay,
  longDelayHidden,
  sizeLimit,
  attributeLimits,
  dedupe,
  dedupeWindow,
  ordering,
  deadLetters,
  retention,
  closedQueue,
  connectionDrop,
  missingQueue,
  invalidEnvelope,
  invalidArguments,
  adminSurface,
];

export {
  ackDeletes,
  adminSurface,
  attributeLimits,
  batchBounds,
  closedQueue,
  connectionDrop,
  consumerRedelivery,
  deadLetters,
  dedupe,
  dedupeWindow,
  delayBounds,
  invalidArguments,
  invalidEnvelope,
  leaseExpiry,
  leaseExtension,
  longDelay,
  longDelayHidden,
  longPoll,
  maxHold,
  missingQueue,
  ordering,
  receiveHolds,
  releaseDelay,
  retention,
  roundTrip,
  sizeLimit,
  staleReceipt,
};
