import { type ErrorCode, QueueError, redactSecrets } from '@queueport/core/driver';

/**
 * SQS's error codes as the JSON protocol names them (the SDK's `name`, or a batch entry's
 * `Code`), with both spellings where the query protocol's older one still appears.
 */
const CODES: Readonly<Record<string, ErrorCode>> = {
  QueueDoesNotExist: 'NOT_FOUND',
  'AWS.SimpleQueueService.NonExistentQueue': 'NOT_FOUND',
  ReceiptHandleIsInvalid: 'LEASE_LOST',
  InvalidReceiptHandle: 'LEASE_LOST',
  MessageNotInflight: 'LEASE_LOST',
  'AWS.SimpleQueueService.MessageNotInflight': 'LEASE_LOST',
  AccessDenied: 'UNAUTHORIZED',
  AccessDeniedException: 'UNAUTHORIZED',
  InvalidClientTokenId: 'UNAUTHORIZED',
  UnrecognizedClientException: 'UNAUTHORIZED',
  SignatureDoesNotMatch: 'UNAUTHORIZED',
  IncompleteSignature: 'UNAUTHORIZED',
  MissingAuthenticationToken: 'UNAUTHORIZED',
  ExpiredToken: 'UNAUTHORIZED',
  ExpiredTokenException: 'UNAUTHORIZED',
  InvalidSecurity: 'UNAUTHORIZED',
  'AWS.SimpleQueueService.InvalidSecurity': 'UNAUTHORIZED',
  CredentialsProviderError: 'UNAUTHORIZED',
  ThrottlingException: 'RATE_LIMITED',
  Throttling: 'RATE_LIMITED',
  RequestThrottled: 'RATE_LIMITED',
  OverLimit: 'RATE_LIMITED',
  KmsThrottled: 'RATE_LIMITED',
  'KMS.ThrottlingException': 'RATE_LIMITED',
  PurgeQueueInProgress: 'RATE_LIMITED',
  'AWS.SimpleQueueService.PurgeQueueInProgress': 'RATE_LIMITED',
  QueueDeletedRecently: 'RATE_LIMITED',
  'AWS.SimpleQueueService.QueueDeletedRecently': 'RATE_LIMITED',
  ServiceUnavailable: 'UNAVAILABLE',
  InternalError: 'UNAVAILABLE',
  InternalFailure: 'UNAVAILABLE',
  RequestTimeout: 'UNAVAILABLE',
  TimeoutError: 'UNAVAILABLE',
  KmsUnavailable: 'UNAVAILABLE',
  InvalidParameterValue: 'INVALID_ARGUMENT',
  InvalidAttributeValue: 'INVALID_ARGUMENT',
  InvalidAttributeName: 'INVALID_ARGUMENT',
  InvalidMessageContents: 'INVALID_ARGUMENT',
  UnsupportedOperation: 'INVALID_ARGUMENT',
  'AWS.SimpleQueueService.UnsupportedOperation': 'INVALID_ARGUMENT',
  QueueNameExists: 'INVALID_ARGUMENT',
  QueueAlreadyExists: 'INVALID_ARGUMENT',
  BatchEntryIdsNotDistinct: 'INVALID_ARGUMENT',
  TooManyEntriesInBatchRequest: 'INVALID_ARGUMENT',
  EmptyBatchRequest: 'INVALID_ARGUMENT',
  InvalidBatchEntryId: 'INVALID_ARGUMENT',
  BatchRequestTooLong: 'PAYLOAD_TOO_LARGE',
  KmsAccessDenied: 'UNAUTHORIZED',
  KmsDisabled: 'INVALID_ARGUMENT',
  KmsInvalidKeyUsage: 'INVALID_ARGUMENT',
  KmsInvalidState: 'INVALID_ARGUMENT',
  KmsNotFound: 'INVALID_ARGUMENT',
  KmsOptInRequired: 'INVALID_ARGUMENT',
};

/** SQS asks for 60 s between purges and before a deleted queue's name is taken again. */
const WAIT_A_MINUTE = new Set([
  'PurgeQueueInProgress',
  'AWS.SimpleQueueService.PurgeQueueInProgress',
  'QueueDeletedRecently',
  'AWS.SimpleQueueService.QueueDeletedRecently',
]);

/** What a code means for a person, where SQS's own message could carry request details. */
const FIXED_MESSAGES: Partial<Record<ErrorCode, string>> = {
  // A signature mismatch answers with the canonical request, headers (a session token) included.
  UNAUTHORIZED: 'AWS refused the credentials or their permissions',
  NOT_FOUND: 'the queue does not exist',
  LEASE_LOST: 'the receipt handle is no longer valid (the lease ran out or the message was received again)',
};

export interface SqsFailure {
  /** SQS's error code: the SDK error's name, or a batch entry's Code. */
  code: string;
  message: string;
  /** Whether SQS blamed the request (SenderFault, $fault client) rather than itself. */
  senderFault: boolean;
  httpStatus?: number;
  /** The SDK exception's name, where it differs from the code (the stable spelling). */
  name?: string;
}

/** Maps one SQS failure (a whole call's or a batch entry's) onto the port's codes. */
export function classifySqsFailure(failure: SqsFailure, where: string): QueueError {
  // The SDK's Code comes from the query-compatible header, often as `AWS.SimpleQueueService.<Name>`.
  const known =
    CODES[failure.code] ??
    CODES[failure.code.replace(/^AWS\.SimpleQueueService\./, '')] ??
    (failure.name ? CODES[failure.name] : undefined);
  const code: ErrorCode =
    known ??
    ((failure.httpStatus ?? 0) >= 500 || !failure.senderFault
      ? 'UNAVAILABLE'
      : failure.httpStatus === 429
        ? 'RATE_LIMITED'
        : failure.httpStatus === 401 || failure.httpStatus === 403
          ? 'UNAUTHORIZED'
          : 'INTERNAL');
  const said = FIXED_MESSAGES[code] ?? redactSecrets(failure.message || failure.code);
  return new QueueError(code, `${where}: ${said} (${failure.code})`, {
    ...(WAIT_A_MINUTE.has(failure.code) ? { retryAfterSeconds: 60 } : {}),
    details: { sqsCode: failure.code, ...(failure.httpStatus ? { httpStatus: failure.httpStatus } : {}) },
  });
}

/**
 * For `normalizeError`: the SDK's service exceptions (a `name` and `$metadata`) and its
 * credential errors. Socket failures fall through to core, which reads their codes.
 */
export function sqsErrorClassifier(where: string) {
  return (error: unknown): QueueError | undefined => {
    if (!(error instanceof Error)) return undefined;
    const sdk = error as Error & {
      $fault?: string;
      $metadata?: { httpStatusCode?: number };
      Code?: string;
    };
    if (error.name === 'CredentialsProviderError') {
      return new QueueError('UNAUTHORIZED', `${where}: no AWS credentials were found (${error.name})`);
    }
    if (!sdk.$metadata && !sdk.$fault) return undefined;
    const httpStatus = sdk.$metadata?.httpStatusCode;
    // A body the SDK could not parse (a proxy's HTML page, a server without this operation).
    if (error.name === 'SyntaxError' || !sdk.$fault) {
      return new QueueError(
        (httpStatus ?? 500) >= 500 ? 'UNAVAILABLE' : 'INTERNAL',
        `${where}: the endpoint answered with something that is not SQS (HTTP ${httpStatus ?? 'unknown'})`,
        { details: { ...(httpStatus ? { httpStatus } : {}) } },
      );
    }
    return classifySqsFailure(
      {
        code: sdk.Code ?? error.name,
        name: error.name,
        message: error.message,
        senderFault: sdk.$fault === 'client',
        ...(httpStatus ? { httpStatus } : {}),
      },
      where,
    );
  };
}
