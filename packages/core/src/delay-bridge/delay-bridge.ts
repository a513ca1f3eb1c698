import type { Capabilities } from '../capabilities';
import type { Clock } from '../clock';
import type { DriverMessage, OutgoingMessage } from '../driver';
import {
  BRIDGE_ATTRIBUTE,
  type BridgeState,
  decodeBridgeState,
  encodeBridgeState,
  hopDedupeKey,
} from './bridge-state';

/** A received message, seen through the bridge. */
export type BridgedArrival =
  /** Due: hand it to the application with these attributes and this receive count. */
  | { due: true; attributes: Record<string, string>; receiveCount: number }
  /** Not yet due: publish `next`, then settle the received hop. Never shown to the application. */
  | { due: false; next: OutgoingMessage };

/**
 * Long delays, written once for every driver whose provider holds a message for less than the
 * portable 7 days (SQS: 900 s). A long delay becomes a chain of hops, each at most the native
 * maximum: the due time and the receive count travel in one reserved attribute, each re-send
 * carries its own dedupe key, and the Queue re-sends before it settles the old hop, so a crash
 * between the two repeats a hop (absorbed by dedupe, or delivered twice to an idempotent
 * receiver) but never loses one.
 */
export class DelayBridge {
  readonly #native: number;
  readonly #fractional: boolean;
  readonly #clock: Clock;

  constructor(caps: Capabilities, clock: Clock) {
    this.#native = caps.delay.nativeMaxSeconds;
    this.#fractional = caps.delay.fractional;
    this.#clock = clock;
  }

  /** A publish whose delay the provider cannot hold: its first hop, keyed by the event id as usual. */
  publish(message: OutgoingMessage): OutgoingMessage {
    if (message.delaySeconds <= this.#native) return message;
    const state: BridgeState = {
      dueAt: this.#clock.now() + message.delaySeconds * 1000,
      receiveCount: 0,
      hop: 0,
    };
    return this.#hop(message, state, message.dedupeKey);
  }

  /**
   * A release whose delay the provider cannot hold, as the first hop of a new chain, or
   * undefined when a native release does. Its key is never the event id, which the provider
   * may still be deduplicating.
   */
  release(
    received: DriverMessage,
    eventId: string,
    receiveCount: number,
    delaySeconds: number,
  ): OutgoingMessage | undefined {
    if (delaySeconds <= this.#native) return undefined;
    const state: BridgeState = { dueAt: this.#clock.now() + delaySeconds * 1000, receiveCount, hop: 1 };
    const message: OutgoingMessage = {
      eventId,
      dedupeKey: '',
      body: received.body,
      attributes: withoutBridge(received.attributes),
      delaySeconds,
      ...(received.groupId === undefined ? {} : { groupId: received.groupId }),
    };
    return this.#hop(message, state, hopDedupeKey(eventId, state));
  }

  arrive(received: DriverMessage, eventId: string): BridgedArrival {
    const state = decodeBridgeState(received.attributes[BRIDGE_ATTRIBUTE]);
    if (!state) return { due: true, attributes: received.attributes, receiveCount: received.receiveCount };
    const attributes = withoutBridge(received.attributes);
    const remainingMs = state.dueAt - this.#clock.now();
    if (remainingMs <= 0) {
      return { due: true, attributes, receiveCount: state.receiveCount + received.receiveCount };
    }
    const next: BridgeState = { ...state, hop: state.hop + 1 };
    const message: OutgoingMessage = {
      eventId,
      dedupeKey: '',
      body: received.body,
      attributes,
      delaySeconds: 0, // set by #hop from the due time
      ...(received.groupId === undefined ? {} : { groupId: received.groupId }),
    };
    return { due: false, next: this.#hop(message, next, hopDedupeKey(eventId, next)) };
  }

  /** Rounds up: a hop may land late by less than a second on whole-second providers, never early. */
  #hop(message: OutgoingMessage, state: BridgeState, dedupeKey: string): OutgoingMessage {
    const remaining = (state.dueAt - this.#clock.now()) / 1000;
    const wanted = this.#fractional ? remaining : Math.ceil(remaining);
    return {
      ...message,
      dedupeKey,
      attributes: { ...message.attributes, [BRIDGE_ATTRIBUTE]: encodeBridgeState(state) },
      delaySeconds: Math.max(0, Math.min(this.#native, wanted)),
    };
  }
}

function withoutBridge(
  attributes: Record<string, string> | Readonly<Record<string, string>>,
): Record<string, string> {
  if (!(BRIDGE_ATTRIBUTE in attributes)) return { ...attributes };
  const { [BRIDGE_ATTRIBUTE]: _bridge, ...rest } = attributes;
  return rest;
}
