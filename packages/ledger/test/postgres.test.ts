import { payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { describeAttemptContract, describeLedgerContract, type OpenLedger } from '@queueport/ledger/testing';
import { describe, expect, inject, it } from 'vitest';
import { postgresMigrations } from '../src/migrations/postgres';
import { createPool, schemasPerFile } from './support/postgres';

const connectionString = inject('queueportServices').postgresUrl;
// Every ledger opened here gets its own schema, all dropped after the last test.
const schemas = schemasPerFile('ledger_test', connectionString);
const nextSchema = schemas.next;
const admin = () => schemas.admin();

async function appliedMigrations(schema: string): Promise<number[]> {
  const { rows } = await admin().query<{ version: number }>(
    `SELECT version FROM "${schema}".ledger_schema_migrations ORDER BY version`,
  );
  return rows.map((row) => row.version);
}

const openPostgres: OpenLedger = async (clock, options) => {
  const schema = nextSchema();
  const ledger = await openPostgresLedger({ connectionString, schema, clock, ...options });
  const opened: Ledger[] = [ledger];
  return {
    ledger,
    reopen: async () => {
      const another = await openPostgresLedger({ connectionString, schema, clock });
      opened.push(another);
      return another;
    },
    appliedMigrations: () => appliedMigrations(schema),
    cleanup: async () => {
      for (const each of opened) await each.close();
      await schemas.drop(schema);
    },
  };
};

describeLedgerContract('postgres', openPostgres);
describeAttemptContract('postgres', openPostgres);

describe('PostgresLedger under concurrency', () => {
  const CONTENDERS = 16;

  it('concurrent claims of one id from many connections: exactly one wins', async () => {
    const schema = nextSchema();
    const clock = new VirtualClock();
    // Sixteen pools opening a schema that does not exist yet: the migrators queue on the lock.
    const ledgers = await Promise.all(
      Array.from({ length: CONTENDERS }, () => openPostgresLedger({ connectionString, schema, clock })),
    );
    try {
      expect(await appliedMigrations(schema)).toEqual(
        postgresMigrations('"s"')
          .map((m) => m.version)
          .sort((a, b) => a - b),
      );
      const ids = ['race-1', 'race-2', 'race-3', 'race-4', 'race-5', 'race-6'];
      const claimAll = (eventId: string) =>
        Promise.all(
          ledgers.map((ledger, index) =>
            ledger.claim({
              eventId,
              payloadSha256: payloadDigest({ eventId }),
              owner: `worker-${index}`,
              leaseSeconds: 30,
            }),
          ),
        );
      for (const eventId of ids) {
        const statuses = (await claimAll(eventId)).map((result) => result.status);
        expect(
          statuses.filter((status) => status === 'claimed'),
          eventId,
        ).toHaveLength(1);
        expect(statuses.filter((status) => status === 'busy')).toHaveLength(CONTENDERS - 1);
      }
      // Every lease lapses; the re-takes race on the locked-row path.
      await clock.advance(30_000);
      for (const eventId of ids) {
        const statuses = (await claimAll(eventId)).map((result) => result.status);
        expect(
          statuses.filter((status) => status === 'claimed'),
          eventId,
        ).toHaveLength(1);
        expect(await ledgers[0]!.get(eventId)).toMatchObject({ attempts: 2, ambiguous: true });
      }
    } finally {
      await Promise.all(ledgers.map((ledger) => ledger.close()));
    }
  });
});

describe('PostgresLedger options', () => {
  it('uses a pool it is given and leaves it open on close', async () => {
    const pool = await createPool(connectionString);
    const schema = nextSchema();
    try {
      const ledger = await openPostgresLedger({ pool, schema, clock: new VirtualClock() });
      await ledger.claim({ eventId: 'e', payloadSha256: payloadDigest({}), owner: 'a', leaseSeconds: 5 });
      await ledger.close();
      const { rows } = await pool.query(`SELECT event_id, lease_until FROM "${schema}".ledger_events`);
      expect(rows).toEqual([{ event_id: 'e', lease_until: String(Date.UTC(2026, 0, 1) + 5000) }]);
    } finally {
      await pool.end();
    }
  });

  it('stores no payload column, and times as BIGINT epoch ms from the injected clock', async () => {
    const schema = nextSchema();
    const ledger = await openPostgresLedger({ connectionString, schema, clock: new VirtualClock(42) });
    await ledger.close();
    const { rows } = await admin().query<{ column_name: string; data_type: string }>(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
      [schema, 'ledger_events'],
    );
    const types = Object.fromEntries(rows.map((row) => [row.column_name, row.data_type]));
    expect(Object.keys(types)).not.toContain('payload');
    for (const column of ['lease_until', 'delivered_at', 'retry_at', 'created_at', 'updated_at']) {
      expect(types[column]).toBe('bigint');
    }
    expect(
      (await admin().query(`SELECT applied_at FROM "${schema}".ledger_schema_migrations`)).rows[0].applied_at,
    ).toBe('42');
  });

  it('refuses a schema that is not a plain identifier, and a pool together with a connection string', async () => {
    await expect(openPostgresLedger({ connectionString, schema: 'bad"; DROP' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(openPostgresLedger({ connectionString, pool: admin() })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('reports an unreachable server as UNAVAILABLE (retryable)', async () => {
    await expect(
      openPostgresLedger({
        connectionString: 'postgres://postgres@127.0.0.1:1/test',
        schema: nextSchema(),
        openTimeoutMs: 300,
      }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', retryable: true });
  });
});
