import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What the README snippet test does with a block:
 * - `run`: type-checked, then run as a program (the default);
 * - `typecheck`: type-checked only (`<!-- snippet: typecheck-only <reason> -->`), for a snippet
 *   that needs vitest's runner or a service outside the process;
 * - `skip`: neither (`<!-- snippet: skip <reason> -->`), for a deliberately partial snippet.
 */
export type SnippetMode = 'run' | 'typecheck' | 'skip';

export interface Snippet {
  /** The README, relative to the repository root, with `/` separators. */
  readme: string;
  /** 1-based line in the README of the snippet's first code line (the line after the fence). */
  line: number;
  lang: string;
  code: string;
  mode: SnippetMode;
  /** Why the snippet is not run (or not checked at all); required by both markers. */
  reason?: string;
}

/** A marker or fence the extractor cannot make sense of; the test fails on every one. */
export interface SnippetProblem {
  readme: string;
  line: number;
  message: string;
}

export const SNIPPET_LANGS: ReadonlySet<string> = new Set(['ts', 'typescript']);

const IGNORED_DIRS = new Set(['node_modules', 'dist', 'coverage', 'reports', '.git', '.stryker-tmp']);

/** Every README.md in the repository, relative to `root`, sorted. */
export function findReadmes(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!IGNORED_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(path.join(dir, entry.name));
      } else if (entry.isFile() && entry.name === 'README.md') {
        found.push(path.join(dir, entry.name).split(path.sep).join('/'));
      }
    }
  };
  walk('');
  return found.sort();
}

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*snippet:(.*?)-->\s*$/;
const MARKER_START = /<!--\s*snippet:/;

/**
 * The fenced code blocks of one README in `SNIPPET_LANGS`, each with the mode its marker asks
 * for. A marker is an HTML comment on the line right before the opening fence:
 * `<!-- snippet: typecheck-only <reason> -->` or `<!-- snippet: skip <reason> -->`.
 */
export function extractSnippets(
  readme: string,
  text: string,
): { snippets: Snippet[]; problems: SnippetProblem[] } {
  const lines = text.split(/\r?\n/);
  const snippets: Snippet[] = [];
  const problems: SnippetProblem[] = [];
  let pending: { mode: SnippetMode; reason: string; line: number } | undefined;

  for (let i = 0; i < lines.length; i++) {
    const current = lines[i] ?? '';
    const fence = FENCE.exec(current);
    if (!fence) {
      if (pending) {
        problems.push({
          readme,
          line: pending.line,
          message: 'a snippet marker must be right before a code fence',
        });
        pending = undefined;
      }
      const marker = MARKER.exec(current);
      if (marker) {
        const parsed = parseMarker(marker[1] ?? '');
        if ('problem' in parsed) problems.push({ readme, line: i + 1, message: parsed.problem });
        else pending = { ...parsed, line: i + 1 };
      } else if (MARKER_START.test(current)) {
        problems.push({
          readme,
          line: i + 1,
          message: 'a snippet marker must be one whole line: <!-- snippet: … -->',
        });
      }
      continue;
    }

    const indent = fence[1] ?? '';
    const open = fence[2] ?? '';
    const lang = (fence[3] ?? '').toLowerCase();
    const body: string[] = [];
    let closed = false;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      const close = /^( {0,3})(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[2]?.[0] === open[0] && (close[2]?.length ?? 0) >= open.length) {
        closed = true;
        break;
      }
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (!closed) problems.push({ readme, line: i + 1, message: 'a code fence is never closed' });

    if (SNIPPET_LANGS.has(lang)) {
      snippets.push({
        readme,
        line: i + 2,
        lang,
        code: `${body.join('\n')}\n`,
        mode: pending?.mode ?? 'run',
        ...(pending ? { reason: pending.reason } : {}),
      });
    } else if (pending) {
      problems.push({
        readme,
        line: pending.line,
        message: `a snippet marker applies to a ${[...SNIPPET_LANGS].join(' or ')} block only, not \`\`\`${lang}`,
      });
    }
    pending = undefined;
    i = j;
  }
  if (pending)
    problems.push({
      readme,
      line: pending.line,
      message: 'a snippet marker must be right before a code fence',
    });
  return { snippets, problems };
}

function parseMarker(content: string): { mode: SnippetMode; reason: string } | { problem: string } {
  const match = /^\s*(\S+)\s*(.*?)\s*$/.exec(content);
  const directive = match?.[1] ?? '';
  const reason = match?.[2] ?? '';
  const mode = directive === 'skip' ? 'skip' : directive === 'typecheck-only' ? 'typecheck' : undefined;
  if (!mode) {
    return {
      problem: `unknown snippet marker "${directive}": use "typecheck-only <reason>" or "skip <reason>"`,
    };
  }
  if (reason.length < 10)
    return { problem: `the "${directive}" marker needs a reason (at least 10 characters)` };
  return { mode, reason };
}

/** Every snippet of every README under `root`, with every problem found on the way. */
export function collectSnippets(root: string): { snippets: Snippet[]; problems: SnippetProblem[] } {
  const snippets: Snippet[] = [];
  const problems: SnippetProblem[] = [];
  for (const readme of findReadmes(root)) {
    const found = extractSnippets(readme, readFileSync(path.join(root, readme), 'utf8'));
    snippets.push(...found.snippets);
    problems.push(...found.problems);
  }
  return { snippets, problems };
}
