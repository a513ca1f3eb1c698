/**
 * Renders results.json for people: the table printed after a run, and BENCHMARKS.md (from an
 * `--otel` run's results-otel.json, BENCHMARKS-otel.md). It reads nothing but the results, so
 * the page can be regenerated without running anything again.
 */
import { writeFileSync } from 'node:fs';
import { type Results, resultsFile, type ScenarioResult } from './results';
import { describeTarget, verdicts } from './targets';

/** The page a run writes; `--otel` has one of its own beside the main one. */
export function benchmarksFile(otel: boolean): string {
  return otel ? 'BENCHMARKS-otel.md' : 'BENCHMARKS.md';
}

const benchmarksPath = (otel: boolean): URL => new URL(`../../${benchmarksFile(otel)}`, import.meta.url);

const isOtelRun = (results: Results): boolean => results.run.otel === true;

/** What --otel did to a scenario, for the targets table of an --otel run. */
const OTEL_COLUMN: Record<NonNullable<ScenarioResult['otel']>, string> = {
  subject: 'on in the subject',
  'built-in': 'on vs off (unchanged)',
  unaffected: 'no Queue: not run',
};

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
    ...(r.otel ? ['subjects with OpenTelemetry on (--otel), baselines without'] : []),
  ];
  return `${results.date}: ${parts.join(', ')}${r.quick ? '. **Quick run (smoke-test sizes): not a measurement.**' : ''}`;
}

/**
 * Every target with its verdict, then, for each scenario that missed one, the cost that remains.
 * An --otel run adds what the flag did to each scenario.
 */
function targetSection(results: Results): string[] {
  const otel = isOtelRun(results);
  const rows = results.scenarios.flatMap((s) =>
    verdicts(s).map((v) => [
      s.name,
      ...(otel ? [s.otel ? OTEL_COLUMN[s.otel] : '–'] : []),
      describeTarget(v.target),
      v.value === null ? '–' : dec(v.value, 2),
      s.otel === 'unaffected'
        ? 'see BENCHMARKS.md'
        : v.met === null
          ? 'not measured'
          : v.met
            ? 'met'
            : '**not met**',
    ]),
  );
  if (rows.length === 0) return [];
  const missed = results.scenarios.filter((s) => verdicts(s).some((v) => v.met === false));
  return [
    table([['scenario', ...(otel ? ['OpenTelemetry'] : []), 'target', 'this run', 'verdict'], ...rows]),
    ...(missed.length > 0
      ? [
          otel
            ? 'Where a target is not met, the cost that remains without telemetry (delivery-otel and queue-otel measure what OpenTelemetry adds) and what would remove it:'
            : 'Where a target is not met, the cost that remains and what would remove it:',
          missed.map((s) => `- **${s.name}**: ${s.remains ?? 'not yet broken down.'}`).join('\n'),
        ]
      : []),
  ];
}

/**
 * One line per skipped scenario; an --otel run's scenarios without a Queue in their subject
 * share one line, since they were not run for the same reason.
 */
function skipNotes(results: Results): string[] {
  const skipped = results.scenarios.filter((s) => s.skipped);
  const unaffected = skipped.filter((s) => s.otel === 'unaffected');
  return [
    ...skipped.filter((s) => s.otel !== 'unaffected').map((s) => `${s.name} skipped: ${s.skipped}`),
    ...(unaffected.length > 0
      ? [
          `Not run under --otel, their subject having no Queue and no DeliveryWorker (OpenTelemetry changes nothing they measure; their numbers are those of BENCHMARKS.md): ${unaffected.map((s) => s.name).join(', ')}.`,
        ]
      : []),
  ];
}

/** What an --otel run's page and table say first. */
function otelNotice(results: Results): string[] {
  if (!isOtelRun(results)) return [];
  return [
    "**Subjects ran with OpenTelemetry on, baselines without.** Every subject that runs the portable Queue or the DeliveryWorker recorded into OpenTelemetry's SDK: the Queue built with `otelTelemetry({ meterProvider, tracerProvider })` (a producer span per publish call, receive and process spans, the messaging counters and histograms), the worker under `instrumentWorker(worker, { meterProvider, objectiveMs: 60_000 })`; spans go through the batch span processor to an exporter that drops them, and metrics aggregate for a reader that never collects, and each subject round runs under the SDK's AsyncLocalStorage context manager (scripts/bench/shared/otel-sdk.ts): the price of making every span and metric, not of shipping them. Publishes also carry their trace context (the reserved `queueport.trace` attribute), bytes the raw side does not send. Baselines are the raw ones of BENCHMARKS.md, untouched, so each ratio is the traced subject against the same baseline, held to the same target. delivery-otel and queue-otel already compare telemetry on with off and run unchanged; scenarios whose subject has no Queue are not run.",
  ];
}

function tables(results: Results): string[] {
  // Scenarios --otel did not run are named once, in the skip notes.
  const shown = results.scenarios.filter((s) => s.otel !== 'unaffected');
  const pairs = shown.filter((s) => !isDrain(s));
  const drains = shown.filter(isDrain);
  return [
    ...(pairs.length > 0 ? [table(pairTable(pairs))] : []),
    ...(drains.length > 0 ? [table(drainTable(drains))] : []),
  ];
}

/** What a terminal gets after a run. */
export function renderTable(results: Results): string {
  return [
    ...otelNotice(results),
    ...tables(results),
    ...skipNotes(results),
    ...targetSection(results),
    machineLine(results),
    runLine(results),
  ].join('\n\n');
}

/** Under --otel, what the flag did to the scenario, beside its subject. */
function otelAbout(s: ScenarioResult): string {
  if (s.otel === 'subject') return '\n  - OpenTelemetry: on in the subject, off in the baseline';
  if (s.otel === 'built-in')
    return '\n  - OpenTelemetry: compared on with off by the scenario itself, unchanged by --otel';
  return '';
}

export function renderMarkdown(results: Results): string {
  const otel = isOtelRun(results);
  const targets = targetSection(results);
  const about = results.scenarios
    .filter((s) => s.otel !== 'unaffected')
    .map(
      (s) =>
        `- **${s.name}**: ${s.description}\n  - subject: ${s.subject}${otelAbout(s)}\n  - baseline: ${s.baseline}${s.detail ? `\n  - ${s.detail}` : ''}${s.skipped ? `\n  - **skipped**: ${s.skipped}` : ''}`,
    );
  return `${[
    otel ? '# Benchmarks with OpenTelemetry on' : '# Benchmarks',
    `<!-- Generated by \`pnpm bench${otel ? ' --otel' : ''}\` from ${resultsFile(otel)}; edits here are overwritten. -->`,
    ...otelNotice(results),
    "Every scenario runs beside its baseline in the same process run: a warm-up round that is not counted, then rounds in which the two sides take turns going first (subject first, then baseline first, …) so drift hits both alike. **ratio** is the median of the per-round ratios subject ops/s ÷ baseline ops/s (higher is better for the subject; the range is the lowest and highest round), ops/s are medians over the rounds, and CPU µs/op is the process's CPU time (user + system, in-process receiver and database client included) over the side's operations. `pnpm bench` builds first and measures the built packages (`dist/`), as users run them.",
    [
      '```sh',
      'pnpm bench                          # every scenario, 5 rounds + warm-up (about 4 minutes on 2 cores)',
      'pnpm bench --only ledger-sqlite,queue-vs-driver',
      'pnpm bench --rounds 9               # more rounds, tighter medians',
      'pnpm bench --quick                  # small sizes: a smoke test, not a measurement',
      'pnpm bench --json                   # the results as JSON on stdout instead of the table',
      'pnpm bench --report-only            # rewrite BENCHMARKS.md from scripts/bench/results.json',
      'pnpm bench --otel                   # subjects with OpenTelemetry on: results-otel.json, BENCHMARKS-otel.md',
      '```',
    ].join('\n'),
    "`--otel` asks whether the targets still hold with telemetry on: every subject that runs the portable Queue or the DeliveryWorker records into OpenTelemetry's SDK (`otelTelemetry` on the Queue, `instrumentWorker` on the worker; the batch span processor and exporters that drop, so no network) while the baselines stay raw, and the targets are the same. Scenarios without a Queue in their subject (ledger-*, bullmq-driver-*) are not run, delivery-otel and queue-otel run unchanged, and the run writes scripts/bench/results-otel.json and BENCHMARKS-otel.md, never these; it combines with --only, --rounds, --quick and --report-only.",
    'PostgreSQL: `QUEUEPORT_POSTGRES_URL`, else `postgres://postgres@127.0.0.1:5432/test`; without a reachable server `ledger-postgres` is skipped. Numbers from a shared or busy machine (see the load average) move by tens of percent between runs: compare ratios from one run, not ops/s across machines.',
    '## Scenarios',
    about.join('\n'),
    '## Results',
    ...tables(results),
    ...skipNotes(results),
    ...(targets.length > 0 ? ['## Targets', ...targets] : []),
    `Machine: ${machineLine(results)}.`,
    `Run: ${runLine(results)}`,
  ].join('\n\n')}\n`;
}

export function writeBenchmarksMd(results: Results): void {
  writeFileSync(benchmarksPath(isOtelRun(results)), renderMarkdown(results));
}
