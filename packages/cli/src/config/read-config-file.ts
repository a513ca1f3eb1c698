import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../errors';
import { isShowableWord } from './secret-names';

/** What a configuration file holds, before validation: JSON, or a module's default export. */
export async function readConfigFile(file: string): Promise<unknown> {
  const extension = path.extname(file);
  if (extension === '.json') return readJson(file);
  if (extension === '.mjs' || extension === '.js') return defaultExport(await importModule(file), file);
  if (extension === '.ts' || extension === '.mts') return defaultExport(await importTypeScript(file), file);
  throw new ConfigError('a configuration file is .json, .mjs or .ts', file, undefined);
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot be read (${codeOf(error) ?? 'unreadable'})`, file, undefined);
  }
  // Editors on Windows save UTF-8 with a byte order mark, which JSON.parse refuses.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text near the problem, which may be a secret: only the position.
    const at = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    throw new ConfigError(`is not valid JSON${at ? ` (at character ${at})` : ''}`, file, undefined);
  }
}

async function importModule(file: string): Promise<unknown> {
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    throw new ConfigError(`could not be loaded: ${loaderMessage(error)}`, file, undefined);
  }
}

/** `.ts` goes through tsx, an optional peer: the CLI never needs it unless the file is TypeScript. */
async function importTypeScript(file: string): Promise<unknown> {
  let tsImport: (specifier: string, parent: string) => Promise<unknown>;
  try {
    ({ tsImport } = await import('tsx/esm/api'));
  } catch {
    throw new ConfigError(
      'is TypeScript, which needs tsx to load: npm i -D tsx (or write queueport.config.json / .mjs)',
      file,
      undefined,
    );
  }
  try {
    // The specifier is absolute, so the file itself serves as the parent (import.meta is ESM-only).
    return await tsImport(pathToFileURL(file).href, pathToFileURL(file).href);
  } catch (error) {
    throw new ConfigError(`could not be loaded: ${loaderMessage(error)}`, file, undefined);
  }
}

function defaultExport(module: unknown, file: string): unknown {
  let value = (module as { default?: unknown } | null)?.default;
  // tsx may hand a CommonJS-shaped module back with the default export one level down.
  if (value && typeof value === 'object' && 'default' in value && Object.keys(value).length === 1) {
    value = (value as { default: unknown }).default;
  }
  if (value === undefined) {
    throw new ConfigError('has no default export: export default { providers: { … } }', file, undefined);
  }
  return value;
}

/** A loader's message may quote the file (`Unexpected identifier 'ghp_…'`): quoted words are shown only when plain. */
export function loaderMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n')[0] ?? 'unknown error';
  return line.replace(/(['"`])([^'"`]*)\1/g, (quoted, _quote: string, inner: string) =>
    inner === '' || isShowableWord(inner) || /^[^A-Za-z0-9]{1,3}$/.test(inner) ? quoted : '(not shown)',
  );
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
