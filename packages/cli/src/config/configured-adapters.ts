import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AdapterDefinition, isModuleNotFound } from '@queueport/core/driver';
import { ConfigError } from '../errors';
import { definitionsOf, isPathSpecifier, resolveAdapterSpecifier } from '../providers/adapter-module';
import { BUILT_IN_ADAPTERS } from '../providers/built-in-adapters';
import { ConfigField } from './config-field';
import { loaderMessage } from './read-config-file';
import { isShowableWord, looksLikeSecretValue } from './secret-names';

/** The `adapters` of a configuration as read: a list of package names or paths. */
export function adapterSpecifiers(value: unknown, field: ConfigField): string[] {
  if (!Array.isArray(value)) {
    throw field.error(
      'must be a list of package names or paths, e.g. ["@acme/queueport-kafka", "./adapter.mjs"]',
    );
  }
  return value.map((entry, index) => field.item(index).string(entry));
}

/**
 * Imports the adapters a configuration names (`"adapters": ["@acme/queueport-kafka",
 * "./adapters/mine.mjs"]`), as the built-in ones are: each module's exported definitions (its
 * default export, or every named export that is one). A module that cannot be loaded or exports
 * none, or a scheme another adapter already serves, is a ConfigError naming the entry (exit 2).
 */
export async function loadConfiguredAdapters(
  raw: unknown,
  file: string,
  programAdapters: readonly AdapterDefinition[] = [],
): Promise<AdapterDefinition[]> {
  const declared = (raw as { adapters?: unknown } | null)?.adapters;
  if (declared === undefined || raw === null || typeof raw !== 'object') return [];
  const field = new ConfigField(file, 'adapters');
  const claimed = new Map<string, string>();
  for (const builtIn of BUILT_IN_ADAPTERS) claimed.set(builtIn.scheme, `${builtIn.packageName} (built in)`);
  for (const own of programAdapters) claimed.set(own.scheme, `${own.packageName} (the program's own)`);
  const loaded: AdapterDefinition[] = [];
  const specifiers = adapterSpecifiers(declared, field);
  for (const [index, specifier] of specifiers.entries()) {
    const at = field.item(index);
    const definitions = definitionsOf(await importAdapter(specifier, file, at));
    if (definitions.length === 0) {
      throw at.error(
        `${shown(specifier)} exports no adapter definition: export one made with defineAdapter from @queueport/core/driver (as the default export, or a named one)`,
      );
    }
    for (const definition of definitions) {
      const scheme = isShowableWord(definition.scheme) ? `${definition.scheme}://` : 'its scheme (not shown)';
      const other = claimed.get(definition.scheme);
      if (other !== undefined) {
        throw at.error(
          `${shown(specifier)} serves ${scheme}, which ${other} already serves: give the adapter a scheme of its own`,
        );
      }
      claimed.set(definition.scheme, shown(definition.packageName));
      loaded.push(definition);
    }
  }
  return loaded;
}

async function importAdapter(specifier: string, file: string, at: ConfigField): Promise<unknown> {
  const href = resolveAdapterSpecifier(specifier, file);
  try {
    if (/\.(c|m)?ts$/.test(href)) return await importTypeScript(href, at);
    return await import(href);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (isModuleNotFound(error)) {
      throw at.error(
        isPathSpecifier(specifier)
          ? `${shown(specifier)} could not be loaded: no module at ${shown(path.resolve(path.dirname(file), specifier))}`
          : `${shown(specifier)} could not be loaded: it is not installed where the configuration is (npm i ${looksLikeSecretValue(specifier) ? '<the package>' : specifier})`,
      );
    }
    throw at.error(`${shown(specifier)} could not be loaded: ${loaderMessage(error)}`);
  }
}

/** `.ts` adapters go through tsx, as `.ts` configurations do. */
async function importTypeScript(href: string, at: ConfigField): Promise<unknown> {
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = await import('tsx/esm/api'));
  } catch {
    throw at.error('names a TypeScript module, which needs tsx to load: npm i -D tsx (or build it to .mjs)');
  }
  return tsImport(href, pathToFileURL(at.file ?? process.cwd()).href);
}

/** A package name or path as the user wrote it, unless it reads like a pasted secret. */
function shown(text: string): string {
  return looksLikeSecretValue(text) ? '(not shown)' : `"${text}"`;
}
