import type { DriverMessage } from '../driver';
import type { Envelope } from '../envelope';
import { type DeliverySettler, ReceivedDelivery } from './received-delivery';

/**
 * A delivery whose payload came back from the payload store. Its body is the envelope with the
 * payload inline, byte for byte what an inline publish would have sent, so a handler that
 * forwards `body` (the webhook worker) sends the payload. Its `message` stays the one received,
 * reference and all, so a bridged release re-sends the reference, not the payload.
 */
export class OffloadedDelivery extends ReceivedDelivery {
  readonly #body: string;

  constructor(
    settler: DeliverySettler,
    message: DriverMessage,
    envelope: Envelope,
    arrival: { attributes: Record<string, string>; receiveCount: number },
    leaseExpiresAt: number,
    body: string,
  ) {
    super(settler, message, envelope, arrival, leaseExpiresAt);
    this.#body = body;
  }

  override get body(): string {
    return this.#body;
  }
}
