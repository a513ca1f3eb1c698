import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { patientClaims } from '../src/migrate/patient-claims';
import { tempDir } from './support/test-io';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean();
  cleanup = [];
});

async function sqliteLedger(): Promise<Ledger> {
  const dir = await tempDir();
  cleanup.push(dir.remove);
  const ledger = await openSqliteLedger({ filename: dir.file('ledger.db') });
  cleanup.push(() => ledger.close());
  return ledger;
}

const SHA = 'a'.repeat(64);

describe("the canary's patient ledger", () => {
  it('forwards every method of the shared ledger, list included, and answers from it', async () => {
    const shared = await sqliteLedger();
    const patient = patientClaims(shared);

    await patient.claim({ eventId: 'evt_1', payloadSha256: SHA, owner: 'w1', leaseSeconds: 30 });
    await patient.complete({ eventId: 'evt_1', owner: 'w1', outcome: 'HTTP 200' });

    // `list` is optional on the interface until every implementer has it (observed-ledger.ts).
    expect((await patient.list?.({ limit: 10 }))?.map((record) => record.eventId)).toEqual(['evt_1']);
    expect(await patient.get('evt_1')).toMatchObject({ state: 'delivered' });
    // Whatever the interface grows to: each method the store has, the wrapper has.
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(shared)).filter(
      (name) =>
        name !== 'constructor' && typeof (shared as unknown as Record<string, unknown>)[name] === 'function',
    );
    for (const name of methods) {
      expect(typeof (patient as unknown as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('leaves the shared ledger open when it is closed: the ledger is its owner to close', async () => {
    const shared = await sqliteLedger();
    await patientClaims(shared).close();
    expect(await shared.get('evt_none')).toBeUndefined();
  });
});
