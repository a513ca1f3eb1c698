import type { AttemptInput } from '@queueport/ledger';
import type { Destination } from '../destinations';
import type { DeliveryOutcome } from '../sender';

/**
 * What the worker records in the ledger's attempt log for one send, built from the sender's
 * outcome. The settle that carries it is the one that records the outcome, so a settle the
 * ledger refuses would lose a delivery: whatever the ledger would refuse from a custom sender (a
 * fractional duration, a status out of range, an id the ledger cannot store) is dropped or
 * rounded here instead. The response sample is the sender's, already redacted.
 */
export function attemptOf(
  outcome: DeliveryOutcome,
  destination: Destination | undefined,
  now: number,
): AttemptInput {
  const durationMs =
    Number.isFinite(outcome.attemptMs) && outcome.attemptMs > 0 ? Math.round(outcome.attemptMs) : 0;
  const status = 'status' in outcome ? outcome.status : undefined;
  const statusCode =
    typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? status : null;
  return {
    startedAt: Math.max(0, Math.round(now - durationMs)),
    durationMs,
    statusCode,
    errorClass: errorClassOf(outcome, statusCode),
    responseSample: outcome.response ?? null,
    destinationId: destination && storableId(destination.id) ? destination.id : null,
  };
}

/**
 * A token to group failures by, from the outcome's kind and the sender's reason (classify-response.ts
 * words them). Null for a success.
 */
export function errorClassOf(outcome: DeliveryOutcome, statusCode: number | null): string | null {
  if (outcome.kind === 'delivered') return null;
  if (statusCode !== null) return 'http';
  if (outcome.kind === 'terminal' && outcome.refusal) return 'refused';
  const reason = outcome.reason;
  if (outcome.kind === 'terminal') {
    if (reason === 'no destination for this event') return 'unroutable';
    if (/^destination .* is disabled$/.test(reason)) return 'disabled';
    return 'invalid-request';
  }
  // TLS first: a certificate error's message may also speak of the connection.
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(reason)) return 'tls';
  // Never sent: the receiver cannot have acted.
  if (/connect timeout|connection refused|host not found|DNS|unreachable/i.test(reason)) return 'connect';
  if (/timeout|timed out/i.test(reason)) return 'timeout';
  if (/aborted by the caller/.test(reason)) return 'aborted';
  if (reason === 'sender is closed') return 'closed';
  if (/internal error/.test(reason)) return 'internal';
  return 'network';
}

/** The ledger's rule for a destination id (and the registry's): 1 to 256 characters, no controls. */
function storableId(id: unknown): boolean {
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    id.length <= 256 &&
    (id as unknown as { isWellFormed(): boolean }).isWellFormed() &&
    !/\p{Cc}/u.test(id)
  );
}
