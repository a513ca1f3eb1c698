export { ERROR_CODES, type ErrorCode, RETRYABLE_BY_DEFAULT } from './error-codes';
export { type ErrorClassifier, type NormalizeErrorOptions, normalizeError } from './normalize-error';
export { isQueueError, QueueError, type QueueErrorOptions } from './queue-error';
export { redactSecrets, registeredSecretPatterns, registerSecretPatterns } from './redact';
export { assessSecret, MIN_MASKABLE_SECRET_CHARS, type SecretAssessment } from './secret-assessment';
