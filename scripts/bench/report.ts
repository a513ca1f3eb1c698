/**
 * Renders results.json for people: the table printed after a run, and BENCHMARKS.md. It reads
 * nothing but the results, so the page can be regenerated without running anything again.
 */
import { writeFileSync } from 'node:fs';
import type { Results, ScenarioResult } from './results';
import { describeTarget, verdicts } from './targets';

export const BENCHMARKS_PATH = new URL('../../BENCHMARKS.md', import.meta.url);

const int = (n: number | null | undefined): string =>
  n == null ? '–' : Math.round(n).toLocaleString('en-US');
const dec = (n: number | null | undefined, digits: number): string => (n == null ? '–' : n.toFixed(digits));

function isDrain(s: ScenarioResult): boolean {
  return s.heapRatio !== undefined;
}

function pairTable(scenarios: readonly ScenarioResult[]): string[][] {
  return [
    [
      'scenario',
      'subject ops/s',
      'baseline ops/s',
      'ratio (median)',
      'ratio range',
      'subject CPU µs/op',
      'baseline CPU µs/op',
    ],
    ...scenarios.map((s) =>
      s.skipped
        ? [s.name, 'skipped', '–', '–', '–', '–', '–']
        : [
            s.name,
            int(s.subjectPerSec),
            int(s.baselinePerSec),
            dec(s.ratio, 2),
            s.range ? `${dec(s.range[0], 2)}–${dec(s.range[1], 2)}` : '–',
            dec(s.subjectCpuUsPerOp, 1),
            dec(s.baselineCpuUsPerOp, 1),
          ],
    ),
  ];
}

function drainTable(scenarios: readonly ScenarioResult[]): string[][] {
  return [
    [
      'scenario',
      'messages',
      'drained/s',
      'CPU µs/msg',
      'heap before MB',
      'after drain MB',
      'after window MB',
      'after/before',
      'lag p99 ms',
      'lag max ms',
      '10 ms timer fired',
    ],
    ...scenarios.map((s) => [
      s.name,
      int(s.messages),
      int(s.subjectPerSec),
      dec(s.subjectCpuUsPerOp, 1),
      dec(s.heapBeforeMb, 1),
      dec(s.heapAfterDrainMb, 1),
      dec(s.heapAfterWindowMb, 1),
      dec(s.heapRatio, 2),
      dec(s.lagP99Ms, 1),
      dec(s.lagMaxMs, 1),
      `${int(s.timerFires)} of ${int(s.timerFiresExpected)}`,
    ]),
  ];
}

/** A Markdown table, padded so it also reads as plain text in a terminal. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (c === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

function machineLine(results: Results): string {
  const m = results.machine;
  return `${m.cpus} cpus (${m.model}), Node ${m.node}, ${m.platform}; load average (1 min) ${m.loadavgBefore} before, ${m.loadavgAfter} after`;
}

function runLine(results: Results): string {
  const r = results.run;
  const parts = [
    `${r.rounds} rounds after a warm-up round`,
    `${Math.round(r.seconds)} s in all`,
    ...(r.only ? [`only ${r.only.join(', ')}`] : []),
  ];
  return `${results.date}: ${parts.join(', ')}${r.quick ? '. **Quick run (smoke-test sizes): not a measurement.**' : ''}`;
}

/** Every target with its verdict, then, for each scenario that missed one, the cost that remains. */
function targetSection(results: Results): string[] {
  const rows = results.scenarios.flatMap((s) =>
    verdicts(s).map((v) => [
      s.name,
      describeTarget(v.target),
      v.value === null ? '–' : dec(v.value, 2),
      v.met === null ? 'not measured' : v.met ? 'met' : '**not met**',
    ]),
  );
  if (rows.length === 0) return [];
  const missed = results.scenarios.filter((s) => verdicts(s).some((v) => v.met === false));
  return [
    table([['scenario', 'target', 'this run', 'verdict'], ...rows]),
    ...(missed.length > 0
      ? [
          'Where a target is not met, the cost that remains and what would remove it:',
          missed.map((s) => `- **${s.name}**: ${s.remains ?? 'not yet broken down.'}`).join('\n'),
        ]
      : []),
  ];
}

function tables(results: Results): string[] {
  const pairs = results.scenarios.filter((s) => !isDrain(s));
  const drains = results.scenarios.filter(isDrain);
  return [
    ...(pairs.length > 0 ? [table(pairTable(pairs))] : []),
    ...(drains.length > 0 ? [table(drainTable(drains))] : []),
  ];
}

/** What a terminal gets after a run. */
export function renderTable(results: Results): string {
  const notes = results.scenarios.filter((s) => s.skipped).map((s) => `${s.name} skipped: ${s.skipped}`);
  return [
    ...tables(results),
    ...notes,
    ...targetSection(results),
    machineLine(results),
    runLine(results),
  ].join('\n\n');
}

export function renderMarkdown(results: Results): string {
  const targets = targetSection(results);
  const about = results.scenarios.map(
    (s) =>
      `- **${s.name}**: ${s.description}\n  - subject: ${s.subject}\n  - baseline: ${s.baseline}${s.detail ? `\n  - ${s.detail}` : ''}${s.skipped ? `\n  - **skipped**: ${s.skipped}` : ''}`,
  );
  return `${[
    '# Benchmarks',
    '<!-- Generated by `pnpm bench` from scripts/bench/results.json; edits here are overwritten. -->',
    "Every scenario runs beside its baseline in the same process run: a warm-up round that is not counted, then rounds in which the two sides take turns going first (subject first, then baseline first, …) so drift hits both alike. **ratio** is the median of the per-round ratios subject ops/s ÷ baseline ops/s (higher is better for the subject; the range is the lowest and highest round), ops/s are medians over the rounds, and CPU µs/op is the process's CPU time (user + system, in-process receiver and database client included) over the side's operations. `pnpm bench` builds first and measures the built packages (`dist/`), as users run them.",
    [
      '```sh',
      'pnpm bench                          # every scenario, 5 rounds + warm-up (about 4 minutes on 2 cores)',
      'pnpm bench --only ledger-sqlite,queue-vs-driver',
      'pnpm bench --rounds 9               # more rounds, tighter medians',
      'pnpm bench --quick                  # small sizes: a smoke test, not a measurement',
      'pnpm bench --json                   # the results as JSON on stdout instead of the table',
      'pnpm bench --report-only            # rewrite this page from scripts/bench/results.json',
      '```',
    ].join('\n'),
    'PostgreSQL: `QUEUEPORT_POSTGRES_URL`, else `postgres://postgres@127.0.0.1:5432/test`; without a reachable server `ledger-postgres` is skipped. Numbers from a shared or busy machine (see the load average) move by tens of percent between runs: compare ratios from one run, not ops/s across machines.',
    '## Scenarios',
    about.join('\n'),
    '## Results',
    ...tables(results),
    ...results.scenarios.filter((s) => s.skipped).map((s) => `${s.name} skipped: ${s.skipped}`),
    ...(targets.length > 0 ? ['## Targets', ...targets] : []),
    `Machine: ${machineLine(results)}.`,
    `Run: ${runLine(results)}`,
  ].join('\n\n')}\n`;
}

export function writeBenchmarksMd(results: Results): void {
  writeFileSync(BENCHMARKS_PATH, renderMarkdown(results));
}
