import type { Clock } from '../clock';
import { QueueError } from '../errors';

/** The Queue's bound on one provider call when its options name none. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/**
 * Added to a driver's own `callTimeoutMs`, so a driver that enforces its deadline gets to fail
 * with its own typed error (which says more) before the Queue's bound fires.
 */
export const DRIVER_TIMEOUT_MARGIN_MS = 1_000;

/** The bound on one call: the Queue's, but never below the driver's own deadline plus a margin. */
export function callBoundMs(queueTimeoutMs: number, driverTimeoutMs: number | undefined): number {
  return driverTimeoutMs === undefined
    ? queueTimeoutMs
    : Math.max(queueTimeoutMs, driverTimeoutMs + DRIVER_TIMEOUT_MARGIN_MS);
}

export interface DeadlineOptions {
  driverName: string;
  operation: string;
  timeoutMs: number;
  clock: Clock;
  /** Each aborts the call's own signal too (a receive passes the caller's, and the queue's closing). */
  signals?: ReadonlyArray<AbortSignal | undefined>;
}

/**
 * Runs one provider call against a deadline on the Queue's clock. At the deadline the call's
 * signal aborts and the promise rejects with a retryable UNAVAILABLE (`details.timedOut`); an
 * answer that arrives later is dropped, never taken for success or failure.
 */
/** Why a deadline's timer stops when its call settled first; nobody reads it. */
const CALL_SETTLED = 'call settled';

export async function withDeadline<T>(
  options: DeadlineOptions,
  run: (signal: AbortSignal) => Promise<T> | T,
): Promise<T> {
  const { driverName, operation, timeoutMs, clock } = options;
  const deadline = new AbortController();
  const stopTimer = new AbortController();
  // Forwarded by hand, not AbortSignal.any: a consumer's long-lived signal would keep one
  // dependent signal per receive alive on older Node versions.
  const callers = (options.signals ?? []).filter((s): s is AbortSignal => s !== undefined);
  const forward = (event: Event) => deadline.abort((event.target as AbortSignal).reason);
  for (const caller of callers) {
    if (caller.aborted) deadline.abort(caller.reason);
    else caller.addEventListener('abort', forward, { once: true });
  }
  const signal = deadline.signal;
  let call: Promise<T>;
  try {
    call = Promise.resolve(run(signal));
  } catch (error) {
    call = Promise.reject(error);
  }
  const expiry = clock.sleep(timeoutMs, stopTimer.signal).then(
    () => {
      // Built only on expiry: an error's stack costs a few µs, on every call of the hot path.
      const timedOut = new QueueError(
        'UNAVAILABLE',
        `${driverName}: ${operation} had no answer within ${timeoutMs} ms (the queue's call timeout)`,
        { details: { timedOut: true, timeoutMs, operation }, retryable: true },
      );
      deadline.abort(timedOut);
      throw timedOut;
    },
    // The call settled first and cancelled the timer.
    () => new Promise<never>(() => {}),
  );
  try {
    return await Promise.race([call, expiry]);
  } finally {
    // A reason given: abort() without one builds a DOMException, a few µs on every call.
    stopTimer.abort(CALL_SETTLED);
    for (const caller of callers) caller.removeEventListener('abort', forward);
  }
}
