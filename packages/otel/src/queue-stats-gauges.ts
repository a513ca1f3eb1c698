import type { MeterProvider } from '@opentelemetry/api';
import type { QueueAdmin } from '@queueport/core';
import { ATTR } from './attribute-names';
import { instrumentFactory } from './instrument-factory';
import { loadOtelApi, type ModuleLoader } from './load-api';

export interface QueueStatsGaugeOptions {
  /** The provider's admin (an adapter's `openAdmin`), which answers `stats(url)`. */
  admin: Pick<QueueAdmin, 'stats'>;
  /** The queue's URL, as the admin names it. It is only passed to `stats`, never put in an attribute. */
  url: string;
  /** `messaging.destination.name` of the gauges: a name you choose, since a URL may carry credentials. */
  name: string;
  /** `messaging.system`; by default the URL's scheme (`memory`, `sqs`, `bullmq`, `infrai`). */
  system?: string;
  meterProvider?: MeterProvider;
  /** Test hook: how `@opentelemetry/api` is loaded. */
  loadModule?: ModuleLoader;
}

/**
 * Observable gauges of a queue's oldest-ready age, depth and dead letters, read from the
 * admin's `stats(url)` once per collection (one call serves all three). A number the provider
 * does not give (null) is not observed, and neither is anything when `stats` fails.
 */
export function observeQueueStats(options: QueueStatsGaugeOptions): () => void {
  const api = loadOtelApi(options.loadModule);
  if (!api) return () => {};
  const { meter, gauge } = instrumentFactory(api, options.meterProvider);
  const age = gauge(
    'queueport.queue.oldest_ready_age',
    's',
    'Age of the oldest message that could be received now.',
  );
  const depth = gauge('queueport.queue.depth', '{message}', 'Messages held: waiting, delayed and leased.');
  const deadLetters = gauge('queueport.queue.dead_letters', '{message}', 'Messages in the dead letters.');
  const attributes = {
    [ATTR.system]: options.system ?? schemeOf(options.url),
    [ATTR.destinationName]: options.name,
  };
  const { admin, url } = options;
  const observe = async (result: {
    observe(instrument: typeof age, value: number, attributes: Record<string, string>): void;
  }) => {
    let stats: Awaited<ReturnType<QueueAdmin['stats']>>;
    try {
      stats = await admin.stats(url);
    } catch {
      return;
    }
    if (stats.oldestReadyAgeSeconds !== null) result.observe(age, stats.oldestReadyAgeSeconds, attributes);
    if (stats.depth !== null) result.observe(depth, stats.depth, attributes);
    if (stats.deadLetters !== null) result.observe(deadLetters, stats.deadLetters, attributes);
  };
  meter.addBatchObservableCallback(observe, [age, depth, deadLetters]);
  return () => meter.removeBatchObservableCallback(observe, [age, depth, deadLetters]);
}

function schemeOf(url: string): string {
  const colon = url.indexOf(':');
  return colon > 0 ? url.slice(0, colon) : 'unknown';
}
