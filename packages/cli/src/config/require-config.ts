import type { CommandContext } from '../command-context';
import { ConfigError, UsageError } from '../errors';
import { adapterEnvNames } from '../providers/known-adapters';
import { configEnv, type Env } from './config-env';
import type { LoadedConfig } from './config-types';
import { isShowableEnvName, isShowableName } from './secret-names';

/** What a command is about to use of the configuration. */
export interface ConfigNeeds {
  /** Providers by configured name, with the flag that named each (for the message when unknown). */
  providers?: readonly { name: string; flag?: string }[];
  /** The ledger: configured, and its `postgresUrlEnv` set. */
  ledger?: boolean;
  /** The receiver, and why the command needs one (`migrate delivers its canary events to a receiver`). */
  receiver?: string;
}

/**
 * The configuration, checked for everything the command is about to use before it does
 * anything: each provider named exists, the ledger and receiver it needs are configured, and
 * every environment variable those name (`postgresUrlEnv`, `secretEnv`, and what each
 * provider URL reads by its adapter's rules, defaults included) is set. A mistake is a ConfigError (exit 2)
 * here, never a failure after a canary was published. A name that may be a pasted secret is
 * never quoted.
 */
export async function requireConfig(context: CommandContext, needs: ConfigNeeds): Promise<LoadedConfig> {
  const loaded = await context.config();
  const env = configEnv(context.io, loaded);
  const { config, file } = loaded;
  for (const { name, flag } of needs.providers ?? []) {
    if (!Object.hasOwn(config.providers, name)) {
      const known = Object.keys(config.providers);
      const shown = isShowableName(name) ? `"${name}"` : '(the name given is not shown: it may be a secret)';
      throw new UsageError(
        `${flag ? `${flag}: ` : ''}no provider named ${shown}; configured: ${known.length ? known.join(', ') : 'none'}`,
      );
    }
  }
  for (const { name } of needs.providers ?? []) {
    // The load checked every URL; a configuration built in code may hold one that is not, and
    // opening it says so as a failed step.
    const href = config.providers[name]!.url;
    if (!URL.canParse(href)) continue;
    const url = new URL(href);
    for (const variable of await adapterEnvNames(url, loaded.adapters)) {
      requireSet(env, variable, file, `providers.${name}.url`, 'names the environment variable');
    }
  }
  if (needs.ledger) {
    const { ledger } = config;
    if (!ledger) {
      throw new ConfigError(
        'no ledger is configured: add "ledger": { "sqlite": "ledger.db" } or { "postgresUrlEnv": "DATABASE_URL" }',
        file,
        'ledger',
      );
    }
    if ('postgresUrlEnv' in ledger) {
      const at = 'ledger.postgresUrlEnv';
      const value = requireSet(env, ledger.postgresUrlEnv, file, at, 'names the environment variable');
      if (!isPostgresUrl(value)) {
        throw new ConfigError(
          `names ${shownEnv(ledger.postgresUrlEnv)}, which does not hold a postgres:// URL (its value is not shown)`,
          file,
          at,
        );
      }
    }
  }
  if (needs.receiver !== undefined) {
    const { receiver } = config;
    if (!receiver) {
      throw new ConfigError(`${needs.receiver}: add "receiver": { "url": "https://…" }`, file, 'receiver');
    }
    if (receiver.secretEnv) {
      requireSet(env, receiver.secretEnv, file, 'receiver.secretEnv', 'names the environment variable');
    }
  }
  return loaded;
}

function requireSet(
  env: Env,
  variable: string,
  file: string | undefined,
  field: string,
  says: string,
): string {
  const value = env[variable];
  if (value === undefined || value.trim() === '') {
    throw new ConfigError(`${says} ${shownEnv(variable)}, which is not set`, file, field);
  }
  return value;
}

function shownEnv(variable: string): string {
  return isShowableEnvName(variable) ? variable : '(a name not shown: it may be a secret)';
}

function isPostgresUrl(value: string): boolean {
  try {
    return /^postgres(ql)?:$/.test(new URL(value.trim()).protocol);
  } catch {
    return false;
  }
}
