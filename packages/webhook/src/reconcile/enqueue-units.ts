import type { AnyQueue, JsonValue } from '@queueport/core';
import type { Budget } from './budget';
import { messageOf } from './message-of';
import type { ReconcileResult } from './reconcile-result';
import {
  RECONCILE_REPUBLISH_TYPE,
  RECONCILE_SCAN_TYPE,
  type RepublishUnit,
  type ScanContinuation,
  scanEventId,
  unitEventId,
} from './reconcile-work';
import type { Survey } from './survey';

/** A republish unit's ids stay well inside any provider's message size. */
const MAX_UNIT_ID_BYTES = 128 * 1024;

export interface EnqueueRequest {
  workQueue: AnyQueue;
  olderThanSeconds: number;
  batch: number;
  /** Where the survey began: a continuation that hands over nothing carries on from here. */
  after: string | undefined;
}

/** Units of ids for the workers, then a continuation if the scan was cut short. */
export async function enqueueUnits(
  request: EnqueueRequest,
  survey: Survey,
  budget: Budget,
  result: ReconcileResult,
): Promise<void> {
  const units = unitsOf(
    survey.eligible.map((record) => record.eventId),
    request.batch,
  );
  let lastEnqueued: string | undefined;
  let allEnqueued = true;
  for (const eventIds of units) {
    if (budget.now() > budget.stopAt) {
      allEnqueued = false;
      break;
    }
    const unit: RepublishUnit = {
      v: 1,
      kind: 'republish',
      run: result.runId,
      unit: result.units + 1,
      eventIds,
    };
    try {
      await request.workQueue.publish({
        envelope: {
          event_id: unitEventId(result.runId, unit.unit),
          type: RECONCILE_REPUBLISH_TYPE,
          payload: unit as unknown as JsonValue,
        },
      });
    } catch (error) {
      // The Queue has retried already: the provider is not taking work now, so stop here.
      result.handoffErrors.push(`unit ${unit.unit}: ${messageOf(error)}`);
      allEnqueued = false;
      break;
    }
    result.units++;
    result.enqueued.push(...eventIds);
    lastEnqueued = eventIds[eventIds.length - 1];
  }
  if (allEnqueued && survey.complete) return;
  // Everything after the last id handed over is the continuation's: nothing is skipped.
  const after = allEnqueued ? (survey.cursor ?? null) : (lastEnqueued ?? request.after ?? null);
  const continuation: ScanContinuation = {
    v: 1,
    kind: 'scan',
    run: result.runId,
    olderThanSeconds: request.olderThanSeconds,
    batch: request.batch,
    after,
  };
  // Sent from the reserve: this one publish is what keeps the rest of the scan from being lost.
  try {
    await request.workQueue.publish({
      envelope: {
        event_id: scanEventId(result.runId),
        type: RECONCILE_SCAN_TYPE,
        payload: continuation as unknown as JsonValue,
      },
    });
    result.continuation = { after };
  } catch (error) {
    result.handoffErrors.push(`the scan continuation: ${messageOf(error)}`);
  }
}

function unitsOf(eventIds: readonly string[], batch: number): string[][] {
  const units: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const id of eventIds) {
    const size = Buffer.byteLength(id, 'utf8') + 3;
    if (current.length > 0 && (current.length >= batch || bytes + size > MAX_UNIT_ID_BYTES)) {
      units.push(current);
      current = [];
      bytes = 0;
    }
    current.push(id);
    bytes += size;
  }
  if (current.length > 0) units.push(current);
  return units;
}
