import {
  type Capabilities,
  type DedupeCapability,
  QueueError,
  unknownOptionError,
} from '@queueport/core/driver';
import type { MemoryDriverOptions } from './memory-driver';

type UrlOptions = Omit<MemoryDriverOptions, 'clock' | 'name'>;

const ORDERINGS: readonly Capabilities['ordering'][] = ['fifo-per-group', 'fifo-single-consumer', 'none'];

const OPTION_NAMES = [
  'dedupe',
  'ordering',
  'fractionalDelay',
  'retentionSeconds',
  'batchMax',
  'maxReceives',
  'nativeMaxDelaySeconds',
] as const;

/**
 * `memory://orders?dedupe=window:300&ordering=fifo-per-group&nativeMaxDelaySeconds=900`: the
 * queue's name is the host, its options the query. Unknown options are refused by name, so a
 * typo never silently means the default.
 */
export function parseMemoryUrl(url: URL): { name: string; options: UrlOptions } {
  if (url.username || url.password) {
    // Never echoed: whatever sits there may be a secret typed in the wrong place.
    throw new QueueError(
      'INVALID_ARGUMENT',
      'memory:// URLs carry no credentials: remove the user and password',
      {
        details: { field: url.password ? 'password' : 'username' },
      },
    );
  }
  const name = decodeName(`${url.host}${url.pathname}`).replace(/\/+$/, '');
  const options: UrlOptions = {};
  for (const [key, value] of url.searchParams) {
    switch (key) {
      case 'dedupe':
        options.dedupe = parseDedupe(value);
        break;
      case 'ordering':
        if (!ORDERINGS.includes(value as Capabilities['ordering']))
          throw bad(key, value, ORDERINGS.join(', '));
        options.ordering = value as Capabilities['ordering'];
        break;
      case 'fractionalDelay':
        if (value !== 'true' && value !== 'false') throw bad(key, value, 'true or false');
        options.fractionalDelay = value === 'true';
        break;
      case 'retentionSeconds':
      case 'batchMax':
      case 'maxReceives':
      case 'nativeMaxDelaySeconds':
        options[key] = positiveInteger(key, value);
        break;
      default:
        throw unknownOption(key);
    }
  }
  return { name, options };
}

/** The URL that opens a queue with these options again. */
export function formatMemoryUrl(name: string, options: URLSearchParams): string {
  const query = options.toString();
  return `memory://${encodeURIComponent(name)}${query ? `?${query}` : ''}`;
}

function parseDedupe(value: string): DedupeCapability {
  if (value === 'none') return { kind: 'none' };
  if (value === 'while-retained') return { kind: 'while-retained' };
  const match = /^window:(\d+)$/.exec(value);
  if (match && Number(match[1]) > 0) return { kind: 'window', windowSeconds: Number(match[1]) };
  throw bad('dedupe', value, 'none, while-retained or window:<seconds>');
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new QueueError('INVALID_ARGUMENT', 'a memory:// queue name has a malformed %-escape', {
      details: { field: 'name' },
    });
  }
}

function positiveInteger(key: string, value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw bad(key, value, 'a positive integer');
  return n;
}

/** The value is not repeated: a token pasted into the wrong option must not reach a log. */
function bad(key: string, _value: string, expected: string): QueueError {
  return new QueueError(
    'INVALID_ARGUMENT',
    `memory:// option ${key} has an invalid value: expected ${expected}`,
    {
      details: { field: key },
    },
  );
}

/**
 * Names the option only when it is a near miss of a known one (a typo such as `maxReceive`, or
 * the start of one such as `retention`):
 * anything else may be a secret typed as an option name, and is not repeated.
 */
function unknownOption(key: string): QueueError {
  return unknownOptionError('memory', key, OPTION_NAMES, {
    isNear: (typed, option) => typed.length >= 4 && option.startsWith(typed),
  });
}
