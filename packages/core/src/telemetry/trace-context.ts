import type { OutgoingMessage } from '../driver';
import { PROVIDER_ATTRIBUTES } from '../limits';

/**
 * The reserved attribute that carries a publish's W3C `traceparent` to whoever receives the
 * message, so a delivery's trace continues the publisher's. Its `queueport.` prefix is refused
 * from applications; a receive takes it off before a delivery's `attributes` are handed out.
 */
export const TRACE_CONTEXT_ATTRIBUTE = 'queueport.trace';

/** `version-traceid-parentid-flags`, lower-case hex, as W3C Trace Context writes it. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The message with its trace context, where it still fits: one attribute slot stays free for
 * the driver (SQS FIFO's held-back delay takes one), and the bytes count against `maxBodyBytes`
 * as an application's attributes do. A message without room goes without, never refused.
 */
export function withTraceContext(
  message: OutgoingMessage,
  traceContext: string | undefined,
  sizeBytes: number,
  maxBodyBytes: number,
): OutgoingMessage {
  if (traceContext === undefined || !TRACEPARENT.test(traceContext)) return message;
  const attributes = message.attributes ?? {};
  if (Object.keys(attributes).length >= PROVIDER_ATTRIBUTES - 1) return message;
  const extraBytes = TRACE_CONTEXT_ATTRIBUTE.length + traceContext.length;
  if (sizeBytes + extraBytes > maxBodyBytes) return message;
  return { ...message, attributes: { ...attributes, [TRACE_CONTEXT_ATTRIBUTE]: traceContext } };
}

/** A received message's attributes without the trace context, and the context itself if well formed. */
export function takeTraceContext(attributes: Record<string, string>): {
  attributes: Record<string, string>;
  traceContext: string | undefined;
} {
  if (!Object.hasOwn(attributes, TRACE_CONTEXT_ATTRIBUTE)) return { attributes, traceContext: undefined };
  const { [TRACE_CONTEXT_ATTRIBUTE]: carried, ...rest } = attributes;
  return {
    attributes: rest,
    traceContext: carried !== undefined && TRACEPARENT.test(carried) ? carried : undefined,
  };
}
