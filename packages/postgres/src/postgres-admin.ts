import type * as port from '@queueport/core/driver';
import {
  DEFAULT_REDRIVE_AFTER_RECEIVES,
  FIFO_DEDUPE_WINDOW_SECONDS,
  QueueError,
} from '@queueport/core/driver';
import type { Pool } from 'pg';
import { channelOf } from './postgres-driver';
import { checkedAttributes, checkedCount, checkedId } from './rows';

export interface PostgresAdminTarget {
  pool: Pool;
  schema: string;
  /** The queue's name from its URL; refuses URLs of another database or schema. */
  locate(url: string): string;
  /** The URL that opens `queueName` here. */
  urlOf(queueName: string): string;
}

const whole = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1;

/** A queue is a row in `queues`; deleting it cascades to its messages, dedupe keys and dead letters. */
export function postgresAdmin({ pool, schema, locate, urlOf }: PostgresAdminTarget): port.QueueAdmin {
  const s = `"${schema}"`;
  const existing = async (url: string): Promise<string> => {
    const name = locate(url);
    if ((await pool.query(`SELECT 1 FROM ${s}.queues WHERE name = $1`, [name])).rowCount === 0) {
      throw new QueueError('NOT_FOUND', `no pgqueue queue named ${name} in schema ${schema}`);
    }
    return name;
  };
  const wake = (name: string) => pool.query('SELECT pg_notify($1, $2)', [channelOf(schema, name), '']);
  return {
    async createQueue(request) {
      // The same default as every admin's, so portable code never depends on one provider's.
      const redrive = request.redriveAfterReceives ?? DEFAULT_REDRIVE_AFTER_RECEIVES;
      const { dedupeWindowSeconds = FIFO_DEDUPE_WINDOW_SECONDS, ...others } = request.settings ?? {};
      if (!whole(redrive) || !whole(dedupeWindowSeconds) || Object.keys(others).length > 0) {
        throw new QueueError(
          'INVALID_ARGUMENT',
          'pgqueue queues take redriveAfterReceives and settings.dedupeWindowSeconds, whole numbers from 1, and no other setting',
        );
      }
      const url = urlOf(request.name);
      const made = await pool.query(
        `INSERT INTO ${s}.queues (name, max_receives, dedupe_window_seconds) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [locate(url), redrive, dedupeWindowSeconds],
      );
      if (made.rowCount === 0)
        throw new QueueError('INVALID_ARGUMENT', `pgqueue queue ${request.name} exists`);
      return url;
    },
    async deleteQueue(url) {
      const name = await existing(url);
      await pool.query(`DELETE FROM ${s}.queues WHERE name = $1`, [name]);
      // Waiting receives see the queue gone now, not at their next poll.
      await wake(name);
    },
    async stats(url) {
      const { rows } = await pool.query(
        `SELECT (SELECT count(*) FROM ${s}.messages WHERE queue = $1)::text AS depth,
           (SELECT count(*) FROM ${s}.dead_letters WHERE queue = $1)::text AS dead,
           (SELECT extract(epoch FROM now() - min(enqueued_at))::float8 FROM ${s}.messages
             WHERE queue = $1 AND visible_at <= now()) AS oldest`,
        [await existing(url)],
      );
      const oldest = rows[0]?.oldest ?? null;
      if (oldest !== null && !Number.isFinite(oldest))
        throw new QueueError('INTERNAL', 'pgqueue: a malformed age');
      return {
        depth: checkedCount(rows[0]?.depth, 'depth'),
        // greatest() would turn an empty queue's NULL into 0: clamped here instead.
        oldestReadyAgeSeconds: oldest === null ? null : Math.max(0, oldest),
        deadLetters: checkedCount(rows[0]?.dead, 'dead-letter count'),
      };
    },
    async listDeadLetters(url, { limit }) {
      const { rows } = await pool.query(
        `SELECT id::text, event_id, body, attributes, receive_count, reason, (extract(epoch FROM dead_at) * 1000)::float8 AS at
         FROM ${s}.dead_letters WHERE queue = $1 ORDER BY dead_at, id LIMIT $2`,
        [await existing(url), limit],
      );
      return rows.map((row) => ({
        messageId: checkedId(row.id),
        eventId: String(row.event_id),
        body: String(row.body),
        attributes: checkedAttributes(row.attributes),
        receiveCount: checkedCount(row.receive_count, 'receive count'),
        reason: String(row.reason),
        at: Number.isFinite(row.at) ? Math.round(row.at) : undefined,
      }));
    },
    async redriveDeadLetters(url, { limit }) {
      const name = await existing(url);
      // Back as new messages (new ids, counts from zero), oldest first, in one statement.
      const { rows } = await pool.query(
        `WITH moved AS (DELETE FROM ${s}.dead_letters WHERE id IN (SELECT id FROM ${s}.dead_letters
             WHERE queue = $1 ORDER BY dead_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING *),
         inserted AS (INSERT INTO ${s}.messages (queue, event_id, body, attributes, group_id, visible_at)
           SELECT queue, event_id, body, attributes, group_id, now() FROM moved ORDER BY dead_at, id RETURNING id)
         SELECT count(*)::text AS moved FROM inserted`,
        [name, Math.max(0, limit)],
      );
      const moved = checkedCount(rows[0]?.moved, 'redrive count');
      if (moved > 0) await wake(name);
      return moved;
    },
    async purge(url) {
      await pool.query(`DELETE FROM ${s}.messages WHERE queue = $1`, [await existing(url)]);
    },
    close: () => pool.end(),
  };
}
