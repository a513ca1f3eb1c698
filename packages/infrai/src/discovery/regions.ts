import { QueueError } from '@queueport/core/driver';
import { REGION_SHAPE } from '../infrai-url';
import { type DiscoverySnapshot, QUEUE_CAPABILITIES } from './discovery-format';

export type RegionCheck = { ok: true } | { ok: false; message: string; offered: readonly string[] };

/**
 * A region as a message may show it: quoted when it reads as one (`eu-west`), otherwise not at
 * all, since a value of another shape in a region option may be a pasted key.
 */
function shownRegion(region: string): string {
  return REGION_SHAPE.test(region)
    ? `region ${JSON.stringify(region)}`
    : 'the region given (not shown: it does not read as a region)';
}

/**
 * Whether `capability` is offered in `region`, with a message for people when it is not:
 * `Infrai does not offer queue.publish in region "ap-south"; it offers it in: eu-west, us-east`.
 */
export function checkRegion(snapshot: DiscoverySnapshot, capability: string, region: string): RegionCheck {
  const contract = Object.hasOwn(snapshot.capabilities, capability)
    ? snapshot.capabilities[capability]
    : undefined;
  if (!contract) {
    return { ok: false, message: `Infrai's discovery does not list ${capability} at all`, offered: [] };
  }
  if (!contract.available) {
    return {
      ok: false,
      message: `Infrai's discovery marks ${capability} unavailable (in every region)`,
      offered: [],
    };
  }
  const offered = contract.regions;
  if (offered.includes(region)) return { ok: true };
  const near = offered.find((r) => r.toLowerCase() === region.trim().toLowerCase());
  const list = offered.length > 0 ? `it offers it in: ${offered.join(', ')}` : 'it lists no region for it';
  return {
    ok: false,
    message:
      `Infrai does not offer ${capability} in ${shownRegion(region)}; ${list}` +
      (near ? ` (did you mean ${near}?)` : ''),
    offered,
  };
}

/**
 * `checkRegion`, throwing QueueError INVALID_ARGUMENT with its message when the region is not
 * offered; `name` (the driver's) leads the message when given.
 */
export function assertRegion(
  snapshot: DiscoverySnapshot,
  capability: string,
  region: string,
  name?: string,
): void {
  const check = checkRegion(snapshot, capability, region);
  if (!check.ok) {
    throw new QueueError('INVALID_ARGUMENT', name ? `${name}: ${check.message}` : check.message, {
      details: {
        field: 'region',
        capability,
        ...(REGION_SHAPE.test(region) ? { region } : {}),
        offered: [...check.offered],
      },
    });
  }
}

/**
 * What the driver needs of a snapshot before it opens: every capability it calls listed and
 * available, and, when a region is asked for, offered there.
 */
export function assertQueueCapabilities(
  snapshot: DiscoverySnapshot,
  region: string | undefined,
  name: string,
): void {
  for (const id of QUEUE_CAPABILITIES) {
    const contract = Object.hasOwn(snapshot.capabilities, id) ? snapshot.capabilities[id] : undefined;
    if (!contract?.available) {
      throw new QueueError(
        'UNAVAILABLE',
        `${name}: Infrai's discovery ${contract ? 'lists' : 'does not list'} ${id}${contract ? ' as unavailable' : ''}; the adapter needs it`,
        { retryable: false, details: { capability: id } },
      );
    }
    if (region !== undefined) assertRegion(snapshot, id, region, name);
  }
}
