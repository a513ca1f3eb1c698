import type { CapabilityContract, CapabilityError, DiscoverySnapshot, JsonSchema } from './discovery-format';

/** Which of a capability's two schemas a field belongs to. */
export type SchemaSide = 'request' | 'response';

/**
 * A field's place in a schema: dotted property names, `[]` for an array's items, `[n]` for a
 * tuple's n-th item; `''` is the schema itself. E.g. `messages[].delay_seconds`.
 */
export type FieldPath = string;

interface FieldLocation {
  capability: string;
  schema: SchemaSide;
  field: FieldPath;
}

/** Keywords whose change alters what a value may be (as opposed to annotations such as `description`). */
export const CONSTRAINT_KEYWORDS = [
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'additionalProperties',
] as const;
export type ConstraintKeyword = (typeof CONSTRAINT_KEYWORDS)[number];

/**
 * One way the served discovery differs from the committed snapshot. Plain data: it survives
 * `JSON.stringify` as is (`from`/`to` are absent, not null, when the keyword was absent).
 */
export type DriftDifference =
  | { kind: 'discovery-version-changed'; from: string; to: string }
  | { kind: 'capability-added'; capability: string; available: boolean }
  | { kind: 'capability-removed'; capability: string }
  | { kind: 'method-changed'; capability: string; from: string; to: string }
  | { kind: 'path-changed'; capability: string; from: string; to: string }
  | { kind: 'availability-changed'; capability: string; from: boolean; to: boolean }
  | { kind: 'region-added'; capability: string; region: string }
  | { kind: 'region-removed'; capability: string; region: string }
  | { kind: 'summary-changed'; capability: string; from: string; to: string }
  | (FieldLocation & { kind: 'field-added'; type: string; required: boolean })
  | (FieldLocation & { kind: 'field-removed'; type: string; required: boolean })
  | (FieldLocation & { kind: 'type-changed'; from: string; to: string })
  | (FieldLocation & { kind: 'required-changed'; from: boolean; to: boolean })
  | (FieldLocation & { kind: 'constraint-changed'; keyword: ConstraintKeyword; from?: unknown; to?: unknown })
  | (FieldLocation & { kind: 'keyword-changed'; keyword: string; from?: unknown; to?: unknown })
  | { kind: 'error-added'; capability: string; code: string; http_status: number; retryable: boolean }
  | { kind: 'error-removed'; capability: string; code: string }
  | { kind: 'error-retryable-changed'; capability: string; code: string; from: boolean; to: boolean }
  | { kind: 'error-status-changed'; capability: string; code: string; from: number; to: number }
  | { kind: 'contract-changed'; capability: string };

export type DriftKind = DriftDifference['kind'];

/**
 * Every way `served` differs from `committed`, capability by capability (sorted by id), field by
 * field. Empty exactly when the two contracts are the same up to the order of object keys,
 * `required` and `type` lists (which carry no meaning), so "no differences" and "codegen would
 * write the same contract" never disagree. `$comment` is ours, not discovery's, and is ignored.
 */
export function diffSnapshots(committed: DiscoverySnapshot, served: DiscoverySnapshot): DriftDifference[] {
  const out: DriftDifference[] = [];
  if (committed.discovery_version !== served.discovery_version) {
    out.push({
      kind: 'discovery-version-changed',
      from: committed.discovery_version,
      to: served.discovery_version,
    });
  }
  const ids = [
    ...new Set([...Object.keys(committed.capabilities), ...Object.keys(served.capabilities)]),
  ].sort();
  for (const id of ids) {
    const before = own(committed.capabilities, id);
    const after = own(served.capabilities, id);
    if (!after) out.push({ kind: 'capability-removed', capability: id });
    else if (!before) out.push({ kind: 'capability-added', capability: id, available: after.available });
    else out.push(...diffContracts(id, before, after));
  }
  return out;
}

/** The differences between two contracts of one capability. */
export function diffContracts(
  capability: string,
  before: CapabilityContract,
  after: CapabilityContract,
): DriftDifference[] {
  const out: DriftDifference[] = [];
  if (before.method !== after.method) {
    out.push({ kind: 'method-changed', capability, from: before.method, to: after.method });
  }
  if (before.path !== after.path)
    out.push({ kind: 'path-changed', capability, from: before.path, to: after.path });
  if (before.available !== after.available) {
    out.push({ kind: 'availability-changed', capability, from: before.available, to: after.available });
  }
  for (const region of after.regions) {
    if (!before.regions.includes(region)) out.push({ kind: 'region-added', capability, region });
  }
  for (const region of before.regions) {
    if (!after.regions.includes(region)) out.push({ kind: 'region-removed', capability, region });
  }
  if (before.summary !== after.summary) {
    out.push({ kind: 'summary-changed', capability, from: before.summary, to: after.summary });
  }
  for (const schema of ['request', 'response'] as const) {
    walkSchema(out, { capability, schema, field: '' }, before[schema], after[schema]);
  }
  diffErrors(out, capability, before.errors, after.errors);
  // A safety net for whatever the walk does not itemize (a `required` entry counted twice,
  // an error listed twice): the difference is still reported, only less precisely.
  if (out.length === 0 && !sameJson(before, after)) out.push({ kind: 'contract-changed', capability });
  return out;
}

function diffErrors(
  out: DriftDifference[],
  capability: string,
  before: readonly CapabilityError[],
  after: readonly CapabilityError[],
): void {
  const was = new Map(before.map((e) => [e.code, e]));
  const now = new Map(after.map((e) => [e.code, e]));
  for (const [code, error] of now) {
    const old = was.get(code);
    if (!old) {
      out.push({
        kind: 'error-added',
        capability,
        code,
        http_status: error.http_status,
        retryable: error.retryable,
      });
      continue;
    }
    if (old.retryable !== error.retryable) {
      out.push({
        kind: 'error-retryable-changed',
        capability,
        code,
        from: old.retryable,
        to: error.retryable,
      });
    }
    if (old.http_status !== error.http_status) {
      out.push({
        kind: 'error-status-changed',
        capability,
        code,
        from: old.http_status,
        to: error.http_status,
      });
    }
  }
  for (const code of was.keys()) {
    if (!now.has(code)) out.push({ kind: 'error-removed', capability, code });
  }
}

/** Keywords the walk handles itself; every other keyword is compared as a whole. */
const STRUCTURAL = new Set(['type', 'properties', 'required', 'items']);
const CONSTRAINTS: ReadonlySet<string> = new Set(CONSTRAINT_KEYWORDS);

function walkSchema(out: DriftDifference[], at: FieldLocation, before: unknown, after: unknown): void {
  if (!isObject(before) || !isObject(after)) {
    // Boolean schemas (`true`/`false`) or something that is no schema at all: compare whole.
    if (!sameJson(before, after))
      out.push({ ...at, kind: 'keyword-changed', keyword: '(schema)', ...fromTo(before, after) });
    return;
  }
  const typesBefore = typeSet(before);
  const typesAfter = typeSet(after);
  if (!sameJson(typesBefore, typesAfter)) {
    out.push({ ...at, kind: 'type-changed', from: declaredType(typesBefore), to: declaredType(typesAfter) });
    // string → object says it all: listing every nested field as added would bury the news.
    if (typesBefore && typesAfter && !typesBefore.some((t) => typesAfter.includes(t))) return;
  }
  const keywords = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const keyword of keywords) {
    if (STRUCTURAL.has(keyword)) continue;
    const a = before[keyword];
    const b = after[keyword];
    if (keyword === 'enum' ? sameSet(a, b) : sameJson(a, b)) continue;
    if (CONSTRAINTS.has(keyword)) {
      out.push({ ...at, kind: 'constraint-changed', keyword: keyword as ConstraintKeyword, ...fromTo(a, b) });
    } else {
      out.push({ ...at, kind: 'keyword-changed', keyword, ...fromTo(a, b) });
    }
  }
  walkProperties(out, at, before, after);
  walkItems(out, at, before.items, after.items);
}

function walkProperties(
  out: DriftDifference[],
  at: FieldLocation,
  before: JsonSchema,
  after: JsonSchema,
): void {
  const propsBefore = isObject(before.properties) ? before.properties : {};
  const propsAfter = isObject(after.properties) ? after.properties : {};
  const requiredBefore = stringList(before.required);
  const requiredAfter = stringList(after.required);
  // Names listed in `required` but not in `properties` count too: requiring them changes what is valid.
  const names = [
    ...new Set([
      ...Object.keys(propsBefore),
      ...Object.keys(propsAfter),
      ...requiredBefore,
      ...requiredAfter,
    ]),
  ];
  for (const name of names) {
    const field = at.field === '' ? name : `${at.field}.${name}`;
    const child = { ...at, field };
    const wasRequired = requiredBefore.includes(name);
    const isRequired = requiredAfter.includes(name);
    const inBefore = Object.hasOwn(propsBefore, name);
    const inAfter = Object.hasOwn(propsAfter, name);
    if (inAfter && !inBefore) {
      out.push({ ...child, kind: 'field-added', type: typeLabel(propsAfter[name]), required: isRequired });
    } else if (inBefore && !inAfter) {
      out.push({
        ...child,
        kind: 'field-removed',
        type: typeLabel(propsBefore[name]),
        required: wasRequired,
      });
    } else {
      if (wasRequired !== isRequired) {
        out.push({ ...child, kind: 'required-changed', from: wasRequired, to: isRequired });
      }
      if (inBefore) walkSchema(out, child, propsBefore[name], propsAfter[name]);
    }
  }
}

function walkItems(out: DriftDifference[], at: FieldLocation, before: unknown, after: unknown): void {
  if (before === undefined && after === undefined) return;
  if (isObject(before) && isObject(after)) {
    walkSchema(out, { ...at, field: `${at.field}[]` }, before, after);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const field = `${at.field}[${i}]`;
      if (i >= before.length)
        out.push({ ...at, field, kind: 'field-added', type: typeLabel(after[i]), required: true });
      else if (i >= after.length) {
        out.push({ ...at, field, kind: 'field-removed', type: typeLabel(before[i]), required: true });
      } else walkSchema(out, { ...at, field }, before[i], after[i]);
    }
    return;
  }
  if (!sameJson(before, after))
    out.push({ ...at, kind: 'keyword-changed', keyword: 'items', ...fromTo(before, after) });
}

/** `type` as a sorted list, or undefined when the schema does not say. */
function typeSet(schema: JsonSchema): string[] | undefined {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return [...new Set(type.map(String))].sort();
  return undefined;
}

function declaredType(types: string[] | undefined): string {
  return types ? types.join(' | ') : 'unspecified';
}

/** How a schema's type reads in a message: `integer`, `string | null`, `enum`, `any`. */
function typeLabel(schema: unknown): string {
  if (schema === true) return 'any';
  if (schema === false) return 'nothing';
  if (!isObject(schema)) return 'any';
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.map(String).join(' | ');
  if (schema.enum !== undefined) return 'enum';
  if (schema.const !== undefined) return 'const';
  if (schema.properties !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  for (const combinator of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (schema[combinator] !== undefined) return combinator;
  }
  if (schema.$ref !== undefined) return `$ref ${String(schema.$ref)}`;
  return 'any';
}

function fromTo(from: unknown, to: unknown): { from?: unknown; to?: unknown } {
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function sameSet(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return sameJson(a, b);
  const key = (list: unknown[]) => [...new Set(list.map((v) => canonicalJson(v)))].sort();
  return sameJson(key(a), key(b));
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Lists whose order carries no meaning, wherever they appear in a contract. */
const UNORDERED = new Set(['required', 'type', 'enum', 'regions', 'errors']);

/**
 * JSON with object keys sorted and the unordered lists too: neither order carries meaning in
 * discovery documents. (A property named `type` or `enum` holds an object, so it is left alone.)
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (key, v: unknown) => {
    if (Array.isArray(v) && UNORDERED.has(key)) {
      return v
        .map((item) => [canonicalJson(item), item] as const)
        .sort(([a], [b]) => compare(a, b))
        .map(([, item]) => item);
    }
    return isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => compare(a, b))) : v;
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// For people and for machines.

/** Where a difference is: `queue.publish request messages[].delay_seconds`, `queue.ack errors RATE_LIMITED`. */
export function driftLocation(difference: DriftDifference): string {
  if (difference.kind === 'discovery-version-changed') return 'discovery';
  if ('schema' in difference) {
    return `${difference.capability} ${difference.schema}${difference.field === '' ? '' : ` ${difference.field}`}`;
  }
  if ('code' in difference) return `${difference.capability} errors ${difference.code}`;
  return difference.capability;
}

/** One difference as a sentence, after its location. */
export function describeDifference(d: DriftDifference): string {
  switch (d.kind) {
    case 'discovery-version-changed':
      return `version changed ${d.from} → ${d.to}`;
    case 'capability-added':
      return `capability added (served, not in the snapshot${d.available ? '' : '; marked unavailable'})`;
    case 'capability-removed':
      return 'capability removed (in the snapshot, not served)';
    case 'method-changed':
      return `method changed ${d.from} → ${d.to}`;
    case 'path-changed':
      return `path changed ${d.from} → ${d.to}`;
    case 'availability-changed':
      return d.to ? 'now available (was unavailable)' : 'now unavailable (was available)';
    case 'region-added':
      return `region added: ${d.region}`;
    case 'region-removed':
      return `region removed: ${d.region}`;
    case 'summary-changed':
      return `summary changed ${JSON.stringify(d.from)} → ${JSON.stringify(d.to)}`;
    case 'field-added':
      return `field added (${d.type}, ${d.required ? 'required' : 'optional'})`;
    case 'field-removed':
      return `field removed (was ${d.type}, ${d.required ? 'required' : 'optional'})`;
    case 'type-changed':
      return `type changed ${d.from} → ${d.to}`;
    case 'required-changed':
      return d.to ? 'now required (was optional)' : 'now optional (was required)';
    case 'constraint-changed':
    case 'keyword-changed':
      return keywordChange(d.keyword, d.from, d.to);
    case 'error-added':
      return `error code added (HTTP ${d.http_status}, ${d.retryable ? 'retryable' : 'not retryable'})`;
    case 'error-removed':
      return 'error code removed';
    case 'error-retryable-changed':
      return `retryable changed ${d.from} → ${d.to}`;
    case 'error-status-changed':
      return `HTTP status changed ${d.from} → ${d.to}`;
    case 'contract-changed':
      return 'contract changed (in a way not itemized: compare the snapshot files)';
  }
}

function keywordChange(keyword: string, from: unknown, to: unknown): string {
  if (from === undefined) return `${keyword} added: ${shown(to)}`;
  if (to === undefined) return `${keyword} removed (was ${shown(from)})`;
  if (keyword === 'enum' && Array.isArray(from) && Array.isArray(to)) {
    const was = new Set(from.map((v) => JSON.stringify(v)));
    const now = new Set(to.map((v) => JSON.stringify(v)));
    const added = [...now].filter((v) => !was.has(v));
    const removed = [...was].filter((v) => !now.has(v));
    const parts = [
      ...(added.length ? [`added ${added.join(', ')}`] : []),
      ...(removed.length ? [`removed ${removed.join(', ')}`] : []),
    ];
    if (parts.length > 0) return `enum changed: ${parts.join('; ')}`;
  }
  return `${keyword} changed ${shown(from)} → ${shown(to)}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** One line per difference, for people: `queue.publish request priority: type changed integer → string`. */
export function formatDrift(differences: readonly DriftDifference[]): string[] {
  return differences.map((d) => `${driftLocation(d)}: ${describeDifference(d)}`);
}

/** What `--json` prints and the CLI's drill records: each difference with its location and sentence. */
export interface DriftReport {
  matches: boolean;
  count: number;
  differences: Array<DriftDifference & { location: string; message: string }>;
}

export function driftReport(differences: readonly DriftDifference[]): DriftReport {
  return {
    matches: differences.length === 0,
    count: differences.length,
    differences: differences.map((d) => ({
      ...d,
      location: driftLocation(d),
      message: describeDifference(d),
    })),
  };
}
