import { defineUrlGrammar, readEnv, urlOption } from '@queueport/core/driver';

/** A schema name we quote ourselves: a plain identifier, as the ledger takes it. */
export const SCHEMA_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
export const DEFAULT_SCHEMA = 'queueport_queue';

/**
 * `pgqueue://host:port/orders?database=test&user=postgres&schema=queueport_queue&passwordEnv=PGQUEUE_PASSWORD`:
 * the path names the queue (one segment, as every queueport URL), the database and role are
 * options, and the password is read from the variable `passwordEnv` names, never the URL, so a
 * URL can be logged. The adapter's `urls`.
 */
export const postgresUrls = defineUrlGrammar({
  scheme: 'pgqueue',
  queueName: 'path',
  example: 'pgqueue://127.0.0.1:5432/orders?database=test',
  queueNameRule: {
    // No control characters: the name is a column value and shows in listings.
    accepts: (name) => name.length <= 200 && ![...name].some((c) => c < ' ' || c === '\x7f'),
    refusal: 'a pgqueue queue name is at most 200 characters, none of them control characters',
  },
  credentials: 'give user= and name an environment variable with passwordEnv=',
  secretOptions: { names: ['password', 'pass', 'pwd'], instead: 'name a variable with passwordEnv=' },
  options: {
    database: urlOption.string(),
    user: urlOption.string(),
    schema: urlOption.custom({
      expected: 'a plain identifier (lower-case letters, digits, _; at most 63)',
      parse: (text) => (SCHEMA_IDENTIFIER.test(text) ? text : undefined),
    }),
    passwordEnv: urlOption.environmentVariable(),
    tls: urlOption.boolean({ default: false }),
    // Each statement's bound, server side and client side; also the wait for a pooled connection.
    timeoutMs: urlOption.milliseconds({ min: 100, max: 600_000, default: 10_000 }),
    poolMax: urlOption.integer({ min: 1, max: 100, default: 10 }),
    // The fallback poll of a waiting receive, for a notification lost with its connection.
    pollIntervalMs: urlOption.milliseconds({ min: 50, max: 10_000, default: 500 }),
  },
});

export type ParsedPostgresUrl = ReturnType<typeof parsePostgresUrl>;

/** A pgqueue:// URL as the driver takes it; the password from `env`, never the URL. */
export function parsePostgresUrl(url: URL, env: Readonly<Record<string, string | undefined>>) {
  const { queueName, options } = postgresUrls.read(url);
  const { passwordEnv, database = 'postgres', user = 'postgres', schema = DEFAULT_SCHEMA, ...rest } = options;
  const where = { scheme: 'pgqueue', option: 'passwordEnv' };
  return {
    /** Empty for a provider URL (the admin's). */
    queueName,
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: url.port ? Number(url.port) : 5432,
    ...{ database, user, schema },
    password: passwordEnv === undefined ? undefined : readEnv(passwordEnv, env, where),
    ...rest,
  };
}
