import { canonicalJson, type JsonValue } from '@queueport/core';
import { createAjv } from '@queueport/core/driver';
import type { Ajv, ValidateFunction } from 'ajv';
import { request } from 'undici';
import type { DiscoverySnapshot } from '../discovery/discovery-format';
import type { ResponseEnvelope } from './envelope';

/**
 * The simulator's own tests call it through this, on purpose not through the adapter's wire
 * code: the simulator is held to the contract itself, not to the adapter's reading of it. Not
 * exported from the package.
 */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  envelope: ResponseEnvelope;
}

export interface RawRequest {
  method: string;
  path: string;
  /** Sent as is: a test of body rules builds its own. */
  body?: string | Uint8Array;
  contentType?: string;
  /** null sends no Authorization header. */
  apiKey?: string | null;
}

export interface Target {
  url: string;
  apiKey: string;
  snapshot: DiscoverySnapshot;
}

export async function rawRequest(target: Target, req: RawRequest): Promise<RawAnswer> {
  const key = req.apiKey === undefined ? target.apiKey : req.apiKey;
  const answer = await request(`${target.url}${req.path}`, {
    method: req.method as 'GET',
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(req.body === undefined ? {} : { 'content-type': req.contentType ?? 'application/json' }),
    },
    ...(req.body === undefined ? {} : { body: req.body }),
  });
  const text = await answer.body.text();
  return {
    status: answer.statusCode,
    headers: answer.headers,
    envelope: JSON.parse(text) as ResponseEnvelope,
  };
}

/**
 * One capability called as Infrai's conventions say (path parameters, query string or canonical
 * body); a successful answer's `data` is checked against the snapshot's response schema, so no
 * test can pass on an answer the contract does not allow.
 */
export async function callCapability(
  target: Target,
  capability: string,
  params: Record<string, unknown>,
  options: { apiKey?: string | null } = {},
): Promise<RawAnswer> {
  const contract = target.snapshot.capabilities[capability];
  if (!contract) throw new Error(`no capability ${capability} in the snapshot`);
  const rest: Record<string, unknown> = { ...params };
  const path = contract.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const bodyless = contract.method === 'GET' || contract.method === 'DELETE';
  const query = new URLSearchParams(
    Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const answer = await rawRequest(target, {
    method: contract.method,
    path: bodyless && query ? `${path}?${query}` : path,
    ...(bodyless ? {} : { body: `${canonicalJson(rest as JsonValue)}\n` }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
  if (answer.envelope.ok) assertResponseData(target.snapshot, capability, answer.envelope.data);
  return answer;
}

let ajv: Ajv | undefined;
const validators = new WeakMap<object, ValidateFunction>();

export function assertResponseData(snapshot: DiscoverySnapshot, capability: string, data: unknown): void {
  const schema = snapshot.capabilities[capability]?.response;
  if (!schema) throw new Error(`no response schema for ${capability}`);
  if (!ajv) {
    ajv = createAjv({ schemas: 'foreign' });
  }
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema as object);
    validators.set(schema, validate);
  }
  if (!validate(data)) {
    throw new Error(
      `${capability} answered data outside its response schema: ${ajv.errorsText(validate.errors)}`,
    );
  }
}
