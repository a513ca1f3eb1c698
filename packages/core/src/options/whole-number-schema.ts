import type { WholeNumberBounds } from '../adapters/url/option-kinds';

/**
 * Driver options' JSON schemas for whole numbers within bounds, one per option: the same bounds
 * a URL grammar's `urlOption.integer(bounds)` takes, so an adapter writes each option's bounds
 * once for its URL and its constructor. Past 2^53 a number is not a whole number any more.
 */
export function wholeNumberSchemas<K extends string>(
  boundsByOption: Readonly<Record<K, WholeNumberBounds>>,
): Record<K, { type: 'integer'; minimum: number; maximum: number }> {
  const schemas = {} as Record<K, { type: 'integer'; minimum: number; maximum: number }>;
  for (const option of Object.keys(boundsByOption) as K[]) {
    const bounds = boundsByOption[option];
    schemas[option] = {
      type: 'integer',
      minimum: bounds.min ?? 0,
      maximum: bounds.max ?? Number.MAX_SAFE_INTEGER,
    };
  }
  return schemas;
}
