import type { Clock } from '@queueport/core';
import { type ScratchLedger, scratchLedgers } from '@queueport/ledger/testing';
import { inject } from 'vitest';

export type OpenedLedger = ScratchLedger;
export type OpenLedger = (clock: Clock) => Promise<OpenedLedger>;

/**
 * Both stores, as `describe.each` takes them: a fresh SQLite file, a fresh PostgreSQL schema
 * named after `tag` (an identifier), so what a crashed run left behind says which test it was.
 */
export function ledgerStores(tag: string): [name: string, open: OpenLedger][] {
  return scratchLedgers({ tag: `webhook_${tag}`, postgresUrl: inject('queueportServices').postgresUrl }).map(
    ({ name, open }) => [name, open],
  );
}
