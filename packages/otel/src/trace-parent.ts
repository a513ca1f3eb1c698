import type { SpanContext } from '@opentelemetry/api';
import type { OtelApi } from './load-api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A span's context as a W3C `traceparent`, or undefined for one that is not valid (a no-op tracer's). */
export function formatTraceparent(api: OtelApi, context: SpanContext): string | undefined {
  if (!api.isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/** The remote span context a `traceparent` names, or undefined for one this version does not read. */
export function parseTraceparent(api: OtelApi, traceparent: string | undefined): SpanContext | undefined {
  if (traceparent === undefined) return undefined;
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const context: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  };
  return api.isSpanContextValid(context) ? context : undefined;
}
