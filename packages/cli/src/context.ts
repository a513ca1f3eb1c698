import { Queue, redactUrl } from '@queueport/core';
import { type AdapterDefinition, normalizeError, type QueueAdmin } from '@queueport/core/driver';
import type { Ledger } from '@queueport/ledger';
import type { CommandContext, OpenedProvider } from './command-context';
import { configEnv, type Env } from './config/config-env';
import type { LoadedConfig } from './config/config-types';
import { loadConfig } from './config/load-config';
import { isShowableName } from './config/secret-names';
import { UsageError } from './errors';
import type { CliIo } from './io';
import { openConfiguredLedger } from './ledger/open-ledger';
import { loadAdapter } from './providers/known-adapters';
import { providerUrlOf } from './providers/provider-url';
import { createProgress, type Progress } from './report/progress';
import { Redactor } from './report/redact-output';

export interface CommandContextOptions {
  /** `--config <file>`, relative to io.cwd. */
  configPath?: string | undefined;
  /** --json: no progress on stderr. */
  json?: boolean;
  /** Adapters besides (or instead of) the built-in ones, by scheme: for programs and tests. */
  adapters?: readonly AdapterDefinition[];
  /** A configuration already loaded (a program's own): used as it is, and closed with the context. */
  loaded?: LoadedConfig;
  /** Aborted to stop the run (bin.ts aborts it on SIGINT and SIGTERM); never by default. */
  signal?: AbortSignal;
  /** How long `close()` waits for each provider, ledger or configuration to close (default 5 s). */
  closeTimeoutMs?: number;
}

/** A close that hangs (a provider that never answers) must not keep the CLI from exiting. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

/** The context main hands a command, plus what main needs around it. */
export interface CliCommandContext extends CommandContext {
  readonly signal: AbortSignal;
  /** Masks secrets in everything printed; learns the configuration's once it is loaded. */
  readonly redactor: Redactor;
  readonly progressDisplay: Progress;
  /** The configuration's environment (io.env plus the embedded defaults' generated secrets). */
  env(): Promise<Env>;
  /** The provider's URL as configured, unredacted: for harnesses and admin calls, never for output. */
  providerUrl(name: string): Promise<string>;
  /**
   * Closes every provider and ledger still open, then what the configuration started, each
   * within the close bound. Never throws, never hangs past the bounds.
   */
  close(): Promise<void>;
  /**
   * What did not close within its bound, or was still opening when the context closed (an open
   * that never answers): named for the person, after `close()`. Empty when all is closed.
   */
  stillOpen(): string[];
}

export function createCommandContext(io: CliIo, options: CommandContextOptions = {}): CliCommandContext {
  const redactor = new Redactor(io.env);
  const progressDisplay = createProgress(io, {
    silent: options.json === true,
    redact: (t) => redactor.text(t),
  });
  const open = new Set<{ name: string; close(): Promise<void> }>();
  const opening = new Set<string>();
  const lingering: string[] = [];
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  const signal = options.signal ?? new AbortController().signal;
  let loading: Promise<LoadedConfig> | undefined;
  let closed = false;

  const config = (): Promise<LoadedConfig> => {
    loading ??= (async () => {
      const loaded =
        (options.loaded && withProgramAdapters(options.loaded, options.adapters)) ??
        (await loadConfig({
          cwd: io.cwd,
          configPath: options.configPath,
          ...(options.adapters ? { adapters: options.adapters } : {}),
        }));
      redactor.addConfig(loaded, io.env);
      return loaded;
    })();
    return loading;
  };

  const env = async () => configEnv(io, await config());

  /** A program's own adapters first, then the configuration's (`adapters`), then the built-in ones. */
  const adapters = async (): Promise<AdapterDefinition[]> => {
    const loaded = await config();
    return [...new Set([...(options.adapters ?? []), ...(loaded.adapters ?? [])])];
  };

  const adapterFor = async (name: string): Promise<AdapterDefinition> => {
    const url = await providerUrl(name);
    return loadAdapter(new URL(url).protocol.replace(/:$/, ''), await adapters());
  };

  const providerUrl = async (name: string): Promise<string> => {
    const { config: configured } = await config();
    const provider = Object.hasOwn(configured.providers, name) ? configured.providers[name] : undefined;
    if (!provider) {
      const known = Object.keys(configured.providers);
      throw new UsageError(
        `no provider named ${isShowableName(name) ? `"${name}"` : '(the name given is not shown: it may be a secret)'}; configured: ${known.length ? known.join(', ') : 'none'}`,
      );
    }
    return provider.url;
  };

  const track = <T extends { close(): Promise<void> }>(name: string, resource: T): T => {
    const original = resource.close.bind(resource);
    const close = once(original);
    const tracked = { name, close };
    open.add(tracked);
    return Object.assign(resource, {
      close: async () => {
        open.delete(tracked);
        await close();
      },
    });
  };

  return {
    io,
    configPath: options.configPath,
    redactor,
    progressDisplay,
    config,
    env,
    providerUrl,
    adapterFor,
    async openProvider(name) {
      const url = await providerUrl(name);
      const providerEnv = await env();
      const what = `provider ${name} (${redactUrl(url)})`;
      return pending(`${what}, still opening`, async () => {
        try {
          const definition = await adapterFor(name);
          return track(what, await openProvider(name, url, definition, providerEnv, io, redactor));
        } catch (error) {
          // A provider that cannot be opened is the provider's failure, for the command to report.
          throw normalizeError(error, `provider ${name}`);
        }
      });
    },
    async openLedger(): Promise<Ledger> {
      const loaded = await config();
      const ledgerEnv = await env();
      return pending('the ledger, still opening', async () =>
        track('the ledger', await openConfiguredLedger(loaded, ledgerEnv, io.cwd)),
      );
    },
    progress: (line, lineOptions) => progressDisplay.line(line, lineOptions),
    signal,
    async close() {
      if (closed) return;
      closed = true;
      progressDisplay.clear();
      for (const resource of [...open].reverse()) await bounded(resource.name, resource.close());
      open.clear();
      if (loading) {
        const loaded = await bounded('the configuration', loading);
        if (loaded) await bounded('what the configuration started', loaded.close());
      }
    },
    stillOpen: () => [...lingering, ...opening],
  };

  /** Runs an open, named while it is under way, so a context closed before it answers can say so. */
  async function pending<T>(name: string, run: () => Promise<T>): Promise<T> {
    opening.add(name);
    try {
      return await run();
    } finally {
      opening.delete(name);
    }
  }

  /** The work's value, or undefined once it failed or overran the close bound (then named as lingering). */
  async function bounded<T>(name: string, work: Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), closeTimeoutMs);
    });
    // A failure after the bound is handled here too: no unhandled rejection on the way out.
    const settled = work.then(
      (value) => ({ value }),
      () => ({ value: undefined }),
    );
    try {
      const result = await Promise.race([settled, late]);
      if (result === 'late') {
        lingering.push(`${name}, not closed within ${closeTimeoutMs} ms`);
        return undefined;
      }
      return result.value;
    } finally {
      clearTimeout(timer);
    }
  }
}

async function openProvider(
  name: string,
  url: string,
  definition: AdapterDefinition,
  env: Env,
  io: CliIo,
  redactor: Redactor,
): Promise<OpenedProvider> {
  const driver = await definition.open(new URL(url), { env });
  let admin: QueueAdmin | null = null;
  try {
    admin = definition.admin
      ? await definition.admin(new URL(providerUrlOf(url, definition)), { env })
      : null;
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
  // The Queue logs problem events nobody listens to; here they go to stderr, masked.
  const logger = {
    warn: (message: string) => io.stderr(`${redactor.text(`warning: ${name}: ${message}`)}\n`),
  };
  let queue: Queue;
  try {
    queue = new Queue(driver, { logger });
  } catch (error) {
    await Promise.allSettled([driver.close(), admin?.close()]);
    throw error;
  }
  return {
    name,
    url: redactUrl(url),
    definition,
    queue,
    admin,
    close: async () => {
      try {
        await queue.close();
      } finally {
        await admin?.close();
      }
    },
  };
}

/**
 * A configuration a program built, with the program's own adapters among its `adapters`: the
 * checks before a command (the variables a URL reads) then follow their URL rules too.
 */
function withProgramAdapters(
  loaded: LoadedConfig,
  adapters: readonly AdapterDefinition[] | undefined,
): LoadedConfig {
  if (!adapters || adapters.length === 0) return loaded;
  const all = [...new Set([...adapters, ...(loaded.adapters ?? [])])];
  return {
    ...loaded,
    adapters: all,
    ownSchemes: [...new Set([...(loaded.ownSchemes ?? []), ...all.map((a) => a.scheme)])],
  };
}

function once(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= run();
    return running;
  };
}
