/**
 * The fuzz runner: every `targets: FuzzTarget[]` exported by scripts/fuzz/targets/*.ts, each for
 * at least its `minCases`, in a worker thread watched from here, so a case that hangs (even one
 * that blocks the event loop for good) is reported as a failure instead of hanging the run.
 *
 *   pnpm fuzz [--scale N] [--only name[,name]] [--seed N] [--json] [--cases N] [--timeout ms]
 *             [--dir path] [--path p (with one --only: replay a counterexample)]
 *
 * Exits 1 when any target failed (a property failure, an untyped exception, a crash, a hang) or
 * a target file could not be loaded; 2 on a usage error.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import {
  type CaseMessage,
  type LoadReport,
  PROGRESS,
  PROGRESS_SLOTS,
  type ResultMessage,
  type RunRequest,
  type TargetInfo,
  type TargetResult,
} from './protocol';

const here = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_TIMEOUT_MS = 10_000;
/** Loading the target modules (TypeScript through tsx, native SQLite) may take a while. */
const LOAD_TIMEOUT_MS = 120_000;

interface Options {
  scale: number;
  only: string[] | undefined;
  seed: number;
  json: boolean;
  cases: number | undefined;
  timeoutMs: number;
  dir: string;
  path: string | undefined;
}

class UsageError extends Error {}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string' },
      only: { type: 'string', multiple: true },
      seed: { type: 'string' },
      json: { type: 'boolean', default: false },
      cases: { type: 'string' },
      timeout: { type: 'string' },
      dir: { type: 'string' },
      path: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const number = (name: string, text: string | undefined, check: (n: number) => boolean) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (text.trim() === '' || !check(n)) throw new UsageError(`--${name} ${text} is not valid`);
    return n;
  };
  const only = values.only?.flatMap((item) => item.split(',')).filter(Boolean);
  const options: Options = {
    scale: number('scale', values.scale, (n) => Number.isFinite(n) && n > 0) ?? 1,
    only: only && only.length > 0 ? only : undefined,
    seed: number('seed', values.seed, Number.isSafeInteger) ?? (Math.random() * 2 ** 31) | 0,
    json: values.json ?? false,
    cases: number('cases', values.cases, (n) => Number.isSafeInteger(n) && n >= 1),
    timeoutMs: number('timeout', values.timeout, (n) => Number.isFinite(n) && n > 0) ?? DEFAULT_TIMEOUT_MS,
    dir: path.resolve(values.dir ?? path.join(here, 'targets')),
    path: values.path,
  };
  if (options.path !== undefined && options.only?.length !== 1) {
    throw new UsageError('--path replays one counterexample: give exactly one --only target');
  }
  return options;
}

// The worker's entry: TypeScript through tsx (a worker does not inherit `--import tsx` for its
// own entry on Node 20), then worker.ts. `--conditions=@queueport/source` is inherited from this
// process.
const BOOT = `
import('tsx/esm/api')
  .then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(path.join(here, 'worker.ts')).href)}); })
  .catch((error) => { setImmediate(() => { throw error; }); });
`;

type WorkerEvent =
  | { kind: 'message'; message: LoadReport | ResultMessage | CaseMessage }
  | { kind: 'error'; error: Error }
  | { kind: 'exit'; code: number };

/** One worker thread and the events it produced, awaited one at a time. */
class TargetWorker {
  readonly worker: Worker;
  readonly counters: Int32Array;
  readonly #events: WorkerEvent[] = [];
  #wake: (() => void) | undefined;
  #exited = false;

  constructor(dir: string) {
    const progress = new SharedArrayBuffer(PROGRESS_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    this.counters = new Int32Array(progress);
    this.worker = new Worker(BOOT, {
      eval: true,
      workerData: { dir, progress },
      // A target that runs out of memory crashes its worker, not the runner.
      resourceLimits: { maxOldGenerationSizeMb: 4096 },
      // What targets print goes to stderr, so `--json` output stays JSON.
      stdout: true,
      stderr: true,
    });
    this.worker.stdout.pipe(process.stderr);
    this.worker.stderr.pipe(process.stderr);
    this.worker.on('message', (message) => this.#push({ kind: 'message', message }));
    this.worker.on('error', (error) => this.#push({ kind: 'error', error }));
    this.worker.on('exit', (code) => {
      this.#exited = true;
      this.#push({ kind: 'exit', code });
    });
  }

  get exited(): boolean {
    return this.#exited;
  }

  #push(event: WorkerEvent): void {
    this.#events.push(event);
    this.#wake?.();
  }

  /** The next event, or undefined when `stillAlive` (polled every 50 ms) says to give up. */
  async next(stillAlive: () => boolean): Promise<WorkerEvent | undefined> {
    for (;;) {
      const event = this.#events.shift();
      if (event) return event;
      if (!stillAlive()) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  async stop(): Promise<void> {
    if (!this.#exited) await this.worker.terminate();
  }
}

function describe(error: Error): string {
  return `${error.name}: ${error.message}`;
}

function reproduceCommand(name: string, seed: number, options: Options, extra = ''): string {
  const dir =
    path.resolve(here, 'targets') === options.dir
      ? ''
      : ` --dir ${path.relative(process.cwd(), options.dir)}`;
  return `pnpm fuzz --only ${name} --seed ${seed}${options.cases ? ` --cases ${options.cases}` : ''}${
    options.scale !== 1 ? ` --scale ${options.scale}` : ''
  }${dir}${extra}`;
}

interface Report {
  seed: number;
  scale: number;
  timeoutMs: number;
  ok: boolean;
  durationMs: number;
  targets: TargetResult[];
  loadErrors: Array<{ file: string; message: string }>;
}

async function startWorker(options: Options): Promise<{ worker: TargetWorker; report: LoadReport }> {
  const worker = new TargetWorker(options.dir);
  const deadline = Date.now() + LOAD_TIMEOUT_MS;
  const event = await worker.next(() => Date.now() < deadline);
  if (event?.kind === 'message' && event.message.type === 'loaded') return { worker, report: event.message };
  await worker.stop();
  const why =
    event === undefined
      ? `loading the targets took longer than ${LOAD_TIMEOUT_MS} ms`
      : event.kind === 'error'
        ? describe(event.error)
        : event.kind === 'exit'
          ? `the worker exited with code ${event.code}`
          : 'unexpected message';
  throw new Error(`could not load the fuzz targets in ${options.dir}: ${why}`);
}

async function runTarget(
  worker: TargetWorker,
  info: TargetInfo,
  options: Options,
): Promise<{ result: TargetResult; workerUsable: boolean }> {
  const numRuns = options.cases ?? Math.max(1, Math.ceil(info.minCases * options.scale));
  const request: RunRequest = {
    type: 'run',
    name: info.name,
    numRuns,
    seed: options.seed,
    ...(options.path ? { path: options.path } : {}),
  };
  const started = performance.now();
  const base = {
    name: info.name,
    file: info.file,
    minCases: info.minCases,
    casesRequested: numRuns,
    seed: options.seed,
    reproduce: reproduceCommand(info.name, options.seed, options),
  };
  // The watchdog: a case is in flight when more runs started than finished; if neither count
  // moves for the per-case timeout, the case hangs.
  let lastProgress = performance.now();
  let seen = -1;
  let hung = false;
  const stillAlive = () => {
    const startedRuns = Atomics.load(worker.counters, PROGRESS.started);
    const finishedRuns = Atomics.load(worker.counters, PROGRESS.finished);
    const progress = startedRuns * 2 ** 20 + finishedRuns;
    const now = performance.now();
    if (progress !== seen) {
      seen = progress;
      lastProgress = now;
    }
    hung = now - lastProgress > options.timeoutMs;
    return !hung;
  };
  worker.worker.postMessage(request);
  let event = await worker.next(stillAlive);
  while (event?.kind === 'message' && event.message.type === 'case') event = await worker.next(stillAlive);
  const durationMs = performance.now() - started;
  const finished = Atomics.load(worker.counters, PROGRESS.finished);
  if (event?.kind === 'message' && event.message.type === 'result') {
    return { result: { ...base, ...event.message.result, ...pick(base) }, workerUsable: true };
  }
  const caseNumber = Atomics.load(worker.counters, PROGRESS.started);
  const common = { ...base, casesRun: finished, shrinks: 0, outcomes: {}, durationMs };
  if (event === undefined && hung) {
    await worker.stop();
    const input = await captureInput(info, options, caseNumber);
    return {
      result: {
        ...common,
        status: 'hang',
        failure: {
          kind: 'hang',
          caseNumber,
          message: `case ${caseNumber} did not finish within ${options.timeoutMs} ms (the worker was terminated)`,
          ...(input === undefined ? {} : { input }),
        },
      },
      workerUsable: false,
    };
  }
  const message =
    event?.kind === 'error'
      ? describe(event.error)
      : event?.kind === 'exit'
        ? `the worker exited with code ${event.code}`
        : 'the worker stopped answering';
  return {
    result: {
      ...common,
      status: 'crash',
      failure: { kind: 'crash', caseNumber, message: `crashed during case ${caseNumber}: ${message}` },
    },
    workerUsable: false,
  };
}

/**
 * The input of case `caseNumber`: the target runs again in a fresh worker with the same seed,
 * up to that case, which is printed before it runs (and then hangs again, or not).
 */
async function captureInput(
  info: TargetInfo,
  options: Options,
  caseNumber: number,
): Promise<string | undefined> {
  let worker: TargetWorker | undefined;
  try {
    ({ worker } = await startWorker(options));
    const request: RunRequest = {
      type: 'run',
      name: info.name,
      numRuns: caseNumber,
      seed: options.seed,
      captureCase: caseNumber,
    };
    worker.worker.postMessage(request);
    const deadline = performance.now() + options.timeoutMs * 2;
    for (;;) {
      const event = await worker.next(() => performance.now() < deadline);
      if (event === undefined || event.kind !== 'message') return undefined;
      if (event.message.type === 'case') return event.message.input;
      if (event.message.type === 'result') return undefined;
    }
  } catch {
    return undefined;
  } finally {
    await worker?.stop();
  }
}

function pick(base: { file: string; minCases: number; reproduce: string }) {
  return { file: base.file, minCases: base.minCases, reproduce: base.reproduce };
}

async function main(options: Options): Promise<Report> {
  const started = performance.now();
  let { worker, report } = await startWorker(options);
  const known = new Set(report.targets.map((target) => target.name));
  const unknown = (options.only ?? []).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    await worker.stop();
    throw new UsageError(
      `no fuzz target named ${unknown.join(', ')}; known: ${[...known].join(', ') || 'none'}`,
    );
  }
  const plan = report.targets.filter((target) => !options.only || options.only.includes(target.name));
  const results: TargetResult[] = [];
  for (const [index, info] of plan.entries()) {
    if (!options.json) process.stderr.write(`fuzz: ${info.name} …\n`);
    const { result, workerUsable } = await runTarget(worker, info, options);
    results.push(result);
    if (!options.json) process.stdout.write(`${formatLine(result)}\n`);
    if (!workerUsable) {
      await worker.stop();
      if (index < plan.length - 1) ({ worker, report } = await startWorker(options));
    }
  }
  await worker.stop();
  const loadErrors = report.errors;
  return {
    seed: options.seed,
    scale: options.scale,
    timeoutMs: options.timeoutMs,
    ok: plan.length > 0 && loadErrors.length === 0 && results.every((result) => result.status === 'passed'),
    durationMs: performance.now() - started,
    targets: results,
    loadErrors,
  };
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}

function formatLine(result: TargetResult): string {
  const status = result.status === 'passed' ? 'PASS' : result.status.toUpperCase();
  const outcomes = Object.entries(result.outcomes)
    .map(([name, count]) => `${name} ${count}`)
    .join(' · ');
  return `${status.padEnd(6)} ${result.name.padEnd(28)} ${String(result.casesRun).padStart(6)} cases  ${seconds(result.durationMs).padStart(8)}  ${outcomes}`;
}

function formatReport(report: Report): string {
  const lines: string[] = [];
  const failed = report.targets.filter((result) => result.status !== 'passed');
  for (const result of failed) {
    lines.push('', `${result.status.toUpperCase()}: ${result.name} (${result.file})`);
    const failure = result.failure;
    if (failure) {
      lines.push(`  ${failure.kind}: ${failure.message.split('\n').join('\n    ')}`);
      if (failure.counterexample) lines.push(`  counterexample: ${failure.counterexample}`);
      if (failure.input) lines.push(`  input of case ${failure.caseNumber}: ${failure.input}`);
      if (failure.path) lines.push(`  replay: ${result.reproduce} --path ${failure.path}`);
    }
    lines.push(`  reproduce: ${result.reproduce}`);
  }
  for (const error of report.loadErrors) lines.push('', `LOAD ERROR: ${error.file}: ${error.message}`);
  const cases = report.targets.reduce((sum, result) => sum + result.casesRun, 0);
  lines.push(
    '',
    `${report.targets.length} targets, ${cases} cases, ${report.targets.length - failed.length} passed, ${failed.length} failed` +
      `${report.loadErrors.length ? `, ${report.loadErrors.length} files not loaded` : ''} in ${seconds(report.durationMs)}` +
      ` (seed ${report.seed}, scale ${report.scale}, ${report.timeoutMs} ms per case)`,
  );
  return lines.join('\n');
}

let options: Options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`fuzz: ${(error as Error).message}\n`);
  process.exit(2);
}
try {
  if (!options.json) {
    process.stdout.write(
      `queueport fuzz: seed ${options.seed}, scale ${options.scale}, ${options.timeoutMs} ms per case\n`,
    );
  }
  const report = await main(options);
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  process.exit(report.ok ? 0 : 1);
} catch (error) {
  process.stderr.write(`fuzz: ${(error as Error).message}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
}
