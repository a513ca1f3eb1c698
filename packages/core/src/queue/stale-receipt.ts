import type { Capabilities } from '../capabilities';
import { QueueError } from '../errors';
import type { ReceivedDelivery } from './received-delivery';

/**
 * Why the Queue refuses to settle `delivery` itself, without asking the provider, or undefined
 * when the provider decides. A settled delivery has no lease left, even where the provider
 * would still take the receipt (an SQS receipt, the memory driver's until the next receive), so
 * a handler the consumer abandoned at close, or one that acks twice, cannot ack a message
 * already on its way to someone else. Where the provider ignores stale receipts
 * (`staleReceipt: 'ignored'`), a lease the Queue knows to have run out is refused too: the
 * provider would say success whether or not someone else holds the message now.
 */
export function staleReceiptError(
  delivery: ReceivedDelivery,
  capabilities: Capabilities,
  driverName: string,
  now: number,
): QueueError | undefined {
  if (delivery.settled) {
    const eventId = delivery.envelope.event_id;
    return new QueueError('LEASE_LOST', `delivery of ${eventId} was already settled`, {
      details: { event_id: eventId },
    });
  }
  if (capabilities.staleReceipt === 'ignored' && delivery.leaseExpiresAt <= now) {
    return new QueueError(
      'LEASE_LOST',
      `the lease for this delivery ran out; ${driverName} cannot tell whether the message was delivered again, so it is not settled`,
    );
  }
  return undefined;
}
