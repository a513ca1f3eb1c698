import { Queue, redactUrl } from '@queueport/core';
import { type AdapterDefinition, normalizeError, type QueueAdmin } from '@queueport/core/driver';
import type { Ledger } from '@queueport/ledger';
import type { CommandContext, OpenedProvider } from './command-context';
import { configEnv, type Env } from './config/config-env';
import type { LoadedConfig } from './config/config-types';
import { loadConfig } from './config/load-config';
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
}

/** The context main hands a command, plus what main needs around it. */
export interface CliCommandContext extends CommandContext {
  /** Masks secrets in everything printed; learns the configuration's once it is loaded. */
  readonly redactor: Redactor;
  readonly progressDisplay: Progress;
  /** The configuration's environment (io.env plus the embedded defaults' generated secrets). */
  env(): Promise<Env>;
  /** The provider's URL as configured, unredacted: for harnesses and admin calls, never for output. */
  providerUrl(name: string): Promise<string>;
  /** Closes every provider and ledger still open, then what the configuration started. */
  close(): Promise<void>;
}

export function createCommandContext(io: CliIo, options: CommandContextOptions = {}): CliCommandContext {
  const redactor = new Redactor(io.env);
  const progressDisplay = createProgress(io, {
    silent: options.json === true,
    redact: (t) => redactor.text(t),
  });
  const open = new Set<{ close(): Promise<void> }>();
  let loading: Promise<LoadedConfig> | undefined;
  let closed = false;

  const config = (): Promise<LoadedConfig> => {
    loading ??= (async () => {
      const loaded =
        options.loaded ??
        (await loadConfig({
          cwd: io.cwd,
          configPath: options.configPath,
          extraSchemes: (options.adapters ?? []).map((adapter) => adapter.scheme),
        }));
      redactor.addConfig(loaded, io.env);
      return loaded;
    })();
    return loading;
  };

  const env = async () => configEnv(io, await config());

  const providerUrl = async (name: string): Promise<string> => {
    const { config: configured } = await config();
    const provider = Object.hasOwn(configured.providers, name) ? configured.providers[name] : undefined;
    if (!provider) {
      const known = Object.keys(configured.providers);
      throw new UsageError(
        `no provider named "${name}"; configured: ${known.length ? known.join(', ') : 'none'}`,
      );
    }
    return provider.url;
  };

  const track = <T extends { close(): Promise<void> }>(resource: T): T => {
    const original = resource.close.bind(resource);
    const close = once(original);
    const tracked = { close };
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
    async openProvider(name) {
      const url = await providerUrl(name);
      const providerEnv = await env();
      try {
        const definition = await loadAdapter(new URL(url).protocol.replace(/:$/, ''), options.adapters);
        return track(await openProvider(name, url, definition, providerEnv, io, redactor));
      } catch (error) {
        // A provider that cannot be opened is the provider's failure, for the command to report.
        throw normalizeError(error, `provider ${name}`);
      }
    },
    async openLedger(): Promise<Ledger> {
      const loaded = await config();
      return track(await openConfiguredLedger(loaded, await env(), io.cwd));
    },
    progress: (line) => progressDisplay.line(line),
    async close() {
      if (closed) return;
      closed = true;
      progressDisplay.clear();
      for (const resource of [...open].reverse()) await resource.close().catch(() => undefined);
      open.clear();
      if (loading) await (await loading.catch(() => undefined))?.close();
    },
  };
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
    admin = definition.admin ? await definition.admin(new URL(providerUrlOf(url)), { env }) : null;
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

function once(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= run();
    return running;
  };
}
