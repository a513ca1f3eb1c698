import type { AnyQueue } from '@queueport/core';

/** The two sides of a provider change: `from` is the provider in use, `to` the one coming. */
export type CanaryPathKey = 'from' | 'to';

export interface CanaryPath {
  /** The provider's name in the configuration, for reports. */
  name: string;
  /** A queue the canary owns: everything it holds is consumed (messages that are not canary events are left alone). */
  queue: AnyQueue;
  /** Messages the queue still holds (waiting, delayed or leased); null where the provider does not say. */
  depth?: () => Promise<number | null>;
}
