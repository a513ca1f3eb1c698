/**
 * `pnpm bench`: every scenario beside its baseline, in one process run.
 *
 *   pnpm build && node --expose-gc --import tsx scripts/bench/run.ts
 *     [--only name,name] [--rounds N] [--quick] [--json] [--report-only] [--otel]
 *
 * It measures the built packages (`dist/`, what users install), not the sources: run through
 * tsx, the sources pay for helpers the build leaves out (esbuild's keepNames wrapper on every
 * closure), which made the Queue look about a fifth more expensive than it is.
 *
 * Progress goes to stderr as each round runs; the table (or with --json the results) to
 * stdout. Always writes scripts/bench/results.json and BENCHMARKS.md; --report-only only
 * rewrites BENCHMARKS.md from an existing results.json.
 *
 * --otel: the same pairs with OpenTelemetry on in every subject that runs the portable Queue or
 * the DeliveryWorker (the Queue built with `otelTelemetry({ meterProvider, tracerProvider })`,
 * the worker under `instrumentWorker(…, { meterProvider, objectiveMs: 60_000 })`), recording into
 * the real SDK with exporters that drop (shared/otel-sdk.ts), one SDK per scenario, each subject
 * round under the SDK's context manager (`traced`); baselines stay raw, so a ratio is the traced
 * subject against the same raw baseline as without the flag.
 * Scenarios say what the flag does to them (`otel` on the scenario, wired through
 * shared/bench-telemetry.ts): those whose subject has no Queue (ledger-*, bullmq-driver-*) are
 * skipped, delivery-otel and queue-otel (which already compare telemetry on with off) run
 * unchanged. Writes scripts/bench/results-otel.json and BENCHMARKS-otel.md instead of the main
 * files; with --report-only it rewrites BENCHMARKS-otel.md from results-otel.json.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { benchmarksFile, renderTable, writeBenchmarksMd } from './report';
import {
  formatResults,
  loadavg,
  machineBefore,
  type Results,
  readResults,
  resultsFile,
  type ScenarioResult,
  writeResults,
} from './results';
import { type BenchConfig, progress, runPair, type Scenario, skippedResult } from './runner';
import { scenarios } from './scenarios';
import { inTracedContext, tracingSubject, withSubjectTelemetry } from './shared/bench-telemetry';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'report-only': { type: 'boolean', default: false },
    otel: { type: 'boolean', default: false },
  },
});

function selected(): typeof scenarios {
  if (!args.only) return scenarios;
  const names = args.only
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !scenarios.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`,
    );
  }
  return scenarios.filter((s) => names.includes(s.name));
}

/**
 * The backlog drain reads the heap after a forced GC. Rather than fail when started without
 * --expose-gc (a bare `node … run.ts`), run again with it, same flags and arguments.
 */
function respawnWithGc(): never {
  const child = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(child.status ?? 1);
}

const UNAFFECTED =
  'not run under --otel: its subject has no Queue and no DeliveryWorker, so OpenTelemetry changes nothing it measures (its numbers are those of BENCHMARKS.md)';

/** One scenario, as --otel has it run (see `otel` on the scenario): traced subject, unchanged, or skipped. */
async function runScenario(scenario: Scenario, config: BenchConfig): Promise<ScenarioResult> {
  const run = () => (scenario.kind === 'pair' ? runPair(scenario, config) : scenario.run(config));
  if (!config.otel) return run();
  switch (scenario.otel) {
    case 'subject':
      progress(`${scenario.name}: subject with OpenTelemetry on, baseline without`);
      return {
        ...(await withSubjectTelemetry(scenario.name, () =>
          scenario.kind === 'pair'
            ? runPair(tracingSubject(scenario), config)
            : inTracedContext(() => scenario.run(config)),
        )),
        otel: 'subject',
      };
    case 'built-in':
      progress(`${scenario.name}: compares OpenTelemetry on with off already; unchanged by --otel`);
      return { ...(await run()), otel: 'built-in' };
    default:
      progress(`${scenario.name}: skipped: ${UNAFFECTED}`);
      return { ...skippedResult(scenario, UNAFFECTED), otel: 'unaffected' };
  }
}

async function main(): Promise<void> {
  if (args['report-only']) {
    writeBenchmarksMd(readResults(args.otel));
    progress(`${benchmarksFile(args.otel)} rewritten from ${resultsFile(args.otel)}`);
    return;
  }
  const rounds = Number(args.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer`);
  const chosen = selected();
  if (
    chosen.some((s) => s.kind === 'measurement') &&
    typeof (globalThis as { gc?: unknown }).gc !== 'function'
  ) {
    respawnWithGc();
  }
  const config: BenchConfig = { rounds, quick: args.quick, otel: args.otel };
  const before = machineBefore();
  progress(
    `${before.cpus} cpus (${before.model}), node ${before.node}, load ${before.loadavgBefore}; ${rounds} rounds${config.quick ? ', quick' : ''}${config.otel ? '; subjects with OpenTelemetry on, baselines without' : ''}`,
  );
  const started = performance.now();
  const results: ScenarioResult[] = [];
  for (const scenario of chosen) {
    results.push(await runScenario(scenario, config));
  }
  const output: Results = {
    machine: { ...before, loadavgAfter: loadavg() },
    date: new Date().toISOString(),
    run: {
      rounds,
      quick: config.quick,
      only: args.only ? chosen.map((s) => s.name) : null,
      seconds: Math.round((performance.now() - started) / 1000),
      ...(config.otel ? { otel: true } : {}),
    },
    scenarios: results,
  };
  writeResults(output);
  writeBenchmarksMd(output);
  progress(`wrote ${resultsFile(config.otel)} and ${benchmarksFile(config.otel)}`);
  process.stdout.write(args.json ? formatResults(output) : `${renderTable(output)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
