export {
  type ConsumeOptions,
  Consumer,
  type ConsumerStats,
  type Handler,
  type HandlerContext,
} from './consumer';
export {
  DEFAULT_REDELIVERY,
  decideOnFailure,
  type FailureDecision,
  isPermanentFailure,
} from './failure-policy';
export { type DeadLetterSink, type GiveUpResult, giveUpDelivery } from './give-up';
