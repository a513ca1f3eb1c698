import type { AdapterDefinition } from '@queueport/core/driver';
import { isModuleNotFound, missingPeerError, QueueError } from '@queueport/core/driver';
import { isShowableWord } from '../config/secret-names';
import { definitionsOf } from './adapter-module';
import { BUILT_IN_ADAPTERS } from './built-in-adapters';
import { errorWithoutUrlSecrets } from './url-words';

/** Every `*Env` option of a URL names a variable: the convention of an adapter that declares no URL rules. */
function envOptions(url: URL): string[] {
  return [...url.searchParams].filter(([key]) => /Env$/.test(key)).map(([, value]) => value);
}

/** The schemes the CLI opens with no adapter configured. */
export function knownSchemes(): string[] {
  return BUILT_IN_ADAPTERS.map((adapter) => adapter.scheme);
}

function schemeOf(url: URL): string {
  return url.protocol.replace(/:$/, '');
}

/**
 * A built-in adapter's definition, imported when first used. A package that is not installed
 * (or whose peer is not) is a QueueError naming what to install, so a drill reports it as the
 * provider's failure instead of crashing.
 */
async function loadBuiltIn(scheme: string): Promise<AdapterDefinition | undefined> {
  const builtIn = BUILT_IN_ADAPTERS.find((adapter) => adapter.scheme === scheme);
  if (!builtIn) return undefined;
  let module: unknown;
  try {
    module = await builtIn.load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    // The package cannot name its peers when it is itself missing: the built-in list does.
    throw missingPeerError({ scheme, packageName: builtIn.packageName, peers: builtIn.peers ?? [] });
  }
  const definition = definitionsOf(module).find((each) => each.scheme === scheme);
  if (!definition) {
    throw new QueueError('INTERNAL', `${builtIn.packageName} exports no adapter for ${scheme}://`);
  }
  return definition;
}

/**
 * The adapter for a scheme: a program's or the configuration's own first (`extra`), then the
 * built-in ones. Its opens and admins never echo a word of the URL that may be a secret.
 */
export async function loadAdapter(
  scheme: string,
  extra: readonly AdapterDefinition[] = [],
): Promise<AdapterDefinition> {
  const own = extra.find((definition) => definition.scheme === scheme);
  if (own) return withoutEchoedUrls(own);
  const builtIn = await loadBuiltIn(scheme);
  if (!builtIn) {
    const schemes = [...new Set([...extra.map((d) => d.scheme), ...knownSchemes()])];
    // A scheme of any other shape may be a token pasted where the scheme goes.
    const shown = isShowableWord(scheme) ? `${scheme}://` : 'this scheme (not shown)';
    throw new QueueError(
      'INVALID_ARGUMENT',
      `no adapter for ${shown}; known: ${schemes.map((s) => `${s}://`).join(', ')}`,
      { details: { scheme: isShowableWord(scheme) ? scheme : '(not shown)' } },
    );
  }
  return withoutEchoedUrls(builtIn);
}

/** The definition serving a URL, or undefined where none is known or its package is not installed. */
async function definitionFor(
  url: URL,
  extra: readonly AdapterDefinition[],
): Promise<AdapterDefinition | undefined> {
  const scheme = schemeOf(url);
  const own = extra.find((definition) => definition.scheme === scheme);
  if (own) return own;
  try {
    return await loadBuiltIn(scheme);
  } catch {
    // Not installed: opening it says what to install.
    return undefined;
  }
}

/**
 * Checks a queue URL by its adapter's own rules (`urls.check`), connecting to nothing. An
 * adapter that declares none, or a built-in whose package is not installed, is not checked
 * here (opening it says what is wrong). Throws the adapter's QueueError, rid of the URL's
 * secret-looking words.
 */
export async function checkAdapterUrl(url: URL, extra: readonly AdapterDefinition[] = []): Promise<void> {
  const definition = await definitionFor(url, extra);
  try {
    definition?.urls?.check(url);
  } catch (error) {
    throw errorWithoutUrlSecrets(error, url);
  }
}

/**
 * The environment variables opening the URL reads, by its adapter's `urls.envNames` (defaults
 * included); by the `*Env` convention where the adapter declares no URL rules or is not known.
 * Empty where the URL does not parse (checkAdapterUrl says why).
 */
export async function adapterEnvNames(url: URL, extra: readonly AdapterDefinition[] = []): Promise<string[]> {
  try {
    const definition = await definitionFor(url, extra);
    return definition?.urls ? definition.urls.envNames(url) : envOptions(url);
  } catch {
    return [];
  }
}

/**
 * The definition with every open's and admin's failure rid of the URL's secret-looking words:
 * a parser may quote a token typed where a queue name or an option goes, and the CLI prints
 * what it throws.
 */
function withoutEchoedUrls(definition: AdapterDefinition): AdapterDefinition {
  const { admin } = definition;
  return {
    ...definition,
    open: async (url, context) => {
      try {
        return await definition.open(url, context);
      } catch (error) {
        throw errorWithoutUrlSecrets(error, url);
      }
    },
    ...(admin
      ? {
          admin: async (url: URL, context) => {
            try {
              return await admin.call(definition, url, context);
            } catch (error) {
              throw errorWithoutUrlSecrets(error, url);
            }
          },
        }
      : {}),
  };
}
