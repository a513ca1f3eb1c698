import { type Envelope, QueueError } from '@queueport/core';

/**
 * Work for the application's reconcile workers (`enqueueScan`): envelopes on the work queue,
 * their `payload` one of `ReconcileWork`, to be handed to `handleReconcileMessage` by whatever
 * consumes that queue.
 *
 *   type `queueport.reconcile.republish`, event_id `queueport-reconcile:<run>:unit:<n>`:
 *     { "v": 1, "kind": "republish", "run": "<run>", "unit": <n>, "eventIds": ["…", …] }
 *     Load and republish these events (each is re-read from the ledger first, so one settled
 *     meanwhile is left alone).
 *   type `queueport.reconcile.scan`, event_id `queueport-reconcile:<run>:scan`:
 *     { "v": 1, "kind": "scan", "run": "<run>", "olderThanSeconds": S, "batch": N, "after": "<id>" | null }
 *     The scan did not finish in its budget: carry it on after that event id (keyset order of
 *     the ledger's scan), enqueueing republish units and, if need be, the next continuation.
 *
 * Ids only, never payloads: a unit stays small whatever the events weigh, and the payload is
 * loaded when it is republished, so it is the application's current one.
 */
export type ReconcileWork = RepublishUnit | ScanContinuation;

export interface RepublishUnit {
  v: 1;
  kind: 'republish';
  run: string;
  unit: number;
  eventIds: string[];
}

export interface ScanContinuation {
  v: 1;
  kind: 'scan';
  run: string;
  olderThanSeconds: number;
  batch: number;
  after: string | null;
}

export const RECONCILE_REPUBLISH_TYPE = 'queueport.reconcile.republish';
export const RECONCILE_SCAN_TYPE = 'queueport.reconcile.scan';

/** Whether an envelope is reconcile work, so a consumer that shares its queue can dispatch on it. */
export function isReconcileWork(envelope: Pick<Envelope, 'type'>): boolean {
  return envelope.type === RECONCILE_REPUBLISH_TYPE || envelope.type === RECONCILE_SCAN_TYPE;
}

export function unitEventId(run: string, unit: number): string {
  return `queueport-reconcile:${run}:unit:${unit}`;
}

export function scanEventId(run: string): string {
  return `queueport-reconcile:${run}:scan`;
}

/** The work an envelope carries, checked: a message that is not reconcile work is refused, not guessed at. */
export function parseReconcileWork(envelope: Pick<Envelope, 'type' | 'payload'>): ReconcileWork {
  const payload = envelope.payload as Record<string, unknown> | undefined;
  const bad = (why: string) =>
    new QueueError('INVALID_ARGUMENT', `not a reconcile work message: ${why}`, {
      details: { type: envelope.type },
    });
  if (!payload || typeof payload !== 'object' || payload.v !== 1)
    throw bad('its payload is no v1 ReconcileWork');
  if (envelope.type === RECONCILE_REPUBLISH_TYPE && payload.kind === 'republish') {
    const ids = payload.eventIds;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && id !== '')) {
      throw bad('eventIds must be a list of event ids');
    }
    return payload as unknown as RepublishUnit;
  }
  if (envelope.type === RECONCILE_SCAN_TYPE && payload.kind === 'scan') {
    const whole = (value: unknown, min: number) =>
      typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
    if (!whole(payload.olderThanSeconds, 0) || !whole(payload.batch, 1)) {
      throw bad('olderThanSeconds and batch must be whole numbers');
    }
    if (payload.after !== null && typeof payload.after !== 'string')
      throw bad('after must be an event id or null');
    return payload as unknown as ScanContinuation;
  }
  throw bad(`type ${envelope.type} with kind ${String(payload.kind)}`);
}
