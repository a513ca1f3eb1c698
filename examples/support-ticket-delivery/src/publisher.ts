import type { AnyQueue, PublishReceipt } from '@queueport/core';
import type { ContentAddressedStore, StoredBlob } from './blob-store';
import type { ClosedTicket } from './tickets';

export const eventIdOf = (ticketId: string): string => `${ticketId}:closed:v1`;

export interface PublishedTicket {
  blob: StoredBlob;
  receipt: PublishReceipt;
}

/**
 * The support platform's publisher: the ticket (transcript and all) goes to the blob store
 * first, and only its reference goes through the queue. Store first, then publish: a publish
 * never names a blob that is not there yet. Calling it again for the same ticket (a retry after
 * an unclear failure) stores the same bytes under the same name and publishes the same event.
 */
export async function publishClosedTicket(
  queue: AnyQueue,
  blobs: ContentAddressedStore,
  ticket: ClosedTicket,
): Promise<PublishedTicket> {
  const blob = await blobs.put(ticket);
  const receipt = await queue.publish({
    envelope: {
      event_id: eventIdOf(ticket.ticket_id),
      type: 'ticket.closed',
      occurred_at: ticket.closed_at,
      payload_ref: { uri: blob.uri, sha256: blob.sha256 },
    },
  });
  return { blob, receipt };
}
