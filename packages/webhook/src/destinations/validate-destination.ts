import { QueueError } from '@queueport/core';
import { resolveRetrySchedule } from '../retry/retry-schedule';
import type { Destination } from '../sender-types';
import { assertSigningSecret } from '../signing/signing-secret';

/**
 * Configuration mistakes caught when a destination is registered, not at its first delivery:
 * an unparsable URL, a malformed secret, a nonsensical retry policy. The SSRF verdict is not
 * taken here: it depends on the sender's options and on DNS at send time.
 */
export function assertDestination(destination: Destination): void {
  if (typeof destination.id !== 'string' || destination.id === '') {
    throw new QueueError('INVALID_ARGUMENT', 'destination id must be a non-empty string', {
      details: { field: 'id' },
    });
  }
  if (!URL.canParse(destination.url)) {
    // The URL is not echoed: its query string may carry a token.
    throw new QueueError(
      'INVALID_ARGUMENT',
      `destination ${destination.id}: url is not a valid absolute URL`,
      {
        details: { field: 'url', destinationId: destination.id },
      },
    );
  }
  try {
    destination.secrets?.forEach((secret, i) => {
      assertSigningSecret(secret, i + 1);
    });
    resolveRetrySchedule(destination.retry);
  } catch (error) {
    if (error instanceof QueueError) {
      throw new QueueError(error.code, `destination ${destination.id}: ${error.message}`, {
        details: { ...error.details, destinationId: destination.id },
      });
    }
    throw error;
  }
}
