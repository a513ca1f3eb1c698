import { isQueueError } from '@queueport/core';

/**
 * Attribute names: OpenTelemetry's messaging semantic conventions where they have one, and
 * `queueport.` for what is this project's own. No attribute ever holds a payload, a message
 * attribute, a URL or a header: identities, types, counts, codes and outcomes only.
 */
export const ATTR = {
  system: 'messaging.system',
  destinationName: 'messaging.destination.name',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  messageId: 'messaging.message.id',
  bodySize: 'messaging.message.body.size',
  batchCount: 'messaging.batch.message_count',
  errorType: 'error.type',
  httpStatus: 'http.response.status_code',
  eventId: 'queueport.event.id',
  eventType: 'queueport.event.type',
  receiveCount: 'queueport.delivery.receive_count',
  duplicate: 'queueport.publish.duplicate',
  failedCount: 'queueport.publish.failed_count',
  deadLetterTo: 'queueport.dead_letter.to',
  deadLettered: 'queueport.dead_lettered',
  retryKind: 'queueport.retry.kind',
  settlement: 'queueport.settlement',
  destinationId: 'queueport.destination.id',
  deliveryOutcome: 'queueport.delivery.outcome',
  deliveryResult: 'queueport.delivery.result',
  objectiveMet: 'queueport.objective.met',
  claimOutcome: 'queueport.claim.outcome',
} as const;

const ERROR_TYPE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * What `error.type` says of a failure: a QueueError's code, else the error's class name. Never
 * its message, which may echo what a provider or a receiver was sent.
 */
export function errorType(error: unknown): string {
  if (isQueueError(error)) return error.code;
  if (error !== null && typeof error === 'object') {
    const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && ERROR_TYPE.test(name)) return name;
  }
  return '_OTHER';
}
