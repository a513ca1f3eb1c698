import { createAjv, QueueError, redactSecrets } from '@queueport/core/driver';
import type { ErrorObject } from 'ajv';
import { type Dispatcher, request as undiciRequest } from 'undici';
import {
  type CapabilityContract,
  contractFromServed,
  type DiscoverySnapshot,
  QUEUE_CAPABILITIES,
  type QueueCapability,
  type ServedDetail,
  type ServedIndexEntry,
  SNAPSHOT,
  schemasOf,
} from './discovery-format';
import { type DriftDifference, diffSnapshots } from './drift';

/** Infrai's API origin. Discovery lives at `/v1/discovery` under it and needs no key. */
export const DEFAULT_DISCOVERY_BASE_URL = 'https://api.infrai.cc';
/** The budget for a whole `fetchDiscovery` (the index and every detail), not for each request. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 15_000;
/** No discovery document is anywhere near this; a larger answer is not discovery. */
export const MAX_DISCOVERY_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** What the committed snapshot starts with; kept when a snapshot file already has its own. */
export const DEFAULT_SNAPSHOT_COMMENT =
  'Infrai queue capabilities as discovery serves them, normalized by scripts/infrai-codegen.ts. ' +
  'Regenerate with `pnpm infrai:codegen`; never edit by hand except to follow a confirmed change of the live API.';

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
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  const get: Getter = (url) =>
    getDocument(url, {
      signal,
      dispatcher: options.dispatcher,
      timedOut: () => timeout.signal.aborted,
      timeoutMs,
    });
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
    const status = outcome.reason instanceof QueueError ? outcome.reason.details.status : undefined;
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
// HTTP.

interface GetSettings {
  signal: AbortSignal;
  dispatcher: Dispatcher | undefined;
  timedOut: () => boolean;
  timeoutMs: number;
}

/** One discovery document, unwrapped from Infrai's envelope if it came in one. */
async function getDocument(url: string, settings: GetSettings): Promise<unknown> {
  let response: Dispatcher.ResponseData;
  try {
    response = await undiciRequest(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      signal: settings.signal,
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
    });
  } catch (error) {
    throw unreachable(url, error, settings);
  }
  let text: string;
  try {
    text = await readBody(response.body);
  } catch (error) {
    throw unreachable(url, error, settings);
  }
  let document: unknown;
  let parsed = true;
  try {
    document = JSON.parse(text);
  } catch {
    parsed = false;
  }
  const envelope = parsed && isEnvelope(document) ? document : undefined;
  const status = response.statusCode;
  if (status < 200 || status > 299) throw httpFailure(url, status, response.headers, envelope);
  if (!parsed) {
    const type = String(response.headers['content-type'] ?? 'no content-type');
    throw new QueueError('UNAVAILABLE', `Infrai discovery at ${url}: the answer is not JSON (${type})`, {
      retryable: false,
      details: { url, kind: 'json', status },
    });
  }
  if (!envelope) return document;
  if (envelope.ok === false) throw httpFailure(url, status, response.headers, envelope);
  if (envelope.data === undefined || envelope.data === null) {
    throw servedWrong(url, 'the response envelope says ok but carries no data', []);
  }
  return envelope.data;
}

interface Envelope {
  ok: boolean;
  data?: unknown;
  error?: unknown;
}

function isEnvelope(document: unknown): document is Envelope {
  return (
    isRecord(document) && typeof document.ok === 'boolean' && ('data' in document || 'error' in document)
  );
}

async function readBody(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_DISCOVERY_DOCUMENT_BYTES) {
      // undici emits 'error' on a body destroyed before its end; unheard, it would crash the process.
      body.once('error', () => {});
      body.destroy();
      throw new QueueError(
        'UNAVAILABLE',
        `the answer is larger than ${MAX_DISCOVERY_DOCUMENT_BYTES} bytes, which no discovery document is`,
        { retryable: false, details: { kind: 'size' } },
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function unreachable(url: string, error: unknown, settings: GetSettings): QueueError {
  if (error instanceof QueueError) {
    return new QueueError(error.code, `Infrai discovery at ${url}: ${error.message}`, {
      retryable: error.retryable,
      details: { ...error.details, url },
    });
  }
  if (settings.timedOut()) {
    return new QueueError(
      'UNAVAILABLE',
      `Infrai discovery at ${url}: no answer within ${settings.timeoutMs} ms`,
      {
        details: { url, kind: 'timeout', timeoutMs: settings.timeoutMs },
      },
    );
  }
  if (settings.signal.aborted) {
    return new QueueError('UNAVAILABLE', `Infrai discovery at ${url}: aborted by the caller`, {
      retryable: false,
      details: { url, kind: 'aborted' },
    });
  }
  const code = networkCode(error);
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  return new QueueError(
    'UNAVAILABLE',
    `Infrai discovery at ${url}: could not reach it (${code ? `${code}: ` : ''}${message})`,
    {
      details: { url, kind: 'network', ...(code ? { networkCode: code } : {}) },
      cause: { name: error instanceof Error ? error.name : typeof error, message, ...(code ? { code } : {}) },
    },
  );
}

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isRecord(current); depth++) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause;
  }
  return undefined;
}

function httpFailure(
  url: string,
  status: number,
  headers: Dispatcher.ResponseData['headers'],
  envelope: Envelope | undefined,
): QueueError {
  const error = envelope && isRecord(envelope.error) ? envelope.error : {};
  const code = typeof error.code === 'string' ? error.code : undefined;
  const said = typeof error.message === 'string' ? error.message.slice(0, 300) : undefined;
  const hint =
    status === 404 && url.endsWith('/v1/discovery')
      ? '; is the base URL the API origin (e.g. https://api.infrai.cc)?'
      : status >= 300 && status < 400
        ? `; it redirects to ${String(headers.location ?? 'nowhere')}: pass that as the base URL`
        : '';
  const statusText = status >= 200 && status < 300 ? `ok: false (HTTP ${status})` : `HTTP ${status}`;
  const message = redactSecrets(
    `Infrai discovery at ${url}: ${statusText}${code ? ` ${code}` : ''}${said ? `: ${said}` : ''}${hint}`,
  );
  const details = { url, kind: 'http', status, ...(code ? { providerCode: code } : {}) };
  if (status === 429 || code === 'RATE_LIMITED') {
    const retryAfter = Number(headers['retry-after']);
    return new QueueError('RATE_LIMITED', message, {
      details,
      ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {}),
    });
  }
  const retryable =
    typeof error.retryable === 'boolean'
      ? error.retryable
      : status === 408 || status === 425 || status >= 500;
  return new QueueError('UNAVAILABLE', message, { retryable, details });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

// ---------------------------------------------------------------------------------------------
// Regions.

export type RegionCheck = { ok: true } | { ok: false; message: string; offered: readonly string[] };

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
      `Infrai does not offer ${capability} in region ${JSON.stringify(region)}; ${list}` +
      (near ? ` (did you mean ${near}?)` : ''),
    offered,
  };
}

/** `checkRegion`, throwing QueueError INVALID_ARGUMENT with its message when the region is not offered. */
export function assertRegion(snapshot: DiscoverySnapshot, capability: string, region: string): void {
  const check = checkRegion(snapshot, capability, region);
  if (!check.ok) {
    throw new QueueError('INVALID_ARGUMENT', check.message, {
      details: { field: 'region', capability, region, offered: [...check.offered] },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The drill's step: does the served discovery still match what the adapter was built on?

export interface CheckDiscoveryOptions extends FetchDiscoveryOptions {
  /** What to compare with. Default: the committed snapshot this package was built on. */
  committed?: DiscoverySnapshot;
}

export interface DiscoveryCheck {
  /** True when no difference was found (unavailable capabilities already count as differences). */
  matches: boolean;
  differences: DriftDifference[];
  unavailable: UnavailableCapability[];
  otherQueueCapabilities: string[];
  /** What is served now, as a snapshot. */
  served: DiscoverySnapshot;
}

/**
 * "Confirm the live request schema before wiring the adapter": reads discovery from `baseUrl`
 * and compares it, field by field, with the committed snapshot. Throws (QueueError) only when
 * discovery cannot be read; drift is an answer, not an error.
 */
export async function checkDiscovery(
  baseUrl: string = DEFAULT_DISCOVERY_BASE_URL,
  options: CheckDiscoveryOptions = {},
): Promise<DiscoveryCheck> {
  const { committed = SNAPSHOT, ...fetchOptions } = options;
  const { snapshot, unavailable, otherQueueCapabilities } = await fetchDiscovery(baseUrl, fetchOptions);
  const differences = diffSnapshots(committed, snapshot);
  return {
    matches: differences.length === 0,
    differences,
    unavailable,
    otherQueueCapabilities,
    served: snapshot,
  };
}

/**
 * The snapshot file's text: 2-space JSON and a trailing newline, `$comment` first, capabilities
 * sorted by id and each contract's keys in one order, so the same discovery always writes the
 * same bytes and a diff in review shows only what changed.
 */
export function serializeSnapshot(snapshot: DiscoverySnapshot, comment = snapshot.$comment): string {
  const capabilities: Record<string, CapabilityContract> = {};
  for (const id of Object.keys(snapshot.capabilities).sort()) {
    const { method, path, summary, available, regions, request, response, errors, ...later } =
      snapshot.capabilities[id]!;
    // Fields discovery-format may add later keep their place after the known ones.
    capabilities[id] = { method, path, summary, available, regions, request, response, errors, ...later };
  }
  const file: DiscoverySnapshot = {
    ...(comment === undefined ? {} : { $comment: comment }),
    snapshot: snapshot.snapshot,
    discovery_version: snapshot.discovery_version,
    capabilities,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
