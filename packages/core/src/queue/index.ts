export type { AnyDelivery, AnyQueue } from './any-queue';
export { DEFAULT_CALL_TIMEOUT_MS } from './call-deadline';
export type { CappedEvent, CappedOption } from './capped-option';
export type { Delivery } from './delivery';
export { checkDelay, fitDelay, messageSizeBytes } from './message-checks';
export {
  type PublishInput,
  type PublishReceipt,
  Queue,
  type QueueHooks,
  type QueueOptions,
  type ReceiveOptions,
  type SettleResult,
} from './queue';
