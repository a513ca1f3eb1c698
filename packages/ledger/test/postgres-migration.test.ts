import { payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { expect, inject, it } from 'vitest';
import { postgresMigrations } from '../src/migrations/postgres';
import { schemasPerFile } from './support/postgres';

const connectionString = inject('queueportServices').postgresUrl;
const schemas = schemasPerFile('ledger_migrate', connectionString);
const DIGEST = payloadDigest({ migrated: true });

/**
 * A schema left at version 1 by an earlier release, holding delivered, failed and in-flight rows:
 * opening it applies version 2 (the pinned batch settle) and nothing else changes; the claims
 * made under version 1 settle through the new function, grouped, with the rule they had.
 */
it('migrates a populated version-1 schema to version 2, and its open claims settle grouped', async () => {
  const schema = schemas.next();
  const quoted = `"${schema}"`;
  const admin = schemas.admin();
  const [first] = postgresMigrations(quoted);
  if (!first) throw new Error('no migration 1');
  await admin.query(`CREATE SCHEMA ${quoted}`);
  await admin.query(
    `CREATE TABLE ${quoted}.ledger_schema_migrations (version INTEGER NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)`,
  );
  for (const statement of first.statements) await admin.query(statement);
  await admin.query(`INSERT INTO ${quoted}.ledger_schema_migrations VALUES (1, 7)`);
  const columns =
    'event_id, payload_sha256, state, attempts, lease_owner, lease_until, last_outcome, ambiguous, delivered_at, retry_at, created_at, updated_at';
  const row = (id: string, state: string, owner: string | null, outcome: string | null, ambiguous: boolean) =>
    admin.query(
      `INSERT INTO ${quoted}.ledger_events (${columns}) VALUES ($1, $2, $3, 1, $4, $5, $6, $7, NULL, NULL, 10, 10)`,
      [id, DIGEST, state, owner, owner ? 10_000_000 : null, outcome, ambiguous],
    );
  await row('old-delivered', 'delivered', null, 'http 200', false);
  await row('old-failed', 'failed', null, 'http 410', false);
  await row('open-a', 'processing', 'w1', null, false);
  await row('open-b', 'processing', 'w1', null, true);
  await row('open-other', 'processing', 'w2', null, false);

  const clock = new VirtualClock(1_000);
  const ledger = await openPostgresLedger({ connectionString, schema, clock });
  try {
    const versions = await admin.query<{ version: number; applied_at: string }>(
      `SELECT version, applied_at FROM ${quoted}.ledger_schema_migrations ORDER BY version`,
    );
    // Version 2 and every later one, applied on open.
    const later = postgresMigrations(quoted)
      .map((m) => m.version)
      .filter((version) => version > 1)
      .sort((a, b) => a - b);
    expect(versions.rows).toEqual([
      { version: 1, applied_at: '7' },
      ...later.map((version) => ({ version, applied_at: '1000' })),
    ]);
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
  const again = await openPostgresLedger({ connectionString, schema, clock });
  await again.close();
  const count = await admin.query(`SELECT count(*)::int AS n FROM ${quoted}.ledger_schema_migrations`);
  expect(count.rows[0].n).toBe(postgresMigrations(quoted).length);
});
