import type { CliIo } from '../io';
import type { LoadedConfig } from './config-types';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where a command reads the variables the configuration names (`receiver.secretEnv`,
 * `ledger.postgresUrlEnv`, a URL's `keyEnv=`): the process's environment, with what the
 * embedded defaults generated on top.
 */
export function configEnv(io: Pick<CliIo, 'env'>, loaded: Pick<LoadedConfig, 'env'> | undefined): Env {
  return loaded?.env ? { ...io.env, ...loaded.env } : io.env;
}

/** Every variable the configuration names by a `*Env` field or URL option: their values are secrets. */
export function namedEnvVars(config: LoadedConfig['config']): string[] {
  const names: string[] = [];
  if (config.ledger && 'postgresUrlEnv' in config.ledger) names.push(config.ledger.postgresUrlEnv);
  if (config.receiver?.secretEnv) names.push(config.receiver.secretEnv);
  for (const url of [...Object.values(config.providers).map((p) => p.url), config.receiver?.url]) {
    if (!url) continue;
    try {
      for (const [key, value] of new URL(url).searchParams) if (/Env$/.test(key)) names.push(value);
    } catch {
      // Validated already; an unparseable URL names nothing.
    }
  }
  return names;
}
