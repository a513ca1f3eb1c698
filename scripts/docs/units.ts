import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { workspaceCompilerOptions } from './check-snippets';

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

/** Every entry point of every workspace package (`packages/*`, `conformance`), as imported. */
export function entryPoints(root: string): string[] {
  const dirs = [
    ...readdirSync(path.join(root, 'packages')).map((d) => path.join('packages', d)),
    'conformance',
  ];
  const entries: string[] = [];
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    for (const key of Object.keys(manifest.exports ?? {})) {
      if (key === './package.json') continue;
      entries.push(key === '.' ? manifest.name : `${manifest.name}/${key.replace(/^\.\//, '')}`);
    }
  }
  return entries.sort();
}

const NUMBER_LIKE = ts.TypeFlags.NumberLike;
const NOTHING = ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void;

/**
 * Walks the public API of every entry point (exported interfaces, type aliases, classes with
 * their public members, functions and constants, and every object type they reach through
 * properties, parameters and return types) and reports each number whose name breaks the rule.
 */
export function findUnitViolations(root: string): { violations: UnitViolation[]; checked: Set<string> } {
  const options = workspaceCompilerOptions(root);
  const host = ts.createCompilerHost(options, true);
  const from = path.join(root, 'index.ts');
  const files = entryPoints(root).map((entry) => {
    const resolved = ts.resolveModuleName(entry, from, options, host).resolvedModule;
    if (!resolved) throw new Error(`${entry} does not resolve from the workspace root`);
    return { entry, file: resolved.resolvedFileName };
  });
  const program = ts.createProgram(
    files.map((f) => f.file),
    options,
    host,
  );
  const checker = program.getTypeChecker();
  const inWorkspace = (node: ts.Node | undefined): node is ts.Node => {
    const file = node?.getSourceFile().fileName;
    return file?.startsWith(root) === true && !file.includes('/node_modules/');
  };
  const where = (node: ts.Node): string => {
    const source = node.getSourceFile();
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    return `${path.relative(root, source.fileName)}:${line + 1}`;
  };
  const isNumber = (type: ts.Type): boolean => {
    const parts = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & NOTHING));
    return parts.length > 0 && parts.every((t) => (t.flags & NUMBER_LIKE) !== 0);
  };
  const isPublic = (node: ts.Node): boolean => {
    if (ts.isPrivateIdentifier((node as ts.NamedDeclaration).name ?? node)) return false;
    const flags = ts.getCombinedModifierFlags(node as ts.Declaration);
    return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
  };

  const violations = new Map<string, UnitViolation>();
  const checked = new Set<string>();
  const note = (name: string, node: ts.Node, via: string): void => {
    checked.add(name);
    const problem = unitProblem(name);
    const at = where(node);
    if (problem && !violations.has(`${name}@${at}`))
      violations.set(`${name}@${at}`, { name, where: at, via, problem });
  };

  const seen = new Set<ts.Type>();
  const walkType = (type: ts.Type, via: string, depth: number): void => {
    if (depth > 8 || seen.has(type)) return;
    seen.add(type);
    if (type.isUnionOrIntersection()) {
      for (const part of type.types) walkType(part, via, depth + 1);
      return;
    }
    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      for (const arg of checker.getTypeArguments(type as ts.TypeReference)) walkType(arg, via, depth + 1);
      return;
    }
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const declaration = symbol?.declarations?.[0];
    // Only types this workspace declares (and anonymous object types): not lib, not node, not fast-check.
    if (declaration && !inWorkspace(declaration)) return;
    if (type.flags & ts.TypeFlags.Object) {
      for (const property of checker.getPropertiesOfType(type)) {
        const node = property.valueDeclaration ?? property.declarations?.[0];
        if (!inWorkspace(node) || !isPublic(node)) continue;
        const propertyType = checker.getTypeOfSymbolAtLocation(property, node);
        if (isNumber(propertyType)) note(property.name, node, `${via}.${property.name}`);
        walkType(propertyType, `${via}.${property.name}`, depth + 1);
      }
    }
    for (const signature of [...type.getCallSignatures(), ...type.getConstructSignatures()]) {
      walkSignature(signature, via, depth + 1);
    }
  };
  const walkSignature = (signature: ts.Signature, via: string, depth: number): void => {
    for (const parameter of signature.getParameters()) {
      const node = parameter.valueDeclaration;
      if (!inWorkspace(node)) continue;
      const parameterType = checker.getTypeOfSymbolAtLocation(parameter, node);
      if (isNumber(parameterType)) note(parameter.name, node, `${via}(${parameter.name})`);
      walkType(parameterType, `${via}(${parameter.name})`, depth + 1);
    }
    walkType(signature.getReturnType(), `${via}()`, depth + 1);
  };

  for (const { entry, file } of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${entry}: no module at ${file}`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (!inWorkspace(declaration)) continue;
      const via = `${entry}:${exported.name}`;
      if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class)) {
        walkType(checker.getDeclaredTypeOfSymbol(symbol), via, 0);
      }
      if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Class)) {
        const valueType = checker.getTypeOfSymbolAtLocation(symbol, declaration);
        if (symbol.flags & ts.SymbolFlags.Variable && isNumber(valueType))
          note(exported.name, declaration, via);
        walkType(valueType, via, 0);
      }
    }
  }
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
