import { access } from 'node:fs/promises';
import path from 'node:path';
import type { AdapterDefinition } from '@queueport/core/driver';
import { ConfigError } from '../errors';
import { registerBuiltInSecretPatterns } from '../providers/built-in-secret-patterns';
import { checkProviderUrls } from './check-provider-urls';
import type { LoadedConfig } from './config-types';
import { loadConfiguredAdapters } from './configured-adapters';
import { startEmbeddedDefaults } from './embedded-defaults';
import { readConfigFile } from './read-config-file';
import { validateConfig } from './validate-config';

/** Looked for in this order in the working directory. */
export const CONFIG_FILE_NAMES = [
  'queueport.config.json',
  'queueport.config.mjs',
  'queueport.config.ts',
] as const;

export interface LoadConfigOptions {
  cwd: string;
  /** `--config <file>`, relative to `cwd`; without it the working directory is searched. */
  configPath?: string | undefined;
  /** Schemes of adapters a program passes in besides the built-in ones. */
  extraSchemes?: readonly string[];
  /** A program's own adapters (their schemes count as `extraSchemes`; their URL rules check their URLs). */
  adapters?: readonly AdapterDefinition[];
}

/**
 * The configuration: the file given, the one found in `cwd`, or (with neither) the embedded
 * defaults, started here and stopped by `close()`.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  // A program may load a configuration without main: a provider's key is known before the check.
  await registerBuiltInSecretPatterns();
  const file = options.configPath
    ? await givenFile(path.resolve(options.cwd, options.configPath))
    : await foundFile(options.cwd);
  if (!file) return startEmbeddedDefaults();
  const raw = await readConfigFile(file);
  const programAdapters = options.adapters ?? [];
  const adapters = [...programAdapters, ...(await loadConfiguredAdapters(raw, file, programAdapters))];
  const ownSchemes = [...new Set([...(options.extraSchemes ?? []), ...adapters.map((a) => a.scheme)])];
  const config = validateConfig(raw, file, { extraSchemes: ownSchemes });
  await checkProviderUrls(config, file, adapters);
  return { config, file, ownSchemes, adapters, close: async () => {} };
}

async function givenFile(file: string): Promise<string> {
  if (!(await exists(file))) throw new ConfigError('does not exist (given with --config)', file, undefined);
  return file;
}

async function foundFile(cwd: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    const file = path.join(cwd, name);
    if (await exists(file)) found.push(file);
  }
  if (found.length > 1) {
    throw new ConfigError(
      `${found.map((f) => path.basename(f)).join(' and ')} are both in ${cwd}: keep one, or pick one with --config`,
      undefined,
      undefined,
    );
  }
  return found[0];
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
