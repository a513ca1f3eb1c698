import {
  type DiscoverySnapshot,
  type ServedDetail,
  type ServedIndexEntry,
  SNAPSHOT,
  servedFromContract,
} from '../discovery/discovery-format';
import { SimulatorError } from './simulator-error';

/**
 * The snapshot a simulator serves and validates against. The override gets a copy, so a test
 * may edit it in place without touching the committed SNAPSHOT other tests share.
 */
export function servedSnapshot(
  discovery: ((snapshot: DiscoverySnapshot) => DiscoverySnapshot) | undefined,
  regions: readonly string[] | undefined,
): DiscoverySnapshot {
  const snapshot = discovery ? discovery(structuredClone(SNAPSHOT)) : SNAPSHOT;
  if (!regions) return snapshot;
  return {
    ...snapshot,
    capabilities: Object.fromEntries(
      Object.entries(snapshot.capabilities).map(([id, contract]) => [
        id,
        { ...contract, regions: [...regions] },
      ]),
    ),
  };
}

export interface DiscoveryIndex {
  version: string;
  generated_at: string;
  capabilities: ServedIndexEntry[];
}

export function discoveryIndex(snapshot: DiscoverySnapshot, now: number): DiscoveryIndex {
  return {
    version: snapshot.discovery_version,
    generated_at: new Date(now).toISOString(),
    capabilities: Object.entries(snapshot.capabilities).map(
      ([id, contract]) => servedFromContract(id, contract).entry,
    ),
  };
}

export function discoveryDetail(snapshot: DiscoverySnapshot, id: string): ServedDetail {
  const contract = snapshot.capabilities[id];
  if (!contract) {
    throw new SimulatorError('NOT_FOUND', `discovery has no capability ${id}`, {
      hint: 'GET /v1/discovery lists the capability ids',
    });
  }
  return servedFromContract(id, contract).detail;
}

/** What one billed call costs, as discovery's billing block says (metadata.cost_usd). */
export function pricePerRequest(snapshot: DiscoverySnapshot, capability: string): number {
  const contract = snapshot.capabilities[capability];
  const price = contract ? servedFromContract(capability, contract).entry.billing?.price_usd : undefined;
  return typeof price === 'number' ? price : 0;
}
