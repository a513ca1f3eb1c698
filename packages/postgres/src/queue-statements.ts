/**
 * The SQL of each queue operation, one statement each (atomic without a transaction); `s` is the
 * quoted schema. Every time is the database's now(), never a client's: leases and delays mean the
 * same to every process. A settle ($1 queue, $2 ids, $3 tokens, then its own) touches a row only
 * while it is leased under the entry's token, and answers the id and token of each it touched.
 */
export function queueStatements(s: string) {
  // A plain CTE runs only where referenced, and an unused LEFT JOIN is planned away: each
  // statement answers `woken` so its NOTIFY (once, if any row moved) is really sent.
  const notify = (rows: string, channel: string) =>
    `wake AS (SELECT pg_notify(${channel}, '') FROM (SELECT 1 FROM ${rows} LIMIT 1) AS one)`;
  const byToken = 'm.queue = $1 AND m.id = r.id AND m.lease_token = r.token';
  return {
    queueExists: `SELECT 1 FROM ${s}.queues WHERE name = $1`,
    // A message claims its key with a fresh id, or takes over an expired claim; a key still held
    // keeps its message and the new one is not stored. $1 queue, $2 channel, $3 window, columns.
    publish: `WITH input AS MATERIALIZED (SELECT i.*, nextval('${s}.messages_id_seq') AS new_id
        FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[])
        WITH ORDINALITY AS i(dedupe_key, event_id, body, attributes, group_id, delay_seconds, ord)
      ), claimed AS (INSERT INTO ${s}.dedupe AS d (queue, dedupe_key, message_id, expires_at)
        SELECT $1, dedupe_key, new_id, now() + $3::int * interval '1 second' FROM input
        ON CONFLICT (queue, dedupe_key) DO UPDATE SET message_id = EXCLUDED.message_id,
          expires_at = EXCLUDED.expires_at WHERE d.expires_at <= now() RETURNING d.message_id
      ), inserted AS (INSERT INTO ${s}.messages (id, queue, event_id, body, attributes, group_id, visible_at)
        SELECT i.new_id, $1, event_id, body, attributes, group_id, now() + delay_seconds * interval '1 second'
        FROM input i JOIN claimed c ON c.message_id = i.new_id RETURNING id
      ), ${notify('inserted', '$2')}
      SELECT i.dedupe_key, c.message_id::text AS fresh_id, d.message_id::text AS held_id, woke.count AS woken
      FROM input i
      LEFT JOIN claimed c ON c.message_id = i.new_id
      LEFT JOIN ${s}.dedupe d ON d.queue = $1 AND d.dedupe_key = i.dedupe_key
      LEFT JOIN (SELECT count(*) FROM wake) AS woke ON true ORDER BY i.ord`,
    // Bounded: a backlog of expired keys goes a slice per sweep, never in one long lock.
    sweepDedupe: `DELETE FROM ${s}.dedupe WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM ${s}.dedupe WHERE expires_at <= now() LIMIT 1000))`,
    // Leases up to $2 visible rows under a fresh token for $3 s. Rows already received $4 times
    // (null: no limit) go to the dead letters instead, as a redrive policy would.
    receive: `WITH exhausted AS (DELETE FROM ${s}.messages WHERE id IN (SELECT id FROM ${s}.messages
        WHERE queue = $1 AND visible_at <= now() AND receive_count >= $4
        ORDER BY visible_at, id LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING *
      ), buried AS (INSERT INTO ${s}.dead_letters (id, queue, event_id, body, attributes, group_id, receive_count, reason)
        SELECT id, queue, event_id, body, attributes, group_id, receive_count, 'received ' || receive_count || ' times'
        FROM exhausted
      ), picked AS (SELECT id FROM ${s}.messages
        WHERE queue = $1 AND visible_at <= now() AND ($4::int IS NULL OR receive_count < $4)
        ORDER BY visible_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
      UPDATE ${s}.messages m SET visible_at = now() + $3::int * interval '1 second',
        lease_token = gen_random_uuid(), receive_count = m.receive_count + 1 FROM picked WHERE m.id = picked.id
      RETURNING m.id::text AS id, m.lease_token::text AS token, m.body, m.attributes, m.receive_count, m.group_id`,
    ack: `DELETE FROM ${s}.messages m USING unnest($2::bigint[], $3::uuid[]) AS r(id, token)
      WHERE ${byToken} RETURNING m.id::text AS id, r.token::text AS token`,
    // $4 delays, $5 the channel: a released message wakes waiting receives.
    release: `WITH released AS (UPDATE ${s}.messages m
        SET visible_at = now() + r.delay * interval '1 second', lease_token = NULL
        FROM unnest($2::bigint[], $3::uuid[], $4::int[]) AS r(id, token, delay) WHERE ${byToken}
        RETURNING m.id, r.token), ${notify('released', '$5')}
      SELECT id::text AS id, token::text AS token, w.count AS woken
      FROM released LEFT JOIN (SELECT count(*) FROM wake) AS w ON true`,
    // What a receive aborted mid-statement took: visible again, its receive not counted (nobody saw it).
    giveBack: `WITH given AS (UPDATE ${s}.messages m
        SET visible_at = now(), lease_token = NULL, receive_count = m.receive_count - 1
        FROM unnest($2::bigint[], $3::uuid[]) AS r(id, token) WHERE ${byToken}
        RETURNING m.id, r.token), ${notify('given', '$4')}
      SELECT id::text AS id, token::text AS token, w.count AS woken
      FROM given LEFT JOIN (SELECT count(*) FROM wake) AS w ON true`,
    // Only a live lease is extended: one that ran out may be someone else's any moment.
    extend: `UPDATE ${s}.messages m SET visible_at = now() + r.lease * interval '1 second'
      FROM unnest($2::bigint[], $3::uuid[], $4::int[]) AS r(id, token, lease)
      WHERE ${byToken} AND m.visible_at > now() RETURNING m.id::text AS id, r.token::text AS token`,
    deadLetter: `WITH moved AS (DELETE FROM ${s}.messages m
        USING unnest($2::bigint[], $3::uuid[], $4::text[]) AS r(id, token, reason) WHERE ${byToken}
        RETURNING m.id, m.queue, m.event_id, m.body, m.attributes, m.group_id, m.receive_count, r.reason, r.token
      ), buried AS (INSERT INTO ${s}.dead_letters (id, queue, event_id, body, attributes, group_id, receive_count, reason)
        SELECT id, queue, event_id, body, attributes, group_id, receive_count, reason FROM moved)
      SELECT id::text AS id, token::text AS token FROM moved`,
  };
}
