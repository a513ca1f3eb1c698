/**
 * `openQueue(url, { adapters: [memoryAdapter], ... })` with arbitrary strings, URL objects and
 * memory:// URLs with arbitrary options. It opens a Queue (which then closes) or refuses with a
 * typed QueueError; never anything else.
 */
import { openQueue } from '@queueport/core';
import { memoryAdapter } from '@queueport/memory';
import fc from 'fast-check';
import { oddString, oddValue } from '../arbitraries';
import { outcomeOf } from '../context';
import type { FuzzTarget } from './fuzz-target';

const OPTION_KEYS = [
  'dedupe',
  'ordering',
  'fractionalDelay',
  'retentionSeconds',
  'batchMax',
  'maxReceives',
  'nativeMaxDelaySeconds',
] as const;

const optionValue = fc.oneof(
  fc.constantFrom(
    'none',
    'while-retained',
    'window:300',
    'window:0',
    'window:-1',
    'fifo-per-group',
    'fifo-single-consumer',
    'true',
    'false',
    '1',
    '0',
    '-5',
    '1e3',
    '0x10',
    '9007199254740993',
    '',
    '%',
    '%zz',
    '%E0%A4%A',
  ),
  fc.integer().map(String),
  oddString,
);

/** Names as typed: plain, percent-escaped (well-formed or not), odd characters. */
const nameArb = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/) },
  {
    weight: 2,
    arbitrary: oddString.map((name) =>
      encodeURIComponent((name as unknown as { toWellFormed(): string }).toWellFormed()),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('', 'a%zz', '%ff', 'q%E0%A4%A', 'x/y', 'x//', '..', '@', 'u:p@h') },
  { weight: 1, arbitrary: oddString },
);

const memoryUrlArb = fc
  .tuple(
    fc.constantFrom('memory://', 'memory:', 'memory:///', 'MEMORY://', 'memory:/'),
    nameArb,
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...OPTION_KEYS), oddString), optionValue), { maxLength: 3 }),
    fc.constantFrom('', '#fragment', '#'),
  )
  .map(([prefix, name, options, suffix]) => {
    const query = options.map(([key, value]) => `${key}=${value}`).join('&');
    return `${prefix}${name}${query ? `?${query}` : ''}${suffix}`;
  });

const urlArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: memoryUrlArb },
  { weight: 2, arbitrary: fc.webUrl() },
  { weight: 2, arbitrary: oddString },
  {
    weight: 1,
    arbitrary: memoryUrlArb.map((url) => {
      try {
        return new URL(url);
      } catch {
        return url;
      }
    }),
  },
  { weight: 1, arbitrary: oddValue },
);

const optionsArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ env: fc.oneof(fc.constant({ TOKEN: 'x' }), oddValue) }) },
  { weight: 1, arbitrary: fc.record({ retry: fc.oneof(fc.constant({ maxAttempts: 2 }), oddValue) }) },
  { weight: 1, arbitrary: fc.record({ defaultLeaseSeconds: oddValue }) },
);

export const targets: FuzzTarget[] = [
  {
    name: 'core-open-queue',
    minCases: 2_000,
    property: () =>
      fc.asyncProperty(urlArb, optionsArb, async (url, options) => {
        const opened = await outcomeOf(
          () => openQueue(url as never, { adapters: [memoryAdapter], ...options } as never),
          'openQueue',
        );
        if (opened.ok) await opened.value.close();
      }),
  },
];
