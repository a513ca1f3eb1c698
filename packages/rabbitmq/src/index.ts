export { MAX_ATTRIBUTE_BYTES } from './messages';
export { rabbitmqAdapter } from './rabbitmq-adapter';
export {
  MAX_HOLD_SECONDS,
  RABBITMQ_BATCH,
  RabbitmqDriver,
  type RabbitmqDriverOptions,
} from './rabbitmq-driver';
export { type ParsedRabbitmqUrl, parseRabbitmqUrl, rabbitmqUrls } from './rabbitmq-url';
