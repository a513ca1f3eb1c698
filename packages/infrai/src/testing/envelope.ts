import type { DiscoverySnapshot } from '../discovery/discovery-format';
import { errorShape, type SimulatorError } from './simulator-error';

export interface ResponseMetadata {
  cost_usd: number;
  latency_ms: number;
  vendor: 'infrai';
  cache_hit: boolean;
  request_id: string;
}

export interface EnvelopeError {
  code: string;
  message: string;
  hint: string | null;
  retryable: boolean;
}

export interface ResponseEnvelope {
  ok: boolean;
  data: unknown;
  error: EnvelopeError | null;
  metadata: ResponseMetadata;
}

export interface Answer {
  status: number;
  envelope: ResponseEnvelope;
  headers: Readonly<Record<string, string>>;
}

export function successAnswer(data: unknown, metadata: ResponseMetadata): Answer {
  return { status: 200, envelope: { ok: true, data, error: null, metadata }, headers: {} };
}

export function errorAnswer(
  snapshot: DiscoverySnapshot,
  capability: string | undefined,
  error: SimulatorError,
  metadata: ResponseMetadata,
): Answer {
  const shape = errorShape(snapshot, capability, error.code);
  return {
    status: error.options.status ?? shape.status,
    envelope: {
      ok: false,
      data: null,
      error: {
        code: error.code,
        message: error.message,
        hint: error.options.hint ?? null,
        retryable: error.options.retryable ?? shape.retryable,
      },
      metadata,
    },
    headers: error.options.headers ?? {},
  };
}

/** What one answer looks like on the wire; the request id is a header too, for proxies' logs. */
export function wireOf(answer: Answer): { status: number; headers: Record<string, string>; body: string } {
  const body = JSON.stringify(answer.envelope);
  return {
    status: answer.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'x-request-id': answer.envelope.metadata.request_id,
      ...answer.headers,
    },
    body,
  };
}
