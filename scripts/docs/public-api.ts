import path from 'node:path';
import ts from 'typescript';
import { PACKAGES, type PackageInfo } from '../package-check/workspace-packages';
import { workspaceCompilerOptions } from './check-snippets';

/*
 * The public API of the published packages, as the compiler sees it from their sources: every
 * name an entry point exports or reaches (properties of exported interfaces, type aliases and
 * classes, parameters of exported functions and methods, and whatever object types those reach).
 * The units rule and the README option names are both judged over it.
 */

/** An entry point as a user imports it (`@queueport/core/driver`), and the package it belongs to. */
export interface EntryPoint {
  entry: string;
  pkg: PackageInfo;
}

/** Every entry point of every published workspace package (workspace-packages.ts), sorted. */
export function entryPoints(packages: readonly PackageInfo[] = PACKAGES): EntryPoint[] {
  const entries: EntryPoint[] = [];
  for (const pkg of packages) {
    for (const key of Object.keys((pkg.manifest.exports ?? {}) as Record<string, unknown>)) {
      if (key === './package.json') continue;
      entries.push({ entry: key === '.' ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, '')}`, pkg });
    }
  }
  return entries.sort((a, b) => a.entry.localeCompare(b.entry));
}

/** One name of the public API, where it is declared and how it is reached. */
export interface PublicName {
  name: string;
  /** The declaration (property, parameter or exported variable). */
  node: ts.Node;
  type: ts.Type;
  /** How it is reached from the entry point (`@queueport/core:Queue.publish(input)`). */
  via: string;
}

export interface PublicApi {
  program: ts.Program;
  checker: ts.TypeChecker;
  /** Each entry point with its source file. */
  files: { entry: string; pkg: PackageInfo; file: string }[];
  /** `file:line` of a node, relative to the root. */
  where(node: ts.Node): string;
  /** Calls `visit` for every name reachable from `entries`, each type walked once per call. */
  walk(entries: readonly string[], visit: (found: PublicName) => void): void;
}

/** One program over every entry point's sources (through the workspace's source condition). */
export function publicApi(root: string, packages: readonly PackageInfo[] = PACKAGES): PublicApi {
  const options = workspaceCompilerOptions(root);
  const host = ts.createCompilerHost(options, true);
  const from = path.join(root, 'index.ts');
  const files = entryPoints(packages).map(({ entry, pkg }) => {
    const resolved = ts.resolveModuleName(entry, from, options, host).resolvedModule;
    if (!resolved) throw new Error(`${entry} does not resolve from the workspace root`);
    return { entry, pkg, file: resolved.resolvedFileName };
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
  const isPublic = (node: ts.Node): boolean => {
    if (ts.isPrivateIdentifier((node as ts.NamedDeclaration).name ?? node)) return false;
    const flags = ts.getCombinedModifierFlags(node as ts.Declaration);
    return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
  };

  const walk = (entries: readonly string[], visit: (found: PublicName) => void): void => {
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
          visit({ name: property.name, node, type: propertyType, via: `${via}.${property.name}` });
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
        visit({ name: parameter.name, node, type: parameterType, via: `${via}(${parameter.name})` });
        walkType(parameterType, `${via}(${parameter.name})`, depth + 1);
      }
      walkType(signature.getReturnType(), `${via}()`, depth + 1);
    };

    for (const { entry, file } of files.filter((f) => entries.includes(f.entry))) {
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
          if (symbol.flags & ts.SymbolFlags.Variable)
            visit({ name: exported.name, node: declaration, type: valueType, via });
          walkType(valueType, via, 0);
        }
      }
    }
  };
  return { program, checker, files, where, walk };
}
