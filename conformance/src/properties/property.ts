import type { Capabilities } from '@queueport/core';
import type fc from 'fast-check';
import type { ConformanceHarness } from '../harness';

/**
 * One clause of the queue contract, as a fast-check property over fresh queues. Plain data plus
 * a builder, so the vitest binding and the CLI runner execute the very same list.
 */
export interface ConformanceProperty {
  id: string;
  title: string;
  /** Why the manifest (or the harness's clock) rules this property out, or undefined when it applies. */
  skipReason?(caps: Capabilities, timing: { virtual: boolean }): string | undefined;
  /** Generated cases: on virtual time it is cheap, on a real provider every run costs seconds. */
  runs?: { virtual?: number; real?: number };
  build(harness: ConformanceHarness): fc.IAsyncProperty<unknown>;
}

export function defineProperty(property: ConformanceProperty): ConformanceProperty {
  return property;
}
