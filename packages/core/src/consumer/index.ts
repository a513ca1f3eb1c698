export {
  type CloseOptions,
  type ConsumeOptions,
  Consumer,
  type ConsumerSettings,
  type Handler,
  type HandlerContext,
} from './consumer';
export {
  CONSUMER_EVENT_NAMES,
  type ConsumerErrorEvent,
  type ConsumerEvents,
  type ConsumerReleaseCause,
  type ConsumerStats,
  type DeadLetteredEvent,
  type LeaseLostEvent,
  type ReleasedEvent,
} from './consumer-events';
export {
  DEFAULT_REDELIVERY,
  decideOnFailure,
  type FailureDecision,
  isPermanentFailure,
} from './failure-policy';
export { type DeadLetterSink, type GiveUpResult, giveUpDelivery } from './give-up';
