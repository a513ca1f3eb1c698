import {
  checkDriverOptions,
  type DriverOptionsSchema,
  type WholeNumberBounds,
  wholeNumberSchemas,
} from '@queueport/core/driver';
import type { MemoryDriverOptions } from './memory-driver';

/**
 * Each whole-number option's bounds, once: core's option reader checks them on the driver's
 * options, and the URL grammar on a memory:// URL's.
 */
export const MEMORY_OPTION_BOUNDS = {
  retentionSeconds: { min: 1 },
  batchMax: { min: 1 },
  maxReceives: { min: 1 },
  nativeMaxDelaySeconds: { min: 1 },
  maxHoldSeconds: { min: 1 },
  maxAttributeBytes: { min: 1 },
} as const satisfies Record<string, WholeNumberBounds>;

/** The orderings a memory queue keeps, each exactly. */
export const MEMORY_ORDERINGS = [
  'fifo-per-group',
  'fifo-single-consumer',
  'none',
] as const satisfies readonly NonNullable<MemoryDriverOptions['ordering']>[];

const dedupeKind = (kind: string) => ({
  type: 'object',
  properties: { kind: { const: kind } },
  required: ['kind'],
});

/** The driver's options as core's option reader checks them. */
export const memoryOptionsSchema: DriverOptionsSchema = {
  type: 'object',
  properties: {
    // A clock is an object with methods, no JSON: the driver uses it as given.
    clock: {},
    name: { type: 'string' },
    dedupe: {
      oneOf: [
        dedupeKind('none'),
        dedupeKind('while-retained'),
        {
          type: 'object',
          properties: {
            kind: { const: 'window' },
            windowSeconds: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          },
          required: ['kind', 'windowSeconds'],
        },
      ],
    },
    ordering: { enum: [...MEMORY_ORDERINGS] },
    fractionalDelay: { type: 'boolean' },
    ...wholeNumberSchemas(MEMORY_OPTION_BOUNDS),
  },
};

/** The options, checked: a refused one is INVALID_ARGUMENT naming its field. */
export function checkMemoryOptions(options: MemoryDriverOptions): MemoryDriverOptions {
  return checkDriverOptions('memory driver options', memoryOptionsSchema, options);
}
