export { classifySqsFailure, sqsErrorClassifier } from './classify-error';
export { DEDUPLICATION_ID_RULES } from './deduplication-id';
export { createSqsAdapter, type SqsAdapterOptions, sqsAdapter } from './sqs-adapter';
export { SqsDriver } from './sqs-driver';
export {
  SQS_BATCH,
  SQS_MAX_VISIBILITY_SECONDS,
  SQS_NATIVE_MAX_DELAY_SECONDS,
  type SqsDriverOptions,
} from './sqs-options';
export { type ParsedSqsUrl, parseSqsUrl } from './sqs-url';
