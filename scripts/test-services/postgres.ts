import { ensureLocalService } from './ensure-local-service';
import { LOCALHOST } from './ports';
import { startPostgresCluster } from './postgres-cluster';
import { parsePostgresUrl, postgresLoginCheck, postgresSslAnswer } from './postgres-protocol';
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

export function ensurePostgres(options: PostgresOptions): Promise<Ensured> {
  return ensureLocalService({
    label: 'PostgreSQL',
    envName: 'QUEUEPORT_POSTGRES_URL',
    ...(options.override ? { override: options.override } : {}),
    // These machines run PostgreSQL with trust auth for `postgres` and a database `test`.
    ...(options.probePort === undefined
      ? {}
      : { probeUrl: `postgres://postgres@${LOCALHOST}:${options.probePort}/test` }),
    usable: postgresUsable,
    start: () => startPostgresCluster(options.log),
  });
}
