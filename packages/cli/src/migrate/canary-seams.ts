import type { Driver } from '@queueport/core/driver';
import type { Ledger } from '@queueport/ledger';
import type { CanaryPathKey } from './canary-path';

/**
 * What the command and the tests pass besides the options, to the `…With` functions: never part
 * of the exported options, and not exported from the package.
 */
export interface CanarySeams {
  /** Milliseconds, for durations and the drain bound (the command's own clock); performance.now by default. */
  now?: () => number;
  /** The provider as a path sees it (tests: a provider that duplicates or drops). */
  wrapDriver?: (driver: Driver, path: CanaryPathKey) => Driver;
  /** The ledger a path's worker uses (tests: a path that bypasses the shared ledger). */
  wrapLedger?: (ledger: Ledger, path: CanaryPathKey) => Ledger;
}

export const monotonicNow = (): number => performance.now();
