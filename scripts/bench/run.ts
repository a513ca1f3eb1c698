/**
 * `pnpm bench`: every scenario beside its baseline, in one process run.
 *
 *   pnpm build && node --expose-gc --import tsx scripts/bench/run.ts
 *     [--only name,name] [--rounds N] [--quick] [--json] [--report-only]
 *
 * It measures the built packages (`dist/`, what users install), not the sources: run through
 * tsx, the sources pay for helpers the build leaves out (esbuild's keepNames wrapper on every
 * closure), which made the Queue look about a fifth more expensive than it is.
 *
 * Progress goes to stderr as each round runs; the table (or with --json the results) to
 * stdout. Always writes scripts/bench/results.json and BENCHMARKS.md; --report-only only
 * rewrites BENCHMARKS.md from an existing results.json.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { renderTable, writeBenchmarksMd } from './report';
import {
  formatResults,
  loadavg,
  machineBefore,
  type Results,
  readResults,
  type ScenarioResult,
  writeResults,
} from './results';
import { type BenchConfig, progress, runPair } from './runner';
import { scenarios } from './scenarios';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'report-only': { type: 'boolean', default: false },
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

async function main(): Promise<void> {
  if (args['report-only']) {
    writeBenchmarksMd(readResults());
    progress('BENCHMARKS.md rewritten from scripts/bench/results.json');
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
  const config: BenchConfig = { rounds, quick: args.quick };
  const before = machineBefore();
  progress(
    `${before.cpus} cpus (${before.model}), node ${before.node}, load ${before.loadavgBefore}; ${rounds} rounds${config.quick ? ', quick' : ''}`,
  );
  const started = performance.now();
  const results: ScenarioResult[] = [];
  for (const scenario of chosen) {
    results.push(scenario.kind === 'pair' ? await runPair(scenario, config) : await scenario.run(config));
  }
  const output: Results = {
    machine: { ...before, loadavgAfter: loadavg() },
    date: new Date().toISOString(),
    run: {
      rounds,
      quick: config.quick,
      only: args.only ? chosen.map((s) => s.name) : null,
      seconds: Math.round((performance.now() - started) / 1000),
    },
    scenarios: results,
  };
  writeResults(output);
  writeBenchmarksMd(output);
  progress('wrote scripts/bench/results.json and BENCHMARKS.md');
  process.stdout.write(args.json ? formatResults(output) : `${renderTable(output)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
