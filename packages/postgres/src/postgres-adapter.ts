import { randomUUID } from 'node:crypto';
import type * as port from '@queueport/core/driver';
import {
  defineAdapter,
  guardedAdmin,
  normalizeError,
  QueueError,
  queueLocator,
  requireQueueName,
} from '@queueport/core/driver';
import type { Pool } from 'pg';
import { classifyPostgresError } from './classify-error';
import { connectionConfig, openPool } from './connection';
import { migrate } from './migrations';
import { postgresAdmin } from './postgres-admin';
import { channelOf, PostgresDriver } from './postgres-driver';
import { type ParsedPostgresUrl, parsePostgresUrl, postgresUrls } from './postgres-url';
import { checkedCount } from './rows';
import { WakeListener } from './wake-listener';

const parse = (url: URL, context: port.OpenContext) => parsePostgresUrl(url, context.env ?? process.env);

/** A pool on a schema at the current version, handed to `use`; a refused open ends the pool. */
async function withMigratedPool<T>(
  parsed: ParsedPostgresUrl,
  appName: string,
  use: (pool: Pool) => Promise<T>,
) {
  const pool = await openPool(parsed, appName);
  try {
    const client = await pool.connect();
    await migrate(client, parsed.schema).finally(() => client.release());
    return await use(pool);
  } catch (error) {
    // A refused open must not leave a socket behind: it would keep a CLI process alive.
    await pool.end().catch(() => undefined);
    const secrets = parsed.password ? [parsed.password] : [];
    throw normalizeError(error, `pgqueue:${parsed.queueName}`, classifyPostgresError, { secrets });
  }
}

/** The queue's row, checked: a URL naming no created queue is NOT_FOUND (a typo must not make one). */
async function queueSettings(pool: Pool, { schema, queueName }: ParsedPostgresUrl) {
  const sql = `SELECT max_receives, dedupe_window_seconds FROM "${schema}".queues WHERE name = $1`;
  const [row] = (await pool.query(sql, [queueName])).rows;
  if (!row)
    throw new QueueError('NOT_FOUND', `pgqueue: no queue ${queueName} in schema ${schema}; create it first`);
  const maxReceives = row.max_receives === null ? null : checkedCount(row.max_receives, 'receive limit');
  return { maxReceives, dedupeWindowSeconds: checkedCount(row.dedupe_window_seconds, 'dedupe window') };
}

const sameDatabase = (a: ParsedPostgresUrl, b: ParsedPostgresUrl) =>
  a.host === b.host && a.port === b.port && a.database === b.database && a.schema === b.schema;

/** `pgqueue://host:port/orders?database=test&user=postgres&passwordEnv=PGQUEUE_PASSWORD`: a queue in PostgreSQL. */
export const postgresQueueAdapter: port.AdapterDefinition = defineAdapter({
  scheme: 'pgqueue',
  packageName: '@queueport/postgres',
  // Leases and delays live by the database's clock, which no virtual clock moves.
  virtualClock: false,
  peers: ['pg'],
  urls: postgresUrls,
  endpoint: (url) => ({
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(url.port || 5432),
  }),
  async open(url, context) {
    const parsed = parse(url, context);
    requireQueueName('pgqueue', parsed.queueName, 'pgqueue://127.0.0.1:5432/orders?database=test');
    const applicationName = `pgqueue:${randomUUID().slice(0, 12)}`;
    return withMigratedPool(parsed, applicationName, async (pool) => {
      const channel = channelOf(parsed.schema, parsed.queueName);
      return new PostgresDriver({
        ...{ pool, applicationName, schema: parsed.schema, queueName: parsed.queueName },
        listener: new WakeListener(connectionConfig(parsed, applicationName), channel),
        settings: await queueSettings(pool, parsed),
        ...{ timeoutMs: parsed.timeoutMs, pollIntervalMs: parsed.pollIntervalMs },
      });
    });
  },
  async admin(url, context) {
    const provider = parse(url, context);
    const rules = {
      scheme: 'pgqueue',
      provider,
      sameProvider: sameDatabase,
      providerNoun: 'database and schema',
    };
    const locate = queueLocator({ ...rules, parse: (queue) => parse(queue, context) });
    return withMigratedPool(provider, `pgqueue-admin:${randomUUID().slice(0, 12)}`, async (pool) => {
      const admin = postgresAdmin({
        ...{ pool, schema: provider.schema, locate: (queue) => locate(queue).queueName },
        urlOf: (queueName) => postgresUrls.queueUrl(url, queueName),
      });
      const secrets = provider.password ? [provider.password] : [];
      return guardedAdmin(admin, 'pgqueue admin', classifyPostgresError, { secrets });
    });
  },
});
