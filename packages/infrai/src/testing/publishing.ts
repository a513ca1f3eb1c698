import { canonicalJson, type JsonValue } from '@queueport/core';
import type { CapabilityCall, CapabilityResult, SimulatorState } from './capability-call';
import type { EnvelopeError } from './envelope';
import { idempotently } from './idempotent-call';
import { integerOr, objectParam, optionalString, type Params, requiredString } from './params';
import { MAX_PAYLOAD_BYTES, QUEUE_DEFAULTS } from './queue-rules';
import { errorShape, SimulatorError } from './simulator-error';
import type { StoredQueue } from './stored-queue';

export function publish(state: SimulatorState, call: CapabilityCall): CapabilityResult {
  const queue = state.store.get(requiredString(call.params, 'queue'));
  return publishEntry(state, call, queue, call.params, call.params);
}

/**
 * Each entry on its own: a conflicting key or an oversized payload fails that entry only, in its
 * `results` slot, and a repeated entry gets its first result back. The call as a whole counts as
 * a replay (free, `cache_hit`) only when every entry was one.
 */
export function publishBatch(state: SimulatorState, call: CapabilityCall): CapabilityResult {
  const name = requiredString(call.params, 'queue');
  const queue = state.store.get(name);
  const messages = call.params.messages;
  if (!Array.isArray(messages))
    throw new SimulatorError('VALIDATION_ERROR', 'request field /messages must be an array');
  let replays = 0;
  const results = messages.map((entry: unknown, index) => {
    try {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        throw new SimulatorError('VALIDATION_ERROR', `request field /messages/${index} must be an object`);
      }
      const outcome = publishEntry(state, call, queue, entry as Params, { ...entry, queue: name });
      if (outcome.replayed) replays += 1;
      return { ok: true, ...outcome.data };
    } catch (error) {
      if (!(error instanceof SimulatorError)) throw error;
      return { ok: false, error: entryError(state, call.capability, error) };
    }
  });
  return { data: { results }, replayed: messages.length > 0 && replays === messages.length };
}

function publishEntry(
  state: SimulatorState,
  call: CapabilityCall,
  queue: StoredQueue,
  entry: Params,
  request: Params,
): CapabilityResult {
  const payload = objectParam(entry, 'payload');
  const bytes = Buffer.byteLength(canonicalJson(payload as JsonValue, { maxBytes: Number.MAX_SAFE_INTEGER }));
  if (bytes > MAX_PAYLOAD_BYTES) {
    throw new SimulatorError(
      'PAYLOAD_TOO_LARGE',
      `the payload is ${bytes} bytes of canonical JSON; at most ${MAX_PAYLOAD_BYTES} are accepted`,
      { hint: 'store large payloads elsewhere and publish a reference' },
    );
  }
  const delaySeconds = integerOr(entry, 'delay_seconds', 0);
  const priority = integerOr(entry, 'priority', QUEUE_DEFAULTS.priority);
  const scope = { apiKey: call.apiKey, capability: call.capability };
  return idempotently(
    state.idempotency,
    scope,
    optionalString(entry, 'idempotency_key'),
    request,
    call.now,
    () => ({
      message_id: queue.publish(payload, delaySeconds, priority, call.now).id,
    }),
  );
}

function entryError(state: SimulatorState, capability: string, error: SimulatorError): EnvelopeError {
  return {
    code: error.code,
    message: error.message,
    hint: error.options.hint ?? null,
    retryable: errorShape(state.snapshot, capability, error.code).retryable,
  };
}
