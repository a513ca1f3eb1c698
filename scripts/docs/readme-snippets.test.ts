import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import vitestConfig from '../../vitest.config';
import { PACKAGES } from '../package-check/workspace-packages';
import {
  developmentConditions,
  formatError,
  runSnippet,
  type SnippetError,
  typecheckSnippets,
  type WrittenSnippet,
  writeSnippets,
} from './check-snippets';
import { collectSnippets, extractSnippets } from './snippets';

// Every ```ts / ```typescript block of every README.md is type-checked (strict, the workspace's
// compiler options), and run unless a marker says why not: docs that drift fail here.
// QUEUEPORT_KEEP_SNIPPETS=1 keeps the files written (their directory is printed).

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { snippets, problems } = collectSnippets(root);
const checked = snippets.filter((s) => s.mode !== 'skip');
const runnable = snippets.filter((s) => s.mode === 'run');
const label = (s: { readme: string; line: number }) => `${s.readme}:${s.line}`;

/** At most this many snippets opt out of being checked at all. Keep it so. */
const MAX_SKIPPED = 2;
const RUN_TIMEOUT_MS = 60_000;
/** Snippet processes at a time: the rest of the suite runs beside them. */
const RUN_CONCURRENCY = 3;

let dir: string;
let written: WrittenSnippet[];
let errors: SnippetError[];

beforeAll(() => {
  // Inside the workspace, so workspace packages and their dependencies resolve, and inside
  // node_modules, so no lint, type-check or git status of the workspace ever sees the files.
  mkdirSync(path.join(root, 'node_modules', '.cache'), { recursive: true });
  dir = mkdtempSync(path.join(root, 'node_modules', '.cache', 'queueport-readme-snippets-'));
  // A snippet is an ES module, as in the packages (top-level await): node_modules ends the
  // search for the workspace's own package.json.
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  written = writeSnippets(checked, dir);
  // The snippets see what every test of this workspace sees, such as the global setup's
  // augmentation of vitest's ProvidedContext (`inject('queueportServices')`).
  const globalSetup = vitestConfig.test?.globalSetup ?? [];
  const extraRoots = (Array.isArray(globalSetup) ? globalSetup : [globalSetup]).map((file) =>
    path.resolve(root, file),
  );
  errors = typecheckSnippets(root, written, extraRoots);
}, 120_000);

afterAll(() => {
  if (!dir) return;
  if (process.env.QUEUEPORT_KEEP_SNIPPETS) console.error(`README snippets kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
});

describe('README snippets: extraction', () => {
  it('finds the snippets of every README, the root quick start among them', () => {
    const readmes = new Set(snippets.map((s) => s.readme));
    // Every published package's README has an example (the workspace's list, not one kept here).
    for (const readme of ['README.md', ...PACKAGES.map((pkg) => `${pkg.dir}/README.md`)]) {
      expect(readmes, readme).toContain(readme);
    }
    expect(runnable.some((s) => s.readme === 'README.md')).toBe(true);
  });

  it('finds no malformed marker or fence, and few opt-outs', () => {
    expect(problems.map((p) => `${p.readme}:${p.line} ${p.message}`)).toEqual([]);
    const skipped = snippets.filter((s) => s.mode === 'skip');
    expect(skipped.map((s) => `${label(s)}: ${s.reason}`).length).toBeLessThanOrEqual(MAX_SKIPPED);
  });

  it('reads markers, and refuses one without a reason', () => {
    const text = [
      '# x',
      '<!-- snippet: typecheck-only needs the vitest runner -->',
      '```ts',
      'const a = 1;',
      '```',
      '',
      '<!-- snippet: skip -->',
      '```typescript',
      'partial(',
      '```',
      '<!-- snippet: skip a shell block is never checked -->',
      '```sh',
      'ls',
      '```',
      '<!-- snippet: perhaps some day, maybe -->',
      '',
      '  ~~~ts',
      '  const b: number = 2;',
      '  ~~~',
      '```ts',
      '```ts inside is not a fence that closes',
      '```',
    ].join('\n');
    const { snippets: found, problems: found_problems } = extractSnippets('X.md', text);
    expect(found.map((s) => [s.line, s.mode, s.reason, s.code])).toEqual([
      [4, 'typecheck', 'needs the vitest runner', 'const a = 1;\n'],
      [9, 'run', undefined, 'partial(\n'],
      [18, 'run', undefined, 'const b: number = 2;\n'],
      [21, 'run', undefined, '```ts inside is not a fence that closes\n'],
    ]);
    expect(found_problems.map((p) => [p.line, p.message])).toEqual([
      [7, 'the "skip" marker needs a reason (at least 10 characters)'],
      [11, 'a snippet marker applies to a ts or typescript block only, not ```sh'],
      [15, 'unknown snippet marker "perhaps": use "typecheck-only <reason>" or "skip <reason>"'],
    ]);
    expect(
      extractSnippets('Y.md', '<!-- snippet: skip not before a fence -->\n\n```ts\n```\n').problems,
    ).toEqual([{ readme: 'Y.md', line: 1, message: 'a snippet marker must be right before a code fence' }]);
  });
});

describe('README snippets: type-check', () => {
  it('compiles with the workspace options, through the development condition', () => {
    // The errors not tied to one snippet, such as bad compiler options.
    expect(errors.filter((e) => !e.snippet).map(formatError)).toEqual([]);
  });

  it.each(checked.map((s) => [label(s), s] as const))('%s', (_, snippet) => {
    const own = errors.filter((e) => e.snippet === snippet);
    expect(own.map(formatError), `type errors in the snippet at ${label(snippet)}`).toEqual([]);
  });
});

describe.concurrent('README snippets: run', () => {
  it.each(runnable.map((s) => [label(s), s] as const))(
    '%s',
    async (_, snippet) => {
      const entry = written.find((w) => w.snippet === snippet);
      if (!entry) throw new Error(`${label(snippet)} was not written`);
      // Its own working directory: a snippet may write files (a SQLite ledger, for one).
      const cwd = mkdtempSync(path.join(dir, 'run-'));
      const result = await withSlot(() =>
        runSnippet(entry.file, { cwd, conditions: developmentConditions(root), timeoutMs: RUN_TIMEOUT_MS }),
      );
      // Stack traces name the README line, not the temp file.
      const output = result.output.replaceAll(
        new RegExp(`${escapeRegExp(entry.file)}:(\\d+)(?::(\\d+))?`, 'g'),
        (_match, line: string, column?: string) =>
          `${snippet.readme}:${snippet.line + Number(line) - 1}${column ? `:${column}` : ''}`,
      );
      const verdict = result.timedOut
        ? `did not end within ${RUN_TIMEOUT_MS} ms (a handle left open?)`
        : `exited with ${result.code ?? result.signal}`;
      expect(
        { code: result.code, timedOut: result.timedOut },
        `the snippet at ${label(snippet)} ${verdict}:\n${output}`,
      ).toEqual({ code: 0, timedOut: false });
    },
    // Waiting for a slot counts too.
    runnable.length * RUN_TIMEOUT_MS,
  );
});

let running = 0;
const waiting: Array<() => void> = [];

/** Runs `task` once fewer than RUN_CONCURRENCY others are running; a finished one hands its slot on. */
async function withSlot<T>(task: () => Promise<T>): Promise<T> {
  if (running < RUN_CONCURRENCY) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
