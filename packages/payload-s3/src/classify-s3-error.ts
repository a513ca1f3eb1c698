import { type ErrorCode, QueueError, redactSecrets } from '@queueport/core';

const NOT_FOUND = new Set(['NoSuchKey', 'NotFound']);
const UNAUTHORIZED = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'AllAccessDisabled',
]);
const RATE_LIMITED = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestLimitExceeded']);
const CHECKSUM = new Set(['BadDigest', 'InvalidDigest', 'XAmzContentSHA256Mismatch']);

/**
 * An S3 client failure as a QueueError: by the error's name and HTTP status, never its message,
 * which can quote a request (its key, a header, a signature). A network failure, a timeout or a
 * 5xx is a retryable UNAVAILABLE.
 */
export function classifyS3Error(error: unknown, operation: string, where: string): QueueError {
  const name =
    typeof (error as { name?: unknown })?.name === 'string' ? (error as { name: string }).name : 'Error';
  const status = (error as { $metadata?: { httpStatusCode?: unknown } })?.$metadata?.httpStatusCode;
  const httpStatus = typeof status === 'number' ? status : undefined;
  let code: ErrorCode;
  // A missing bucket is the configuration's fault, not the payload's: never taken for a missing object.
  if (name === 'NoSuchBucket') code = 'INTERNAL';
  else if (NOT_FOUND.has(name) || httpStatus === 404) code = 'NOT_FOUND';
  else if (UNAUTHORIZED.has(name) || httpStatus === 401 || httpStatus === 403) code = 'UNAUTHORIZED';
  else if (RATE_LIMITED.has(name) || httpStatus === 429 || httpStatus === 503) code = 'RATE_LIMITED';
  else if (CHECKSUM.has(name)) code = 'UNAVAILABLE';
  else if (httpStatus === undefined || httpStatus >= 500) code = 'UNAVAILABLE';
  else code = 'INTERNAL';
  const bucketGone = name === 'NoSuchBucket';
  return new QueueError(
    code,
    redactSecrets(
      `${where} failed to ${operation}: ${bucketGone ? 'the bucket does not exist' : name}${httpStatus ? ` (HTTP ${httpStatus})` : ''}`,
    ),
    {
      details: {
        s3Error: name,
        ...(httpStatus === undefined ? {} : { httpStatus }),
        ...(code === 'UNAVAILABLE' || code === 'RATE_LIMITED' ? { payloadProblem: 'unavailable' } : {}),
      },
    },
  );
}
