export type { DeliveryOutcome, ResponseSample, WebhookRequest, WebhookSender } from '../sender-types';
export {
  type Classification,
  classifyError,
  classifyResponse,
  type ErrorClassifyOptions,
  type HeaderBag,
  type ResponseClassifyOptions,
} from './classify-response';
export { readCappedBody } from './read-capped-body';
export {
  createWebhookSender,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_SENDER_TIMEOUTS,
  type WebhookSenderOptions,
} from './undici-sender';
