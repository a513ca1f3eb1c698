import type { EnvelopeInput, InlineEnvelope, JsonValue, ReferenceEnvelope } from '../envelope';

/**
 * The events a queue carries: event type → payload type, e.g.
 * `{ 'order.paid': { amount: number; currency: string } }`. Declare it with `type`, not
 * `interface`: an interface has no index signature, so it does not satisfy this constraint.
 */
export type EventMap = Record<string, unknown>;

/** A queue declared with no event map: any type, any JSON payload. */
export type AnyEvents = Record<string, JsonValue>;

type EventType<E extends EventMap> = keyof E & string;

/** The envelope of one event type: `type` fixed, `payload` typed (or carried by reference). */
export type EnvelopeFor<K extends string, P> =
  | (Omit<InlineEnvelope, 'type' | 'payload'> & { type: K; payload: P })
  | (Omit<ReferenceEnvelope, 'type'> & { type: K });

/**
 * What a delivery carries: a union over the map's types, so checking `envelope.type` narrows
 * `envelope.payload`. A map with a string index (no map declared) is the plain `Envelope`.
 */
export type EnvelopeOf<E extends EventMap> = string extends keyof E
  ? InlineEnvelope | ReferenceEnvelope
  : { [K in EventType<E>]: EnvelopeFor<K, E[K]> }[EventType<E>];

type EnvelopeInputFor<K extends string, P> =
  | (Omit<Extract<EnvelopeInput, { payload: JsonValue }>, 'type' | 'payload'> & { type: K; payload: P })
  | (Omit<Extract<EnvelopeInput, { payload_ref: unknown }>, 'type'> & { type: K });

/** What `publish` takes for a map: one of its types with that type's payload. */
export type EnvelopeInputOf<E extends EventMap> = string extends keyof E
  ? EnvelopeInput
  : { [K in EventType<E>]: EnvelopeInputFor<K, E[K]> }[EventType<E>];
