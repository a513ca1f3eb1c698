import ts from 'typescript';
import { publicApi } from './public-api';

/*
 * The units rule (ARCHITECTURE.md, "Units"): every duration's name ends in its unit, `Seconds`
 * for queue semantics and `Ms` for transport and process timeouts. These helpers find the numbers
 * of the public API whose name says they are a duration and does not say the unit.
 */

/** Words that make a number a duration (or a time); matched against whole camelCase words. */
const TIME_WORDS = new Set([
  'age',
  'after',
  'backoff',
  'cooldown',
  'deadline',
  'delay',
  'duration',
  'elapsed',
  'every',
  'expiry',
  'grace',
  'idle',
  'interval',
  'keep',
  'lease',
  'linger',
  'margin',
  'period',
  'poll',
  'retention',
  'sleep',
  'slack',
  'time',
  'timeout',
  'ttl',
  'wait',
  'window',
]);

/** A name that ends in its unit. */
const UNIT_SUFFIX = /(Seconds|Ms)$|^(ms|seconds)$|_(SECONDS|MS)$/;
/** A point in time (epoch ms, as `Clock.now()` returns), not a duration: named for the moment. */
const INSTANT = /(At|Until)$|^(now|timestamp)$/;
/** A count or a size, which a time word may qualify (`redriveAfterReceives`, `maxReceives`). */
const COUNT_SUFFIX =
  /(Count|Receives|Attempts|Runs|Bytes|Messages|Rows|Length|Size|Entries)$|_(BYTES|ATTRIBUTES|RECEIVES)$/;

/** The camelCase (or UPPER_SNAKE) words of a name, lower-cased. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/^#/, '')
    .split(/_|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
}

/** Why a numeric name breaks the rule, or undefined when it keeps it. */
export function unitProblem(name: string): string | undefined {
  if (UNIT_SUFFIX.test(name) || INSTANT.test(name) || COUNT_SUFFIX.test(name)) return undefined;
  const word = wordsOf(name).find((w) => TIME_WORDS.has(w));
  return word === undefined
    ? undefined
    : `"${word}" makes it a duration, but the name does not end in Seconds or Ms`;
}

export interface UnitViolation {
  name: string;
  /** The source file and line of the declaration, relative to the root. */
  where: string;
  /** How it is reached from a package entry point. */
  via: string;
  problem: string;
}

const NUMBER_LIKE = ts.TypeFlags.NumberLike;
const NOTHING = ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void;

const isNumber = (type: ts.Type): boolean => {
  const parts = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & NOTHING));
  return parts.length > 0 && parts.every((t) => (t.flags & NUMBER_LIKE) !== 0);
};

/**
 * Walks the public API of every entry point (public-api.ts) and reports each number whose name
 * breaks the rule.
 */
export function findUnitViolations(root: string): { violations: UnitViolation[]; checked: Set<string> } {
  const api = publicApi(root);
  const violations = new Map<string, UnitViolation>();
  const checked = new Set<string>();
  api.walk(
    api.files.map((f) => f.entry),
    ({ name, node, type, via }) => {
      if (!isNumber(type)) return;
      checked.add(name);
      const problem = unitProblem(name);
      const at = api.where(node);
      if (problem && !violations.has(`${name}@${at}`))
        violations.set(`${name}@${at}`, { name, where: at, via, problem });
    },
  );
  return { violations: [...violations.values()], checked };
}

/**
 * The numeric properties of a JSON schema (an option schema) whose name breaks the rule, each
 * as its path in the schema.
 */
export function schemaUnitViolations(schema: unknown, at = ''): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const found: string[] = [];
  const node = schema as Record<string, unknown>;
  const properties = node.properties;
  if (properties !== null && typeof properties === 'object') {
    for (const [name, sub] of Object.entries(properties as Record<string, unknown>)) {
      const type = (sub as { type?: unknown } | null)?.type;
      const numeric = type === 'number' || type === 'integer';
      const problem = numeric ? unitProblem(name) : undefined;
      if (problem) found.push(`${at}.${name}: ${problem}`);
      found.push(...schemaUnitViolations(sub, `${at}.${name}`));
    }
  }
  for (const key of ['items', 'allOf', 'anyOf', 'oneOf', 'additionalProperties']) {
    const value = node[key];
    const list = Array.isArray(value) ? value : [value];
    list.forEach((item, i) => {
      found.push(...schemaUnitViolations(item, `${at}[${key}${Array.isArray(value) ? `.${i}` : ''}]`));
    });
  }
  return found;
}
