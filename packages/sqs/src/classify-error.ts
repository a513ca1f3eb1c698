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

/** How much of a provider's own words an error repeats: enough to read, too little to carry a dump. */
const MAX_PROVIDER_TEXT = 200;
/** What an SQS error code looks like; anything else from a server is not repeated. */
const CODE_SHAPE = /^[A-Za-z][A-Za-z0-9._:#-]{0,127}$/;
/** Socket-level failures, however deep in the SDK's wrappers: Node's, undici's, OpenSSL's. */
const SOCKET_CODE = /^(?:E[A-Z0-9_]{2,}|ERR_[A-Z0-9_]+|UND_ERR_[A-Z0-9_]+)$/;

/** A server's text as an error may carry it: configured secrets and key-like values masked, cut short. */
function providerText(text: string, secrets: readonly string[]): string {
  const masked = redactSecrets(text, secrets);
  return masked.length > MAX_PROVIDER_TEXT ? `${masked.slice(0, MAX_PROVIDER_TEXT)}…` : masked;
}

/** Maps one SQS failure (a whole call's or a batch entry's) onto the port's codes. */
export function classifySqsFailure(
  failure: SqsFailure,
  where: string,
  secrets: readonly string[] = [],
): QueueError {
  const sqsCode = CODE_SHAPE.test(failure.code) ? redactSecrets(failure.code, secrets) : 'Unknown';
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
  const said = FIXED_MESSAGES[code] ?? providerText(failure.message || sqsCode, secrets);
  return new QueueError(code, `${where}: ${said} (${sqsCode})`, {
    ...(WAIT_A_MINUTE.has(failure.code) ? { retryAfterSeconds: 60 } : {}),
    details: { sqsCode, ...(failure.httpStatus ? { httpStatus: failure.httpStatus } : {}) },
  });
}

/** The first socket error code in an error and its causes (the SDK wraps, Node aggregates). */
export function socketErrorCode(error: unknown): string | undefined {
  const seen: unknown[] = [error];
  for (let i = 0; i < seen.length && i < 16; i++) {
    const current = seen[i];
    if (!current || typeof current !== 'object') continue;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && SOCKET_CODE.test(code)) return code;
    seen.push((current as { cause?: unknown }).cause);
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) seen.push(...errors.slice(0, 4));
  }
  return undefined;
}

/**
 * For `normalizeError`: the SDK's service exceptions (a `name` and `$metadata`), its credential
 * errors and socket failures. `secrets` are the values the client was configured with, masked
 * wherever a server's words are repeated.
 */
export function sqsErrorClassifier(where: string, secrets: readonly string[] = []) {
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
    const httpStatus = sdk.$metadata?.httpStatusCode;
    const socket = httpStatus === undefined ? socketErrorCode(error) : undefined;
    if (socket) {
      return new QueueError('UNAVAILABLE', `${where}: the SQS endpoint could not be reached (${socket})`, {
        details: { networkCode: socket },
      });
    }
    if (httpStatus === undefined && (error.name === 'TimeoutError' || error.name === 'RequestTimeout')) {
      return new QueueError(
        'UNAVAILABLE',
        `${where}: the SQS endpoint did not answer in time (${error.name})`,
      );
    }
    if (!sdk.$metadata && !sdk.$fault) return undefined;
    // A body the SDK could not parse (a proxy's HTML page, a server without this operation).
    if (error.name === 'SyntaxError' || !sdk.$fault) {
      return new QueueError(
        (httpStatus ?? 500) >= 500 ? 'UNAVAILABLE' : 'INTERNAL',
        httpStatus === undefined
          ? `${where}: the endpoint's answer could not be read as SQS`
          : `${where}: the endpoint answered with something that is not SQS (HTTP ${httpStatus})`,
        { details: { ...(httpStatus ? { httpStatus } : {}) } },
      );
    }
    return classifySqsFailure(
      {
        code: typeof sdk.Code === 'string' ? sdk.Code : error.name,
        name: error.name,
        message: error.message,
        senderFault: sdk.$fault === 'client',
        ...(httpStatus ? { httpStatus } : {}),
      },
      where,
      secrets,
    );
  };
}
