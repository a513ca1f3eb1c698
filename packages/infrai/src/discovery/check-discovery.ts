import { type DiscoverySnapshot, SNAPSHOT } from './discovery-format';
import { type DriftDifference, diffSnapshots } from './drift';
import {
  DEFAULT_DISCOVERY_BASE_URL,
  type FetchDiscoveryOptions,
  fetchDiscovery,
  type UnavailableCapability,
} from './fetch-discovery';

// The drill's step (the Infrai adapter's preflight): does the served discovery still match what
// the adapter was built on?

export interface CheckDiscoveryOptions extends FetchDiscoveryOptions {
  /** What to compare with. Default: the committed snapshot this package was built on. */
  committed?: DiscoverySnapshot;
}

export interface DiscoveryCheck {
  /** True when no difference was found (unavailable capabilities already count as differences). */
  matches: boolean;
  differences: DriftDifference[];
  unavailable: UnavailableCapability[];
  otherQueueCapabilities: string[];
  /** What is served now, as a snapshot. */
  served: DiscoverySnapshot;
}

/**
 * "Confirm the live request schema before wiring the adapter": reads discovery from `baseUrl`
 * and compares it, field by field, with the committed snapshot. Throws (QueueError) only when
 * discovery cannot be read; drift is an answer, not an error.
 */
export async function checkDiscovery(
  baseUrl: string = DEFAULT_DISCOVERY_BASE_URL,
  options: CheckDiscoveryOptions = {},
): Promise<DiscoveryCheck> {
  const { committed = SNAPSHOT, ...fetchOptions } = options;
  const { snapshot, unavailable, otherQueueCapabilities } = await fetchDiscovery(baseUrl, fetchOptions);
  const differences = diffSnapshots(committed, snapshot);
  return {
    matches: differences.length === 0,
    differences,
    unavailable,
    otherQueueCapabilities,
    served: snapshot,
  };
}
