import type { Migration } from '../migrations/migration';

/**
 * The attempt log's schema. The SQL is written out here, not built from the statements the code
 * runs today: a migration is what a database was given once, and must stay so whatever the
 * statements become.
 */

const TABLE = 'ledger_attempts';
const EVENTS = 'ledger_events';

/** SQLite version 2. */
export const SQLITE_ATTEMPTS_MIGRATION: Migration = {
  version: 2,
  name: 'ledger attempts',
  statements: [
    // A rowid table: a row carries up to 2 KiB of response sample, and WITHOUT ROWID suits small rows.
    `CREATE TABLE ${TABLE} (
      event_id TEXT NOT NULL,
      attempt INTEGER NOT NULL CHECK (attempt >= 1),
      started_at INTEGER NOT NULL,
      duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
      outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed')),
      status_code INTEGER,
      error_class TEXT,
      ambiguous INTEGER NOT NULL CHECK (ambiguous IN (0, 1)),
      response_sample TEXT,
      response_truncated INTEGER NOT NULL CHECK (response_truncated IN (0, 1)),
      destination_id TEXT,
      PRIMARY KEY (event_id, attempt)
    ) STRICT`,
    `CREATE INDEX ledger_attempts_started ON ${TABLE} (started_at)`,
  ],
};

/** The function migration 3 adds beside migration 2's, with the same name. */
const SETTLE_BATCH_FUNCTION = 'ledger_settle_batch';

/**
 * PostgreSQL version 3: the table, and the grouped settle that records attempts. The new function
 * is an overload of migration 2's (same name, eight more parameters), not a replacement: a
 * process of the previous release, opened before this migration ran, keeps calling the
 * eight-parameter form during a rolling upgrade, and this release calls it too for a batch with
 * no attempt in it. The UPDATE is migration 2's, its plan pinned the same way; RETURNING carries
 * each settled row whole (`t`), so the attempts are inserted for the rows the UPDATE settled
 * and for no other. `schema` is a validated identifier, already quoted.
 */
export function postgresAttemptsMigration(schema: string): Migration {
  const table = `${schema}.${TABLE}`;
  const events = `${schema}.${EVENTS}`;
  return {
    version: 3,
    name: 'ledger attempts',
    statements: [
      `CREATE TABLE ${table} (
        event_id TEXT COLLATE "C" NOT NULL,
        attempt INTEGER NOT NULL CHECK (attempt >= 1),
        started_at BIGINT NOT NULL,
        duration_ms BIGINT NOT NULL CHECK (duration_ms >= 0),
        outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed')),
        status_code INTEGER,
        error_class TEXT,
        ambiguous BOOLEAN NOT NULL,
        response_sample TEXT,
        response_truncated BOOLEAN NOT NULL,
        destination_id TEXT,
        PRIMARY KEY (event_id, attempt)
      )`,
      `CREATE INDEX ledger_attempts_started ON ${table} (started_at)`,
      `CREATE FUNCTION ${schema}.${SETTLE_BATCH_FUNCTION}(
          text[], text[], text[], text[], bigint[], bigint[], boolean[], bigint,
          bigint[], bigint[], text[], integer[], text[], text[], boolean[], text[])
        RETURNS SETOF ${events} LANGUAGE plpgsql
        SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
        AS $settle$ BEGIN RETURN QUERY
          WITH settled AS (
            UPDATE ${events} AS t SET state = v.state, last_outcome = v.last_outcome, lease_owner = NULL,
              lease_until = NULL, delivered_at = v.delivered_at, retry_at = v.retry_at, updated_at = $8,
              ambiguous = (t.ambiguous OR v.ambiguous)
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::boolean[],
              $9::bigint[], $10::bigint[], $11::text[], $12::integer[], $13::text[], $14::text[], $15::boolean[], $16::text[])
              AS v(event_id, owner, state, last_outcome, delivered_at, retry_at, ambiguous,
                a_started_at, a_duration_ms, a_outcome, a_status_code, a_error_class, a_response_sample,
                a_response_truncated, a_destination_id)
            WHERE t.event_id = v.event_id AND t.state IS NOT DISTINCT FROM 'processing' AND t.lease_owner = v.owner
            RETURNING t AS settled_row, v.ambiguous AS a_ambiguous, v.a_started_at, v.a_duration_ms, v.a_outcome,
              v.a_status_code, v.a_error_class, v.a_response_sample, v.a_response_truncated, v.a_destination_id
          ), recorded AS (
            INSERT INTO ${table} (event_id, attempt, started_at, duration_ms, outcome, status_code, error_class,
              ambiguous, response_sample, response_truncated, destination_id)
            SELECT (s.settled_row).event_id, (s.settled_row).attempts, s.a_started_at, s.a_duration_ms, s.a_outcome,
              s.a_status_code, s.a_error_class, s.a_ambiguous, s.a_response_sample, s.a_response_truncated,
              s.a_destination_id
            FROM settled s WHERE s.a_outcome IS NOT NULL
            ON CONFLICT (event_id, attempt) DO NOTHING
          )
          SELECT (s.settled_row).* FROM settled s;
        END $settle$`,
    ],
  };
}
