import type { DeliveryOutcome, DisableAfter } from '../../sender-types';

interface Run {
  failures: number;
  since: number;
}

/**
 * Consecutive failed sends per destination, in this worker. A send counts when it reached the
 * destination, or tried to: a `retry` outcome, or a `terminal` one with a status (the receiver
 * refused). A refusal of our own making (the SSRF guard, a request that could not be built)
 * says nothing about the destination, so it neither counts nor resets the run.
 */
export class FailureTracker {
  readonly #runs = new Map<string, Run>();

  /** Records one send's outcome; returns why to disable the destination when this one crossed the bound. */
  record(
    destinationId: string,
    bound: DisableAfter | undefined,
    outcome: DeliveryOutcome,
    now: number,
  ): string | undefined {
    if (outcome.kind === 'delivered') {
      this.#runs.delete(destinationId);
      return undefined;
    }
    if (!bound || !countsAsFailure(outcome)) return undefined;
    const run = this.#runs.get(destinationId) ?? { failures: 0, since: now };
    run.failures++;
    this.#runs.set(destinationId, run);
    const failingMs = now - run.since;
    if (run.failures < bound.consecutiveFailures || failingMs < (bound.minFailingMs ?? 0)) return undefined;
    // A fresh run after the trip: an enabled destination starts from nothing.
    this.#runs.delete(destinationId);
    return `${run.failures} consecutive failed sends over ${failingMs} ms (the last: ${failureLabel(outcome)})`;
  }
}

function countsAsFailure(outcome: DeliveryOutcome): boolean {
  return outcome.kind === 'retry' || (outcome.kind === 'terminal' && outcome.status !== undefined);
}

/** A label that quotes nothing of the request: reasons may name a host, never a status. */
function failureLabel(outcome: DeliveryOutcome): string {
  if ('status' in outcome && outcome.status !== undefined) return `http ${outcome.status}`;
  if (outcome.kind === 'retry' && outcome.reason.startsWith('request timeout')) return 'request timeout';
  if (outcome.kind === 'retry' && outcome.ambiguous) return 'no answer after the request was sent';
  return 'no answer';
}
