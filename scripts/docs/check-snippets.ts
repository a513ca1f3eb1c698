import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { Snippet } from './snippets';

/** Where a snippet is written: one file per snippet, inside the workspace. */
export interface WrittenSnippet {
  snippet: Snippet;
  file: string;
}

/** A type error, or a failed run, placed at its README line. */
export interface SnippetError {
  /** The snippet the error is in; none for an error of the program as a whole. */
  snippet?: Snippet;
  readme: string;
  line: number;
  column: number;
  message: string;
}

/** The workspace's compiler options (tsconfig.base.json: strict, customConditions, ...). */
export function workspaceCompilerOptions(root: string): ts.CompilerOptions {
  const configFile = path.join(root, 'tsconfig.base.json');
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configFile);
  if (parsed.errors.length > 0) {
    throw new Error(
      parsed.errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'),
    );
  }
  return {
    ...parsed.options,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    // Every snippet is a module (top-level await), even one without an import.
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
}

/**
 * The development export condition(s) (`customConditions` of tsconfig.base.json), through which
 * workspace packages resolve to their TypeScript sources.
 */
export function developmentConditions(root: string): string[] {
  const conditions = workspaceCompilerOptions(root).customConditions ?? [];
  if (conditions.length === 0) throw new Error('tsconfig.base.json declares no customConditions');
  return [...conditions];
}

/** Writes each snippet to its own file in `dir`, named after its README and line. */
export function writeSnippets(snippets: readonly Snippet[], dir: string): WrittenSnippet[] {
  mkdirSync(dir, { recursive: true });
  return snippets.map((snippet) => {
    const slug = snippet.readme.replace(/\/?README\.md$/, '').replace(/[^\w-]+/g, '_') || 'root';
    const file = path.join(dir, `${slug}-L${snippet.line}.ts`);
    writeFileSync(file, snippet.code);
    return { snippet, file };
  });
}

/**
 * Type-checks every snippet in one program, with the workspace's compiler options. A snippet
 * resolves its imports as a file beside its README would, so a relative import means what it
 * says to a reader of that README, and workspace packages resolve through the development
 * condition. Only the snippets' own diagnostics are reported, each at its README line.
 */
export function typecheckSnippets(
  root: string,
  written: readonly WrittenSnippet[],
  extraRoots: readonly string[] = [],
): SnippetError[] {
  const options = workspaceCompilerOptions(root);
  const host = ts.createCompilerHost(options, true);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const origin = new Map<string, string>();
  for (const { snippet, file } of written) {
    origin.set(path.resolve(file), path.join(root, path.dirname(snippet.readme), path.basename(file)));
  }
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions, sourceFile) =>
    literals.map((literal) =>
      ts.resolveModuleName(
        literal.text,
        origin.get(path.resolve(containingFile)) ?? containingFile,
        compilerOptions,
        host,
        cache,
        redirected,
        ts.getModeForUsageLocation(sourceFile, literal, compilerOptions),
      ),
    );

  const program = ts.createProgram({
    rootNames: [...written.map((w) => w.file), ...extraRoots],
    options,
    host,
  });
  const errors: SnippetError[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
    const owner = written.find(
      (w) => diagnostic.file && path.resolve(diagnostic.file.fileName) === path.resolve(w.file),
    );
    if (!diagnostic.file) {
      errors.push({
        readme: '(compiler options)',
        line: 0,
        column: 0,
        message: `TS${diagnostic.code}: ${message}`,
      });
    } else if (owner) {
      const at = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      errors.push({
        snippet: owner.snippet,
        readme: owner.snippet.readme,
        line: owner.snippet.line + at.line,
        column: at.character + 1,
        message: `TS${diagnostic.code}: ${message}`,
      });
    }
  }
  return errors;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  output: string;
  ms: number;
}

/**
 * Runs one snippet file as a program, as an application would run it from TypeScript: plain
 * `node` with tsx and the development conditions, in `cwd` (where the snippet may write files).
 * The snippet must end on its own, so one that leaves a handle open fails by timing out.
 */
export function runSnippet(
  file: string,
  options: { cwd: string; conditions: readonly string[]; timeoutMs: number },
): Promise<RunResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...options.conditions.map((c) => `--conditions=${c}`), '--import', 'tsx', file],
      { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, output, ms: performance.now() - started });
    });
  });
}

/** `readme:line:column message`, the way editors and CI logs link to a place. */
export function formatError(error: SnippetError): string {
  return `${error.readme}:${error.line}:${error.column} ${error.message}`;
}
