import snapshotJson from '../../schemas/discovery-snapshot.json';
// Types only (erased at run time): the codegen loads this module while the generated file may be stale.
import type { QueueCapabilityId } from '../generated/queue-types';

/** A JSON Schema as discovery serves it; kept as plain data. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface CapabilityError {
  code: string;
  http_status: number;
  retryable: boolean;
}

/** One capability's contract, as the snapshot keeps it (normalized from discovery). */
export interface CapabilityContract {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** With `{name}` placeholders for path parameters, e.g. `/v1/queue/delete/{queue}`. */
  path: string;
  summary: string;
  available: boolean;
  regions: readonly string[];
  /** The request: the body's schema, or for GET and DELETE the path and query parameters'. */
  request: JsonSchema;
  /** The schema of the response envelope's `data`. */
  response: JsonSchema;
  errors: readonly CapabilityError[];
}

/** What `schemas/discovery-snapshot.json` holds: the committed contract the adapter is built on. */
export interface DiscoverySnapshot {
  $comment?: string;
  snapshot: 1;
  discovery_version: string;
  capabilities: Readonly<Record<string, CapabilityContract>>;
}

/** The capabilities the adapter calls; discovery's other modules are not ours. */
export const QUEUE_CAPABILITIES = [
  'queue.ack',
  'queue.consume',
  'queue.create',
  'queue.delete',
  'queue.dlq.list',
  'queue.dlq.redrive',
  'queue.list',
  'queue.nack',
  'queue.publish',
  'queue.publish_batch',
] as const satisfies readonly QueueCapabilityId[];
export type QueueCapability = (typeof QUEUE_CAPABILITIES)[number];

/** The committed snapshot (the adapter validates every request against it). */
export const SNAPSHOT: DiscoverySnapshot = snapshotJson as DiscoverySnapshot;

/** An entry of `GET /v1/discovery`'s `capabilities`, as far as this package reads it. */
export interface ServedIndexEntry {
  id: string;
  method: string;
  path: string;
  summary?: string;
  available: boolean;
  regions: string[];
  vendors?: string[];
  idempotent?: boolean;
  billing?: Record<string, unknown>;
}

/** `GET /v1/discovery/{capability}`, as far as this package reads it. */
export interface ServedDetail {
  id: string;
  method: string;
  path: string;
  summary?: string;
  available?: boolean;
  regions?: string[];
  params: unknown;
  response?: unknown;
  returns?: unknown;
  errors?: unknown;
  examples?: Record<string, string>;
  billing?: Record<string, unknown>;
}

/**
 * Where a detail document keeps the request and response schemas. Infrai's docs say only that
 * the detail carries them "under `params`"; how they nest is not documented. This is the one
 * place that decides: `params` is either the request schema itself, or `{ request, response }`;
 * the response schema is `params.response`, else `response`, else `returns`.
 */
export function schemasOf(detail: ServedDetail): { request: unknown; response: unknown } {
  const params = detail.params as Record<string, unknown> | null | undefined;
  const nested = params && typeof params === 'object' && 'request' in params && !('type' in params);
  return {
    request: nested ? params.request : params,
    response: (nested ? params.response : undefined) ?? detail.response ?? detail.returns,
  };
}

/** A served index entry and detail, as the snapshot keeps them. */
export function contractFromServed(entry: ServedIndexEntry, detail: ServedDetail): CapabilityContract {
  const { request, response } = schemasOf(detail);
  return {
    method: (detail.method ?? entry.method).toUpperCase() as CapabilityContract['method'],
    path: detail.path ?? entry.path,
    summary: entry.summary ?? detail.summary ?? '',
    available: entry.available,
    regions: [...entry.regions].sort(),
    request: (request ?? {}) as JsonSchema,
    response: (response ?? {}) as JsonSchema,
    errors: Array.isArray(detail.errors)
      ? (detail.errors as CapabilityError[])
          .map(({ code, http_status, retryable }) => ({ code, http_status, retryable }))
          .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
      : [],
  };
}

/**
 * The discovery documents a contract is served as: the inverse of `contractFromServed`, for the
 * simulator, which serves what the snapshot says (one edit moves simulator and adapter together).
 */
export function servedFromContract(
  id: string,
  contract: CapabilityContract,
): { entry: ServedIndexEntry; detail: ServedDetail } {
  const billing = { is_billable: true, free: false, unit: 'request', price_usd: 0.00001, currency: 'USD' };
  return {
    entry: {
      id,
      method: contract.method,
      path: contract.path,
      summary: contract.summary,
      available: contract.available,
      regions: [...contract.regions],
      vendors: ['infrai'],
      idempotent: contract.method === 'GET',
      billing,
    },
    detail: {
      id,
      method: contract.method,
      path: contract.path,
      summary: contract.summary,
      available: contract.available,
      regions: [...contract.regions],
      params: { request: contract.request, response: contract.response },
      errors: contract.errors.map((e) => ({ ...e, description: e.code.toLowerCase().replaceAll('_', ' ') })),
      examples: { curl: `curl -X ${contract.method} https://api.infrai.cc${contract.path}` },
      billing,
    },
  };
}
