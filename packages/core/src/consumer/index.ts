export {
  type ConsumeOptions,
  Consumer,
  type ConsumerStats,
  type Handler,
  type HandlerContext,
} from './consumer';
export {
  DEFAULT_REDELIVERY_BACKOFF,
  decideOnFailure,
  type FailureDecision,
  isPermanentFailure,
} from './failure-policy';
