import { QueueError } from '@queueport/core';
import { createAjv } from '@queueport/core/driver';
import type { ErrorObject } from 'ajv';

/**
 * The one Ajv instance for the webhook package's option schemas. `verbose` is on only so an
 * error can reach its schema's `refusal` text; the `data` it also carries is never read, since
 * option values include secrets and URLs with tokens.
 */
export const optionsAjv = createAjv({ schemas: 'own', verbose: true, allErrors: false });

// `refusal`: the human sentence for every way a property can fail, written next to the rule.
optionsAjv.addKeyword('refusal');
// JSON Schema has no function type, and options carry callbacks (now, resolver, onDisabled).
optionsAjv.addKeyword({
  keyword: 'isFunction',
  schemaType: 'boolean',
  validate: (_expected: boolean, data: unknown) => typeof data === 'function',
});

export interface OptionValidatorSettings {
  /** Starts every message: `webhook sender options`, `destination d1`. */
  subject: string | ((value: unknown) => string);
  /** Extra details for every error (e.g. the destination id). */
  details?: (value: unknown) => Record<string, unknown>;
  /** `details.field` when the value as a whole is wrong (not an object). Default `options`. */
  root?: string;
  /** Nicer names for some fields, e.g. `secrets[0]` → `signing secret #1`. */
  label?: (field: string) => string | undefined;
}

/** Checks a value and returns the snapshot that was checked (after `prepare`). */
export type OptionValidator = (value: unknown) => unknown;

/**
 * Compiles a schema into a check that throws `QueueError('INVALID_ARGUMENT')` naming the first
 * offending field in `details.field` (`ssrf.allowPrivateCidrs[0]`, `headers.X-Tenant`). The
 * message never contains the offending value: it may be a secret.
 */
export function compileOptionValidator(
  schema: object,
  settings: OptionValidatorSettings & { prepare?: (value: unknown) => unknown },
): OptionValidator {
  const validate = optionsAjv.compile(schema);
  return (value) => {
    let errors: readonly ErrorObject[];
    let subject: string;
    let details: Record<string, unknown> | undefined;
    try {
      const prepared = settings.prepare ? settings.prepare(value) : value;
      if (validate(prepared)) return prepared;
      errors = validate.errors ?? [];
      subject = typeof settings.subject === 'function' ? settings.subject(prepared) : settings.subject;
      details = settings.details?.(prepared);
    } catch {
      // A getter or proxy that throws while being read: the object cannot be used either.
      errors = [{ keyword: 'unreadable', instancePath: '', schemaPath: '#', params: {} }];
      subject = typeof settings.subject === 'string' ? settings.subject : (settings.root ?? 'options');
    }
    const { field, shown, message } = describe(errors);
    const named = shown === '' ? '' : `${settings.label?.(shown) ?? shown} `;
    throw new QueueError('INVALID_ARGUMENT', `${subject}: ${named}${message}`, {
      details: { ...details, field: field === '' ? (settings.root ?? 'options') : field },
    });
  };
}

/**
 * A copy without the properties set to `undefined`: TypeScript's optional properties allow
 * them, and they mean "use the default", which JSON Schema cannot express. Anything that is not
 * a plain object is returned as is, for the schema to refuse.
 */
export function withoutUndefined<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = item;
  return out as T;
}

function describe(errors: readonly ErrorObject[]): { field: string; shown: string; message: string } {
  const [first, next] = errors;
  if (!first) return { field: '', shown: '', message: 'is invalid' };
  let path = first.instancePath;
  // A propertyNames failure comes as the inner error first, then one that names the key.
  const key = next?.keyword === 'propertyNames' ? String(next.params.propertyName) : undefined;
  if (key !== undefined) path += `/${escapePointer(key)}`;
  if (first.keyword === 'additionalProperties') path += `/${escapePointer(first.params.additionalProperty)}`;
  if (first.keyword === 'required') path += `/${escapePointer(first.params.missingProperty)}`;
  const refusal = (first.parentSchema as { refusal?: unknown } | undefined)?.refusal;
  const { field, complete } = fieldOf(path);
  // A key that cannot be shown is still marked, so the sentence names a key, not its parent.
  const shown = complete ? field : `${field}[…]`;
  return { field, shown, message: typeof refusal === 'string' ? refusal : generic(first) };
}

function generic(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `must be ${article(String(params.type))}`;
    case 'additionalProperties':
      return 'is not a known option';
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'isFunction':
      return 'must be a function';
    case 'unreadable':
      return 'could not be read';
    default:
      // Ajv's own wording ("must be >= 1", "must NOT have more than 8 items") names no value.
      return error.message ?? 'is invalid';
  }
}

function article(type: string): string {
  if (type === 'integer') return 'an integer';
  if (type === 'object') return 'an object';
  if (type === 'array') return 'an array';
  return `a ${type}`;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]{0,63}$/;
// What may appear quoted in a field name: visible ASCII, short. Anything else may be pasted
// data (a token used as a header name), so the field stops at its parent.
const QUOTABLE = /^[\x21-\x7e]{1,64}$/;

function fieldOf(pointer: string): { field: string; complete: boolean } {
  let field = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(segment)) field += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) field += field === '' ? segment : `.${segment}`;
    else if (QUOTABLE.test(segment) && !segment.includes('"')) field += `["${segment}"]`;
    else return { field, complete: false };
  }
  return { field, complete: true };
}

function escapePointer(key: unknown): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}
