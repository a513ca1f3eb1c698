import { normalizeError, QueueError } from '../errors';
import type { AnyEvents, EventMap } from '../payloads';
import { Queue, type QueueOptions } from '../queue/queue';
import { DEFAULT_RETRY, resolveRetryPolicy, withRetry } from '../retry';
import type { AdapterDefinition, OpenContext, QueueAdmin } from './adapter-definition';
import { redactUrl } from './redact-url';

export interface OpenQueueOptions<E extends EventMap = AnyEvents>
  extends QueueOptions<E>,
    Pick<OpenContext, 'env'> {
  adapters: readonly AdapterDefinition[];
}

/** The adapters an application (or the CLI) knows, picked by URL scheme. */
export class AdapterRegistry {
  readonly #byScheme = new Map<string, AdapterDefinition>();

  constructor(definitions: readonly AdapterDefinition[]) {
    for (const definition of definitions) {
      const existing = this.#byScheme.get(definition.scheme);
      if (existing && existing !== definition) {
        throw new QueueError(
          'INVALID_ARGUMENT',
          `two adapters claim the scheme ${definition.scheme}: ${existing.packageName} and ${definition.packageName}`,
        );
      }
      this.#byScheme.set(definition.scheme, definition);
    }
  }

  get schemes(): string[] {
    return [...this.#byScheme.keys()];
  }

  resolve(url: string | URL): { definition: AdapterDefinition; url: URL } {
    let parsed: URL;
    try {
      parsed = url instanceof URL ? url : new URL(url);
    } catch {
      throw new QueueError('INVALID_ARGUMENT', `not a queue URL: ${redactUrl(String(url))}`);
    }
    const scheme = parsed.protocol.replace(/:$/, '');
    const definition = this.#byScheme.get(scheme);
    if (!definition) {
      const known = this.schemes.map((s) => `${s}://`).join(', ') || 'none';
      throw new QueueError(
        'INVALID_ARGUMENT',
        `no adapter for ${scheme}:// (${redactUrl(parsed)}); registered: ${known}. Install and register the adapter package for it`,
        { details: { scheme, registered: this.schemes } },
      );
    }
    return { definition, url: parsed };
  }

  async openDriver(url: string | URL, context: OpenContext = {}) {
    const { definition, url: parsed } = this.resolve(url);
    return definition.open(parsed, context);
  }

  /**
   * Opens the portable Queue over the driver the URL names. A transient failure of the open (a
   * 429 or a 503, a dropped connection) is retried under the Queue's own retry policy, as every
   * later call is: a worker restarted during a provider's bad minute must not die of it.
   */
  async openQueue<E extends EventMap = AnyEvents>(
    url: string | URL,
    options: QueueOptions<E> & Pick<OpenContext, 'env'> = {},
  ): Promise<Queue<E>> {
    const { env, ...queueOptions } = options;
    const { definition } = this.resolve(url);
    const policy = resolveRetryPolicy(queueOptions.retry, DEFAULT_RETRY);
    // The open's own error, not its normalized form, is what a caller of openQueue has always seen.
    let last: unknown;
    const open = async () => {
      try {
        return await this.openDriver(url, {
          ...(queueOptions.clock ? { clock: queueOptions.clock } : {}),
          ...(env ? { env } : {}),
        });
      } catch (error) {
        last = error;
        throw error;
      }
    };
    const driver = await withRetry(
      open,
      (error) => normalizeError(error, definition.packageName),
      policy,
    ).catch((error: unknown) => {
      throw last ?? error;
    });
    return new Queue<E>(driver, queueOptions);
  }

  async openAdmin(url: string | URL, context: OpenContext = {}): Promise<QueueAdmin> {
    const { definition, url: parsed } = this.resolve(url);
    if (!definition.admin) {
      throw new QueueError('INVALID_ARGUMENT', `${definition.packageName} has no admin surface`);
    }
    return definition.admin(parsed, context);
  }
}

/** `openQueue('memory://orders', { adapters: [memoryAdapter] })`: the Queue for a URL, by scheme. */
export function openQueue<E extends EventMap = AnyEvents>(
  url: string | URL,
  options: OpenQueueOptions<E>,
): Promise<Queue<E>> {
  const { adapters, ...rest } = options;
  return new AdapterRegistry(adapters).openQueue(url, rest);
}
