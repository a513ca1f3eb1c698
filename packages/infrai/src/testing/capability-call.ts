import type { DiscoverySnapshot } from '../discovery/discovery-format';
import type { IdempotencyStore } from './idempotency-store';
import type { Params } from './params';
import type { QueueStore } from './queue-store';

/** What a capability's handler sees: a request already authenticated, billed-for and validated. */
export interface CapabilityCall {
  capability: string;
  params: Params;
  apiKey: string;
  now: number;
}

export interface CapabilityResult {
  data: Record<string, unknown>;
  /** Answered from the idempotency store: nothing was done, nothing is billed. */
  replayed: boolean;
}

export type CapabilityHandler = (call: CapabilityCall) => CapabilityResult;

export interface SimulatorState {
  snapshot: DiscoverySnapshot;
  store: QueueStore;
  idempotency: IdempotencyStore;
}
