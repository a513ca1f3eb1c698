import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PayloadLoader } from '@queueport/webhook/reconcile';
import type { LoadedConfig } from '../config/config-types';
import { ConfigError } from '../errors';

/**
 * The module `payloadLoader` names, relative to the configuration file (to the working directory
 * for the embedded defaults); its default export loads an event's payload by id.
 */
export async function loadPayloadLoader(loaded: LoadedConfig, cwd: string): Promise<PayloadLoader> {
  const field = loaded.config.payloadLoader;
  if (!field) {
    throw new ConfigError(
      'reconcile republishes through the application’s payload loader, since the ledger never stores payloads: set "payloadLoader" to a module whose default export is (eventId) => Promise<{ type, payload } | undefined>',
      loaded.file,
      'payloadLoader',
    );
  }
  const file = path.resolve(loaded.file ? path.dirname(loaded.file) : cwd, field);
  let loadedModule: { default?: unknown };
  try {
    loadedModule = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new ConfigError(
      `cannot load ${field}: ${error instanceof Error ? error.message : String(error)}`,
      loaded.file,
      'payloadLoader',
    );
  }
  const load = loadedModule.default;
  if (typeof load !== 'function') {
    throw new ConfigError(
      `${field} has no default export of the form (eventId) => Promise<{ type, payload } | undefined>`,
      loaded.file,
      'payloadLoader',
    );
  }
  return async (eventId) => load(eventId);
}
