import type { Capabilities } from '@queueport/core';
import type fc from 'fast-check';
import type { ConformanceHarness } from '../harness';

/** What a property may ask of the harness before it runs. */
export interface SkipContext {
  virtual: boolean;
  /** The real-time budget for one wait (`timing.maxRealWaitSeconds`). */
  maxRealWaitSeconds: number;
  /** Whether the harness can open a queue that does not exist. */
  missingQueue: boolean;
  /** Whether the harness shows the provider's admin view (`inspect`) of its queues. */
  inspect: boolean;
  /** Whether the harness can cut a queue's provider connection (`dropConnection`). */
  dropConnection: boolean;
}

/**
 * One clause of the queue contract, as a fast-check property over fresh queues. Plain data plus
 * a builder, so the vitest binding and the CLI runner execute the very same list.
 */
export interface ConformanceProperty {
  id: string;
  title: string;
  /** Why the manifest (or the harness) rules this property out, or undefined when it applies. */
  skipReason?(caps: Capabilities, context: SkipContext): string | undefined;
  /** Generated cases: on virtual time it is cheap, on a real provider every run costs seconds. */
  runs?: { virtual?: number; real?: number };
  build(harness: ConformanceHarness): fc.IAsyncProperty<unknown>;
}

export function defineProperty(property: ConformanceProperty): ConformanceProperty {
  return property;
}
