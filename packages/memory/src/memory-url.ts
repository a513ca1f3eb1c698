import { type DedupeCapability, defineUrlGrammar, urlOption } from '@queueport/core/driver';
import type { MemoryDriverOptions } from './memory-driver';
import { MEMORY_OPTION_BOUNDS as BOUNDS, MEMORY_ORDERINGS } from './memory-options';

type UrlOptions = Omit<MemoryDriverOptions, 'clock' | 'name'>;

/**
 * `memory://orders?dedupe=window:300&ordering=fifo-per-group&nativeMaxDelaySeconds=900`: the
 * queue's name is the host (memory has no server to name), its options the query. The
 * adapter's `urls`.
 */
export const memoryUrls = defineUrlGrammar({
  scheme: 'memory',
  queueName: 'host',
  example: 'memory://orders',
  credentials: 'remove the user and password',
  options: {
    dedupe: urlOption.custom({ expected: 'none, while-retained or window:<seconds>', parse: parseDedupe }),
    ordering: urlOption.oneOf(MEMORY_ORDERINGS),
    fractionalDelay: urlOption.boolean(),
    retentionSeconds: urlOption.seconds(BOUNDS.retentionSeconds),
    batchMax: urlOption.integer(BOUNDS.batchMax),
    maxReceives: urlOption.integer(BOUNDS.maxReceives),
    nativeMaxDelaySeconds: urlOption.seconds(BOUNDS.nativeMaxDelaySeconds),
    maxHoldSeconds: urlOption.seconds(BOUNDS.maxHoldSeconds),
    maxAttributeBytes: urlOption.integer(BOUNDS.maxAttributeBytes),
  },
  // A typo such as `maxReceive`, or the start of a name such as `retention`, is a near miss.
  nearMiss: (typed, option) => typed.length >= 4 && option.startsWith(typed),
});

/** The queue's name and the driver's options a memory:// URL gives. */
export function parseMemoryUrl(url: URL): { name: string; options: UrlOptions } {
  const { queueName, options } = memoryUrls.read(url);
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return { name: queueName, options: given as UrlOptions };
}

/** The URL that opens a queue with these options again. */
export function formatMemoryUrl(name: string, options: URLSearchParams): string {
  const query = options.toString();
  return memoryUrls.queueUrl(new URL(`memory://${query ? `?${query}` : ''}`), name);
}

function parseDedupe(value: string): DedupeCapability | undefined {
  if (value === 'none') return { kind: 'none' };
  if (value === 'while-retained') return { kind: 'while-retained' };
  const match = /^window:([0-9]{1,9})$/.exec(value);
  return match && Number(match[1]) > 0 ? { kind: 'window', windowSeconds: Number(match[1]) } : undefined;
}
