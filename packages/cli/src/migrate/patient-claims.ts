import { setTimeout as sleep } from 'node:timers/promises';
import type { AttemptLog, Ledger } from '@queueport/ledger';
import { decorate } from './forwarding-decorator';

/**
 * How long a worker waits for the other path's worker to settle an event it finds busy. Both
 * paths race on every canary event by design; the worker's own answer to `busy` is a release
 * for the rest of the ledger lease (tens of seconds), which would make every race a stall.
 */
const BUSY_WAIT_MS = 2_000;
const BUSY_POLL_MS = 20;

/**
 * The ledger as the canary's workers use it: a claim that finds the event busy waits a moment
 * for the holder (the other path's worker, a few milliseconds from settling) and asks again,
 * instead of handing the message back for the rest of the ledger lease. A busy claim writes
 * nothing, so asking again changes nothing; every decision is still the shared ledger's.
 */
export function patientClaims(ledger: Ledger): Ledger & Partial<AttemptLog> {
  // The attempt log forwarded where the store keeps one, absent (hasAttemptLog false) where not.
  return decorate<Ledger & Partial<AttemptLog>>(ledger, {
    async claim(request) {
      const deadline = performance.now() + BUSY_WAIT_MS;
      for (;;) {
        const result = await ledger.claim(request);
        if (result.status !== 'busy' || performance.now() >= deadline) return result;
        await sleep(BUSY_POLL_MS);
      }
    },
    // The shared ledger is its owner's to close.
    close: async () => {},
    // A batch caller reads each entry's outcome itself; waiting on one busy entry would hold the rest.
    claimMany: 'forward',
    settleMany: 'forward',
    complete: 'forward',
    fail: 'forward',
    release: 'forward',
    get: 'forward',
    scanPending: 'forward',
    scanAmbiguous: 'forward',
    list: 'forward',
    prune: 'forward',
    listAttempts: 'forward',
    pruneAttempts: 'forward',
  });
}
