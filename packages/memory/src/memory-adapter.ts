import type { DeadLetterRecord, QueueAdmin } from '@queueport/core';
import {
  type AdapterDefinition,
  type Clock,
  DEFAULT_REDRIVE_AFTER_RECEIVES,
  type Driver,
  defineAdapter,
  QueueError,
  queueLocator,
  requireQueueName,
} from '@queueport/core/driver';
import { MemoryDriver } from './memory-driver';
import { formatMemoryUrl, memoryUrls, parseMemoryUrl } from './memory-url';

/**
 * Named memory queues, shared by every open of the same URL in this process: a publisher and a
 * consumer that open `memory://orders` meet, as they would at a real provider.
 */
const queues = new Map<string, { driver: MemoryDriver; query: string }>();

function named(url: URL, clock: Clock | undefined): MemoryDriver {
  const { name, options } = parseMemoryUrl(url);
  requireQueueName('memory', name, 'memory://orders');
  const query = canonicalQuery(url.searchParams);
  const existing = queues.get(name);
  if (existing) {
    if (query && query !== existing.query) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `memory queue ${name} is open with options "${existing.query}", not "${query}"`,
      );
    }
    return existing.driver;
  }
  const driver = new MemoryDriver({ ...options, name: `memory:${name}`, ...(clock ? { clock } : {}) });
  queues.set(name, { driver, query });
  return driver;
}

/** The same options in any order are the same queue. */
function canonicalQuery(params: URLSearchParams): string {
  const sorted = new URLSearchParams(params);
  sorted.sort();
  return sorted.toString();
}

/** An admin's reading of a queue URL, by the same checks every adapter's admin makes. */
const locate = queueLocator({
  scheme: 'memory',
  parse: (url) => ({ queueName: parseMemoryUrl(url).name }),
  provider: { queueName: '' },
  // Every memory queue lives in this process: every admin's provider.
  sameProvider: () => true,
  providerNoun: 'process',
});

function existing(url: string): MemoryDriver {
  const { queueName: name } = locate(url);
  const found = queues.get(name);
  if (!found) throw new QueueError('NOT_FOUND', `no memory queue named ${name}`);
  return found.driver;
}

/** The queue behind each handle `memoryAdapter.open` gave out, for `dropMemoryConnection`. */
const targets = new WeakMap<Driver, MemoryDriver>();

/**
 * Simulates a dropped provider connection on a memory driver, or on a handle `memoryAdapter`
 * opened (see `MemoryDriver.dropConnection`). Every handle of a named queue shares its one
 * simulated connection, as the consumers of a restarted broker do. Give it to the suite's
 * harness as `adapterHarness(memoryAdapter, url, { dropConnection: dropMemoryConnection })`.
 */
export async function dropMemoryConnection(driver: Driver): Promise<void> {
  const target = driver instanceof MemoryDriver ? driver : targets.get(driver);
  if (!target) {
    throw new QueueError(
      'INVALID_ARGUMENT',
      'dropMemoryConnection takes a memory driver or a memory:// handle',
    );
  }
  target.dropConnection();
}

/**
 * A handle onto a shared queue: closing it ends its own receives, not the queue, which other
 * handles of the name still use. The Queue over it makes no call after close (the driver
 * contract), so the handle keeps no closed flag to refuse one.
 */
function handle(target: MemoryDriver): Driver {
  const closed = new AbortController();
  const driver: Driver = {
    name: target.name,
    capabilities: target.capabilities,
    publish: (messages) => target.publish(messages),
    receive: (request) =>
      target.receive({
        ...request,
        signal: request.signal ? AbortSignal.any([request.signal, closed.signal]) : closed.signal,
      }),
    ack: (receipts) => target.ack(receipts),
    release: (entries) => target.release(entries),
    extendLease: (entries) => target.extendLease(entries),
    deadLetter: (entries) => target.deadLetter(entries),
    close: async () => closed.abort('closed'),
  };
  targets.set(driver, target);
  return driver;
}

function admin(base: URL, clock: Clock | undefined): QueueAdmin {
  return {
    async createQueue(request) {
      const options = new URLSearchParams(base.searchParams);
      // The same default as every admin's, so portable code never depends on one provider's;
      // a maxReceives in the admin's own URL is the operator's explicit choice and stays.
      const redrive =
        request.redriveAfterReceives ??
        (options.has('maxReceives') ? undefined : DEFAULT_REDRIVE_AFTER_RECEIVES);
      if (redrive !== undefined) options.set('maxReceives', String(redrive));
      for (const [key, value] of Object.entries(request.settings ?? {})) options.set(key, String(value));
      const url = formatMemoryUrl(request.name, options);
      const { name } = parseMemoryUrl(new URL(url));
      if (queues.has(name)) throw new QueueError('INVALID_ARGUMENT', `memory queue ${name} exists`);
      named(new URL(url), clock);
      return url;
    },
    async deleteQueue(url) {
      const driver = existing(url);
      queues.delete(locate(url).queueName);
      driver.delete();
    },
    stats: async (url) => existing(url).stats(),
    async listDeadLetters(url, { limit }) {
      return existing(url)
        .deadLetters()
        .slice(0, limit)
        .map(
          (dead): DeadLetterRecord => ({
            messageId: dead.messageId,
            eventId: dead.eventId,
            body: dead.body,
            attributes: dead.attributes,
            receiveCount: dead.receiveCount,
            reason: dead.reason,
            at: dead.at,
          }),
        );
    },
    redriveDeadLetters: async (url, { limit }) => existing(url).redriveDeadLetters(limit),
    purge: async (url) => existing(url).purge(),
    close: async () => {},
  };
}

/** `memory://name?options`: in-process queues, on virtual time when the caller passes a clock. */
export const memoryAdapter: AdapterDefinition = defineAdapter({
  scheme: 'memory',
  packageName: '@queueport/memory',
  virtualClock: true,
  peers: [],
  urls: memoryUrls,
  open: (url, context) => handle(named(url, context.clock)),
  admin: (url, context) => {
    // Checked at once: credentials or a typo in the admin's URL would otherwise surface only
    // in the first createQueue, or never.
    parseMemoryUrl(url);
    return admin(url, context.clock);
  },
});
