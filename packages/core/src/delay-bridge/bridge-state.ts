/**
 * What the delay bridge carries on a message between hops, in one reserved attribute so that it
 * costs the application one of the provider's attribute slots, not three.
 */
export const BRIDGE_ATTRIBUTE = 'queueport.bridge';

/** Bytes the bridge's attribute may take (name and value): kept off the application's size limit. */
export const BRIDGE_RESERVED_BYTES = 64;

export interface BridgeState {
  /** Epoch ms before which the application must not see the message. */
  dueAt: number;
  /** Receives the application saw before this chain of hops began (0 for a publish). */
  receiveCount: number;
  /** 0 for the published message itself, then 1, 2, ... for each re-send. */
  hop: number;
}

const VERSION = '1';

export function encodeBridgeState(state: BridgeState): string {
  return `${VERSION}:${state.dueAt}:${state.receiveCount}:${state.hop}`;
}

/** Undefined for a value this version did not write: the message is then delivered as it is. */
export function decodeBridgeState(value: string | undefined): BridgeState | undefined {
  if (value === undefined) return undefined;
  const [version, dueAt, receiveCount, hop, ...rest] = value.split(':').map(Number);
  if (rest.length > 0 || version !== 1) return undefined;
  if (![dueAt, receiveCount, hop].every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
    return undefined;
  return { dueAt: dueAt!, receiveCount: receiveCount!, hop: hop! };
}

/**
 * The dedupe key of hop `hop` of a chain: a repeated re-send of one hop (a crash before the old
 * hop was settled) is absorbed by the provider's dedupe, the next hop never is. Event ids never
 * contain control characters, so no application key can look like one of these.
 */
export function hopDedupeKey(eventId: string, state: BridgeState): string {
  return `${eventId}\u001fhop\u001f${state.receiveCount}\u001f${state.dueAt}\u001f${state.hop}`;
}
