import type { Delivery } from '../queue/delivery';
import { ReceivedDelivery } from '../queue/received-delivery';

/** How a consumer reaches its Queue's telemetry without it becoming part of the Queue's API. */
export const QUEUE_TELEMETRY = Symbol('queueport.telemetry');

/** The trace context a delivery's publisher carried, taken off its attributes on receive. */
export function traceContextOf(delivery: Delivery): string | undefined {
  return delivery instanceof ReceivedDelivery ? delivery.traceContext : undefined;
}
