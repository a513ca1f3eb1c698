import { VirtualClock } from '@queueport/core/testing';
import { expect, inject, it } from 'vitest';
import { postgresAt } from './support/earlier-database';
import { schemasPerFile } from './support/postgres';

const schemas = schemasPerFile('ledger_migrate', inject('queueportServices').postgresUrl);

/**
 * A schema left at version 1 by an earlier release, holding delivered, failed and in-flight rows:
 * opening it applies version 2 (the pinned batch settle) and nothing else changes; the claims
 * made under version 1 settle through the new function, grouped, with the rule they had.
 */
it('migrates a populated version-1 schema to version 2, and its open claims settle grouped', async () => {
  const db = await postgresAt(schemas, 1, [
    { eventId: 'old-delivered', state: 'delivered', attempts: 1, leaseOwner: null, lastOutcome: 'http 200' },
    { eventId: 'old-failed', state: 'failed', attempts: 1, leaseOwner: null, lastOutcome: 'http 410' },
    { eventId: 'open-a', state: 'processing', attempts: 1, leaseOwner: 'w1', lastOutcome: null },
    {
      eventId: 'open-b',
      state: 'processing',
      attempts: 1,
      leaseOwner: 'w1',
      lastOutcome: null,
      ambiguous: true,
    },
    { eventId: 'open-other', state: 'processing', attempts: 1, leaseOwner: 'w2', lastOutcome: null },
  ]);
  // Version 2 and every later one, applied on open.
  const upgraded = db.upgradedAt(1_000);

  const clock = new VirtualClock(1_000);
  const ledger = await db.open({ clock });
  try {
    expect(await db.applied()).toEqual(upgraded);
    expect(await ledger.get('old-delivered')).toMatchObject({ state: 'delivered', lastOutcome: 'http 200' });
    expect(await ledger.get('old-failed')).toMatchObject({ state: 'failed', lastOutcome: 'http 410' });

    const settled = await ledger.settleMany([
      { kind: 'complete', eventId: 'open-a', owner: 'w1', outcome: 'http 200' },
      { kind: 'complete', eventId: 'open-b', owner: 'w1', outcome: 'http 202' },
      // Held by another worker: its lease is not this caller's to settle.
      { kind: 'complete', eventId: 'open-other', owner: 'w1', outcome: 'http 200' },
    ]);
    expect(settled[0]).toMatchObject({
      ok: true,
      value: { state: 'delivered', deliveredAt: 1_000, attempts: 1 },
    });
    // Ambiguous stays set: a settle never clears it.
    expect(settled[1]).toMatchObject({ ok: true, value: { state: 'delivered', ambiguous: true } });
    expect(settled[2]).toMatchObject({ ok: false, error: { code: 'LEASE_LOST' } });
    expect(await ledger.get('open-other')).toMatchObject({ state: 'processing', leaseOwner: 'w2' });
  } finally {
    await ledger.close();
  }
  // Reopening applies nothing more.
  const again = await db.open({ clock: new VirtualClock(5_000) });
  await again.close();
  expect(await db.applied()).toEqual(upgraded);
});
