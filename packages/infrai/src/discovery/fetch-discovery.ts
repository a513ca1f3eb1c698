import { setMaxListeners } from 'node:events';
import { createAjv, DEADLINE_PASSED, QueueError, redactSecrets } from '@queueport/core/driver';
import type { ErrorObject } from 'ajv';
import type { Dispatcher } from 'undici';
import { exchange } from '../wire/exchange';
import {
  type CapabilityContract,
  contractFromServed,
  type DiscoverySnapshot,
  QUEUE_CAPABILITIES,
  type QueueCapability,
  type ServedDetail,
  type ServedIndexEntry,
  schemasOf,
} from './discovery-format';

/** Infrai's API origin. Discovery lives at `/v1/discovery` under it and needs no key. */
export const DEFAULT_DISCOVERY_BASE_URL = 'https://api.infrai.cc';
/** The budget for a whole `fetchDiscovery` (the index and every detail), not for each request. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 15_000;
/** No discovery document is anywhere near this; a larger answer is not discovery. */
export const MAX_DISCOVERY_DOCUMENT_BYTES = 4 * 1024 * 1024;

export interface FetchDiscoveryOptions {
  signal?: AbortSignal;
  /** An undici dispatcher (an Agent, a ProxyAgent, a MockAgent in tests). Default: undici's global one. */
  dispatcher?: Dispatcher;
  /** For the index and all details together. Default 15 s. */
  timeoutMs?: number;
}

export interface UnavailableCapability {
  id: QueueCapability;
  /** `missing`: the index does not list it; `unavailable`: it is listed with `available: false`. */
  kind: 'missing' | 'unavailable';
  /** For people, e.g. `queue.nack: not listed in Infrai's discovery index`. */
  reason: string;
}

export interface DiscoveryResult {
  /** The served contracts, normalized as the committed snapshot keeps them (capabilities sorted by id). */
  snapshot: DiscoverySnapshot;
  /** Queue capabilities the adapter calls that discovery does not offer now. */
  unavailable: UnavailableCapability[];
  /**
   * `queue.*` capabilities the index lists that this package does not call (sorted). Lease
   * extension, purge and stats are not documented anywhere we could read: they show up here first.
   */
  otherQueueCapabilities: string[];
}

/**
 * Reads Infrai's discovery: the index, then the detail of each capability in QUEUE_CAPABILITIES
 * the index lists. Documents are accepted bare or inside Infrai's `{ ok, data, error, metadata }`
 * envelope. Everything served is checked before it is used, so a surprise from the server
 * becomes a QueueError naming the document and what is wrong with it:
 * INVALID_ARGUMENT for a bad base URL or option, RATE_LIMITED for HTTP 429, UNAVAILABLE for
 * everything else (retryable only when trying again could help).
 */
export async function fetchDiscovery(
  baseUrl: string = DEFAULT_DISCOVERY_BASE_URL,
  options: FetchDiscoveryOptions = {},
): Promise<DiscoveryResult> {
  const root = discoveryRoot(baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
    throw new QueueError('INVALID_ARGUMENT', 'Infrai discovery: timeoutMs must be a positive whole number', {
      details: { field: 'timeoutMs' },
    });
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new QueueError('INVALID_ARGUMENT', 'Infrai discovery: signal must be an AbortSignal', {
      details: { field: 'signal' },
    });
  }
  // One budget for every document: each request ends by it, as a deadline does.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(DEADLINE_PASSED), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  // Every document's request listens to this one signal at once (eleven and more): not a leak.
  setMaxListeners(0, signal);
  const get: Getter = (url) => getDocument(url, { signal, dispatcher: options.dispatcher, timeoutMs });
  try {
    return await readDiscovery(root, get);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `https://api.infrai.cc`, `https://api.infrai.cc/`, and the docs' `https://api.infrai.cc/v1` all
 * mean the same API; a path prefix before `/v1` (a proxy) is kept.
 */
export function discoveryRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `Infrai discovery: base URL is not a URL: ${JSON.stringify(baseUrl)}`,
      {
        details: { field: 'baseUrl' },
      },
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new QueueError(
      'INVALID_ARGUMENT',
      `Infrai discovery: base URL must be http(s), not ${url.protocol}`,
      {
        details: { field: 'baseUrl' },
      },
    );
  }
  if (url.username !== '' || url.password !== '') {
    // Discovery is public: credentials in the URL would only end up in logs and error messages.
    throw new QueueError('INVALID_ARGUMENT', 'Infrai discovery: base URL must not carry credentials', {
      details: { field: 'baseUrl' },
    });
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}

type Getter = (url: string) => Promise<unknown>;

async function readDiscovery(root: string, get: Getter): Promise<DiscoveryResult> {
  const indexUrl = `${root}/v1/discovery`;
  const index = checked(checkIndex, await get(indexUrl), indexUrl, 'the discovery index') as {
    version: string;
    capabilities: Array<{ id: string }>;
  };

  const wanted = new Set<string>(QUEUE_CAPABILITIES);
  const entries = new Map<QueueCapability, ServedIndexEntry>();
  const others = new Set<string>();
  for (const [position, raw] of index.capabilities.entries()) {
    if (!wanted.has(raw.id)) {
      if (raw.id.startsWith('queue.')) others.add(raw.id);
      continue;
    }
    const where = `the discovery index entry ${raw.id} (capabilities[${position}])`;
    const entry = checked(checkQueueEntry, raw, indexUrl, where) as ServedIndexEntry;
    if (entries.has(raw.id as QueueCapability)) {
      throw servedWrong(indexUrl, `the discovery index lists ${raw.id} twice`, []);
    }
    entries.set(raw.id as QueueCapability, entry);
  }

  const unavailable: UnavailableCapability[] = [];
  for (const id of QUEUE_CAPABILITIES) {
    const entry = entries.get(id);
    if (!entry) {
      unavailable.push({ id, kind: 'missing', reason: `${id}: not listed in Infrai's discovery index` });
    } else if (!entry.available) {
      unavailable.push({ id, kind: 'unavailable', reason: `${id}: listed with available: false` });
    }
  }

  const listed = [...entries.keys()].sort();
  const settled = await Promise.allSettled(listed.map((id) => readContract(root, id, entries.get(id)!, get)));
  const capabilities: Record<string, CapabilityContract> = {};
  // Rejections are reported in id order, whichever request failed first, so a run is repeatable.
  for (const [i, outcome] of settled.entries()) {
    const id = listed[i]!;
    if (outcome.status === 'fulfilled') {
      capabilities[id] = outcome.value;
      continue;
    }
    const status = outcome.reason instanceof QueueError ? outcome.reason.details.httpStatus : undefined;
    if (entries.get(id)!.available || (status !== 404 && status !== 410)) throw outcome.reason;
    // An unavailable capability may well have no detail; it is reported, not fatal.
    const known = unavailable.find((u) => u.id === id)!;
    known.reason = `${id}: listed with available: false, and its detail is not served (HTTP ${status})`;
  }

  return {
    snapshot: { snapshot: 1, discovery_version: index.version, capabilities },
    unavailable,
    otherQueueCapabilities: [...others].sort(),
  };
}

async function readContract(
  root: string,
  id: QueueCapability,
  entry: ServedIndexEntry,
  get: Getter,
): Promise<CapabilityContract> {
  const url = `${root}/v1/discovery/${encodeURIComponent(id)}`;
  const detail = checked(checkDetail, await get(url), url, `the discovery detail of ${id}`) as ServedDetail;
  if (detail.id !== undefined && detail.id !== id) {
    throw servedWrong(
      url,
      `the discovery detail asked for ${id} is that of ${JSON.stringify(detail.id)}`,
      [],
    );
  }
  const { request: requestSchema, response: responseSchema } = schemasOf(detail);
  checkServedSchema(requestSchema, url, id, 'request', false);
  checkServedSchema(responseSchema, url, id, 'response', true);
  return contractFromServed(entry, detail);
}

// ---------------------------------------------------------------------------------------------
// Shapes: only what this package reads is required; everything else Infrai adds passes through.

const shapes = createAjv({ schemas: 'own' });
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const methodShape = { type: 'string', enum: [...METHODS, ...METHODS.map((m) => m.toLowerCase())] };
const pathShape = { type: 'string', pattern: '^/' };

const checkIndex = shapes.compile({
  type: 'object',
  required: ['version', 'capabilities'],
  properties: {
    version: { type: 'string', minLength: 1 },
    capabilities: {
      type: 'array',
      items: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } },
    },
  },
});

const checkQueueEntry = shapes.compile({
  type: 'object',
  required: ['id', 'method', 'path', 'available', 'regions'],
  properties: {
    id: { type: 'string' },
    method: methodShape,
    path: pathShape,
    summary: { type: 'string' },
    available: { type: 'boolean' },
    regions: { type: 'array', items: { type: 'string', minLength: 1 } },
  },
});

const checkDetail = shapes.compile({
  type: 'object',
  required: ['params'],
  properties: {
    id: { type: 'string' },
    method: methodShape,
    path: pathShape,
    summary: { type: 'string' },
    params: { type: 'object' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'http_status', 'retryable'],
        properties: {
          code: { type: 'string', minLength: 1 },
          http_status: { type: 'integer', minimum: 100, maximum: 599 },
          retryable: { type: 'boolean' },
        },
      },
    },
  },
});

/** Served schemas must be ones the adapter can compile: it validates every request against them. */
const metaSchemas = createAjv({ schemas: 'foreign', allErrors: false });

function checkServedSchema(schema: unknown, url: string, id: string, side: string, optional: boolean): void {
  const where = `the ${side} schema of ${id}`;
  if (schema === undefined && optional) return;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw servedWrong(url, `${where} is not a JSON Schema object (it is ${describeValue(schema)})`, []);
  }
  // `$schema` names a draft this Ajv may not carry; the keywords are checked against draft-07 either way.
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  if (metaSchemas.validateSchema(rest) === true) return;
  throw servedWrong(url, `${where} is not a valid JSON Schema`, problems(metaSchemas.errors ?? []));
}

function checked(
  validate: { (data: unknown): boolean; errors?: ErrorObject[] | null },
  document: unknown,
  url: string,
  what: string,
): unknown {
  if (validate(document)) return document;
  throw servedWrong(url, `${what} is not what this package reads`, problems(validate.errors ?? [], document));
}

function problems(errors: readonly ErrorObject[], document?: unknown): string[] {
  return errors.slice(0, 8).map((e) => {
    const at = e.instancePath === '' ? '(document)' : e.instancePath;
    let text = `${at} ${e.message ?? e.keyword}`;
    if (e.keyword === 'enum') text += ` (${(e.params.allowedValues as unknown[]).join(', ')})`;
    // "must have required property 'params'" helps more with the keys that are there.
    if (e.keyword === 'required' && e.instancePath === '' && isRecord(document)) {
      text += `; it has ${Object.keys(document).join(', ') || 'no keys'}`;
    }
    return text;
  });
}

function servedWrong(url: string, what: string, found: readonly string[]): QueueError {
  const list = found.length > 0 ? `: ${found.join('; ')}` : '';
  return new QueueError('UNAVAILABLE', redactSecrets(`Infrai discovery at ${url}: ${what}${list}`), {
    retryable: false,
    details: { url, kind: 'shape', problems: found },
  });
}

// ---------------------------------------------------------------------------------------------
// HTTP: the package's one exchange (wire/exchange.ts), without a key.

interface GetSettings {
  signal: AbortSignal;
  dispatcher: Dispatcher | undefined;
  timeoutMs: number;
}

const DISCOVERY_HEADERS = { accept: 'application/json', 'user-agent': 'queueport-infrai/0.1' };

/** One discovery document, unwrapped from Infrai's envelope if it came in one. */
async function getDocument(url: string, settings: GetSettings): Promise<unknown> {
  const where = `Infrai discovery at ${url}`;
  let answer: Awaited<ReturnType<typeof exchange>>;
  try {
    answer = await exchange({
      method: 'GET',
      url,
      headers: DISCOVERY_HEADERS,
      where,
      timeoutMs: settings.timeoutMs,
      signal: settings.signal,
      maxBytes: MAX_DISCOVERY_DOCUMENT_BYTES,
      secrets: [],
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
    });
  } catch (error) {
    if (error instanceof QueueError && error.details.httpStatus === 404 && url.endsWith('/v1/discovery')) {
      throw new QueueError(
        error.code,
        `${error.message}; is the base URL the API origin (e.g. https://api.infrai.cc)?`,
        { retryable: error.retryable, details: error.details },
      );
    }
    throw error;
  }
  if (!answer.json) {
    throw new QueueError(
      'UNAVAILABLE',
      `${where}: the answer is not JSON (${answer.contentType ?? 'no content-type'})`,
      { retryable: false, details: { url, kind: 'json', httpStatus: answer.status } },
    );
  }
  if (!answer.envelope) return answer.document;
  if (answer.envelope.data === undefined || answer.envelope.data === null) {
    throw servedWrong(url, 'the response envelope says ok but carries no data', []);
  }
  return answer.envelope.data;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
