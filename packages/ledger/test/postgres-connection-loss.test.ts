import { payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createPool, schemasPerFile } from './support/postgres';

const connectionString = inject('queueportServices').postgresUrl;
const schemas = schemasPerFile('ledger_loss', connectionString);

const claimOf = (eventId: string, owner: string) => ({
  eventId,
  payloadSha256: payloadDigest({ eventId }),
  owner,
  leaseSeconds: 30,
});

/** The server process of the ledger's connection that waits for the row lock, once it waits. */
async function waitingBackend(schema: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await schemas
      .admin()
      .query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%' AND position($1 in query) > 0",
        [schema],
      );
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the claim never waited on the row lock');
}

describe('PostgresLedger when the connection drops during a claim', () => {
  let ledger: Ledger;
  let schema: string;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeEach(async () => {
    schema = schemas.next();
    ledger = await openPostgresLedger({ connectionString, schema, clock: new VirtualClock() });
    uncaught.length = 0;
    process.on('uncaughtException', onUncaught);
  });

  afterEach(async () => {
    process.off('uncaughtException', onUncaught);
    await ledger.close();
    await schemas.drop(schema);
  });

  it('rejects a claim of an existing row with UNAVAILABLE when its backend is terminated mid-wait, and the process lives on', async () => {
    await ledger.claim(claimOf('held', 'worker-a'));
    // Another transaction holds the row, so the second claim waits inside its own transaction.
    const pool = await createPool(connectionString, 1);
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${schema}".ledger_events WHERE event_id = 'held' FOR UPDATE`);
      const claiming = ledger.claim(claimOf('held', 'worker-b'));
      const outcome = claiming.then(
        () => undefined,
        (error: unknown) => error,
      );
      const pid = await waitingBackend(schema);
      await schemas.admin().query('SELECT pg_terminate_backend($1)', [pid]);
      expect(await outcome).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      // pg reports the lost connection on the client a moment after the query's rejection.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(uncaught).toEqual([]);
      await holder.query('ROLLBACK');
    } finally {
      holder.release();
      await pool.end();
    }
    // The broken client was discarded: the next claim runs on a good connection.
    expect(await ledger.claim(claimOf('held', 'worker-b'))).toMatchObject({ status: 'busy' });
    expect(await ledger.claim(claimOf('fresh', 'worker-b'))).toMatchObject({ status: 'claimed' });
  });
});
