import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { afterTarget } from './context';

/**
 * A getter for one temporary SQLite ledger per target run: opened in the first case that asks,
 * kept across the target's cases, removed after its last. Each call makes its own cache, so two
 * targets never share rows.
 */
export function ledgerPerTarget(): () => Promise<{ ledger: Ledger; clock: VirtualClock }> {
  let opened: Promise<{ ledger: Ledger; clock: VirtualClock }> | undefined;
  return () => {
    opened ??= (async () => {
      const clock = new VirtualClock();
      const temporary = await temporarySqliteLedger(clock);
      afterTarget(async () => {
        opened = undefined;
        await temporary.dispose();
      });
      return { ledger: temporary.ledger, clock };
    })();
    return opened;
  };
}
