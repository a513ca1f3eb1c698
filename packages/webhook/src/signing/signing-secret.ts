import { QueueError, registerSecretPatterns } from '@queueport/core';

export const SECRET_PREFIX = 'whsec_';

/** A Standard Webhooks secret anywhere in a text: masked by every `redactSecrets` once loaded. */
export const SIGNING_SECRET_PATTERN = /\bwhsec_[A-Za-z0-9+/=]+/;
registerSecretPatterns([SIGNING_SECRET_PATTERN]);
// Standard Webhooks: 24 to 64 random bytes. Shorter keys are weak; longer ones are usually a
// pasted PEM or a hex string that only looks like base64.
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Checks the `whsec_<base64>` form before the first request, so a wrong secret fails at
 * configuration time with a clear message instead of as "bad signature" at the receiver.
 * The message names the secret by position only: never by value, not even a prefix of it.
 */
export function assertSigningSecret(secret: unknown, position = 1): asserts secret is string {
  const problem = signingSecretProblem(secret);
  if (problem !== undefined) {
    throw new QueueError('INVALID_ARGUMENT', `signing secret #${position} ${problem}`, {
      details: { field: 'secrets', position },
    });
  }
}

/** What is wrong with a secret, in words that never quote it; undefined when it is usable. */
export function signingSecretProblem(secret: unknown): string | undefined {
  if (typeof secret !== 'string') return 'is not a string';
  if (!secret.startsWith(SECRET_PREFIX)) return `must start with "${SECRET_PREFIX}" followed by base64`;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded))
    return `is not valid base64 after "${SECRET_PREFIX}"`;
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES) {
    return `decodes to ${bytes} bytes; Standard Webhooks secrets are ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes`;
  }
  return undefined;
}

/** The strings an error message or outcome must never contain for these secrets. */
export function secretFragments(secrets: readonly string[]): string[] {
  return secrets.flatMap((secret) =>
    secret.startsWith(SECRET_PREFIX) ? [secret, secret.slice(SECRET_PREFIX.length)] : [secret],
  );
}
