import { messageOf } from './errors';
import { LOCALHOST } from './ports';
import { startPostgresCluster } from './postgres-cluster';
import { parsePostgresUrl, postgresLoginCheck, postgresSslAnswer } from './postgres-protocol';
import { redactUrl } from './redact';
import type { Ensured, Log } from './types';

/** Answers at the protocol level and lets the URL's role into the URL's database. */
export async function postgresUsable(url: string): Promise<void> {
  const target = parsePostgresUrl(url);
  await postgresSslAnswer(target.host, target.port);
  await postgresLoginCheck(target);
}

export interface PostgresOptions {
  /** QUEUEPORT_POSTGRES_URL: use exactly this server, never start one. */
  override?: string;
  /** Port of an already running PostgreSQL to try first; undefined skips the try. */
  probePort?: number;
  log: Log;
}

export async function ensurePostgres(options: PostgresOptions): Promise<Ensured> {
  const nothingToStop = async () => {};
  if (options.override) {
    await postgresUsable(options.override).catch((error: unknown) => {
      throw new Error(
        `QUEUEPORT_POSTGRES_URL=${redactUrl(options.override ?? '')} is not usable: ${messageOf(error)}`,
      );
    });
    return {
      url: options.override,
      how: 'from QUEUEPORT_POSTGRES_URL',
      notes: [],
      stop: nothingToStop,
    };
  }
  const notes: string[] = [];
  if (options.probePort !== undefined) {
    // These machines run PostgreSQL with trust auth for `postgres` and a database `test`.
    const url = `postgres://postgres@${LOCALHOST}:${options.probePort}/test`;
    try {
      await postgresUsable(url);
      return { url, how: 'running', notes, stop: nothingToStop };
    } catch (error) {
      notes.push(`no usable PostgreSQL at ${LOCALHOST}:${options.probePort}: ${messageOf(error)}`);
    }
  }
  try {
    const started = await startPostgresCluster(options.log);
    return { ...started, notes: [...notes, ...started.notes] };
  } catch (error) {
    throw new Error([...notes, messageOf(error)].join('; '));
  }
}
