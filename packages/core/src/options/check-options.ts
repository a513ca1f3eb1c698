import type { ErrorObject, ValidateFunction } from 'ajv';
import { QueueError, redactSecrets } from '../errors';
import { createAjv } from '../validation';
import {
  closeOptionsSchema,
  consumeOptionsSchema,
  publishInputSchema,
  queueOptionsSchema,
  receiveOptionsSchema,
  releaseEntrySchema,
} from './option-schemas';

const ajv = createAjv({ schemas: 'own' });
ajv.addKeyword({
  keyword: 'isFunction',
  schemaType: 'boolean',
  errors: false,
  validate: (wanted: boolean, data: unknown) => (typeof data === 'function') === wanted,
});
ajv.addKeyword({
  keyword: 'isAbortSignal',
  schemaType: 'boolean',
  errors: false,
  validate: (wanted: boolean, data: unknown) => data instanceof AbortSignal === wanted,
});

/** Each kind's validator, and the fields holding plain data that are copied with the root. */
const compiled = {
  'queue options': {
    validate: ajv.compile(queueOptionsSchema),
    nested: ['retry', 'limits', 'hooks', 'payloadStore'],
  },
  'consume options': { validate: ajv.compile(consumeOptionsSchema), nested: ['retry'] },
  'receive options': { validate: ajv.compile(receiveOptionsSchema), nested: [] },
  'publish input': { validate: ajv.compile(publishInputSchema), nested: [] },
  'release entry': { validate: ajv.compile(releaseEntrySchema), nested: [] },
  'close options': { validate: ajv.compile(closeOptionsSchema), nested: [] },
} satisfies Record<string, { validate: ValidateFunction; nested: readonly string[] }>;

export type OptionsKind = keyof typeof compiled;

export interface OptionProblem {
  /** Dotted path of the offending option (`retry.maxAttempts`, `hooks.onRetry`, `signal`). */
  field: string;
  message: string;
}

/**
 * Checks an option object against its schema and returns what was checked: a copy, read once,
 * so a getter cannot pass the check with one value and be used with another. The plain-data
 * options nested in it (`retry`, `limits`, `hooks`) are copied too; everything else (a clock,
 * an AbortSignal, a delivery) is kept as it is. `undefined` is "no options" and gives `{}`.
 *
 * Throws INVALID_ARGUMENT naming every problem, with `details.field` the first offending field
 * (and `details.problems` all of them). `prefix` qualifies field names (`inputs[2].`).
 */
export function checkOptions<T extends object>(kind: OptionsKind, value: T | undefined, prefix = ''): T {
  const { validate, nested } = compiled[kind];
  return checkAgainst(kind, validate, nested, value, prefix);
}

/** A driver's constructor options, as `checkDriverOptions` takes their schema. */
export interface DriverOptionsSchema {
  type: 'object';
  /** Each option's JSON schema (ajv, strict mode); `{}` for one checked elsewhere (a client). */
  properties: Readonly<Record<string, object>>;
  required?: readonly string[];
  /** `false` refuses an option the schema does not list, as core's own options do. */
  additionalProperties?: boolean;
}

const driverValidators = new WeakMap<DriverOptionsSchema, ValidateFunction>();

/**
 * `checkOptions` for a driver's own constructor options: the same reading (a copy, read once;
 * a getter that throws is a typed error) and the same INVALID_ARGUMENT naming every problem by
 * its field, against the driver's schema, compiled once. `what` names them in the message
 * (`BullMQ driver options`). Values are never quoted, only the rule they broke. Bounds that
 * depend on what the provider said (a queue's message size) stay the driver's to check after.
 */
export function checkDriverOptions<T extends object>(what: string, schema: DriverOptionsSchema, value: T): T {
  let validate = driverValidators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    driverValidators.set(schema, validate);
  }
  return checkAgainst(what, validate, [], value, '');
}

function checkAgainst<T extends object>(
  kind: string,
  validate: ValidateFunction,
  nested: readonly string[],
  value: T | undefined,
  prefix: string,
): T {
  if (value === undefined) return {} as T;
  let copy: unknown;
  let valid: boolean;
  try {
    copy = snapshot(value, nested);
    valid = validate(copy);
  } catch (error) {
    // A getter or Proxy trap that throws: the caller gets a typed error, not its own.
    throw unreadable(kind, prefix, error);
  }
  if (valid) return copy as T;
  const problems = describe(validate.errors, prefix).map((p) => ({ ...p, text: `${p.field} ${p.message}` }));
  const first = problems[0]?.field ?? (prefix.replace(/\.$/, '') || kind);
  throw new QueueError('INVALID_ARGUMENT', `invalid ${kind}: ${problems.map((p) => p.text).join('; ')}`, {
    details: { field: first, problems: problems.map((p) => p.text) },
  });
}

/** The typed refusal of an argument whose reading threw (a getter, a Proxy trap). */
export function unreadable(what: string, prefix: string, error: unknown): QueueError {
  const field = prefix.replace(/\.$/, '') || what;
  const subject = field === what ? what : `invalid ${what}: ${field}`;
  return new QueueError('INVALID_ARGUMENT', `${subject} could not be read (${reasonOf(error)})`, {
    details: { field },
  });
}

function reasonOf(error: unknown): string {
  try {
    const message = error instanceof Error ? error.message : String(error);
    return redactSecrets(message.slice(0, 200));
  } catch {
    return 'reading it threw';
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function snapshot(value: unknown, nested: readonly string[]): unknown {
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = value[key];
    Object.defineProperty(copy, key, {
      value: nested.includes(key) && isPlainObject(item) ? { ...item } : item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function describe(errors: readonly ErrorObject[] | null | undefined, prefix: string): OptionProblem[] {
  const root = prefix.replace(/\.$/, '') || 'options';
  return (errors ?? []).map((error) => {
    const at = error.instancePath.slice(1).replaceAll('/', '.');
    const join = (name: string) => prefix + (at ? `${at}.${name}` : name);
    switch (error.keyword) {
      case 'additionalProperties':
        return { field: join(String(error.params.additionalProperty)), message: 'is not an option' };
      case 'required':
        return { field: join(String(error.params.missingProperty)), message: 'is required' };
      case 'isFunction':
        return { field: prefix + at, message: 'must be a function' };
      case 'isAbortSignal':
        return { field: prefix + at, message: 'must be an AbortSignal' };
      case 'type': {
        const field = at ? prefix + at : root;
        const type = String(error.params.type);
        const wanted =
          type === 'number' ? 'a finite number' : type === 'integer' ? 'an integer' : `an ${type}`;
        return { field, message: `must be ${wanted}` };
      }
      default:
        return { field: at ? prefix + at : root, message: error.message ?? 'is invalid' };
    }
  });
}
