/**
 * The fuzz runner's worker thread: loads the target modules, runs one target at a time when
 * asked, and counts every case in shared memory so the runner can tell a hang from slow work.
 * A case that blocks the event loop for good blocks only this thread; the runner terminates it.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { classifyOutcome, disposeTarget, isUntypedError, setOutcomeSink, unlabelled } from './context';
import {
  type CaseMessage,
  type LoadReport,
  PROGRESS,
  type ResultMessage,
  type RunRequest,
  type TargetInfo,
} from './protocol';
import type { FuzzTarget } from './targets/fuzz-target';

interface WorkerInput {
  dir: string;
  progress: SharedArrayBuffer;
}

const { dir, progress } = workerData as WorkerInput;
const counters = new Int32Array(progress);
const port = parentPort!;

const NOT_TARGET_FILE = /(\.test|\.d)\.ts$/;

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`;
  }
  return String(error);
}

function isTarget(value: unknown): value is FuzzTarget {
  const target = value as Partial<FuzzTarget> | null;
  return (
    target !== null &&
    typeof target === 'object' &&
    typeof target.name === 'string' &&
    target.name.length > 0 &&
    Number.isInteger(target.minCases) &&
    (target.minCases as number) >= 1 &&
    typeof target.property === 'function' &&
    (target.classify === undefined || typeof target.classify === 'function') &&
    (target.counts === undefined || typeof target.counts === 'function')
  );
}

async function load(): Promise<{ report: LoadReport; byName: Map<string, FuzzTarget> }> {
  const byName = new Map<string, FuzzTarget>();
  const report: LoadReport = { type: 'loaded', targets: [], errors: [] };
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.ts') && !NOT_TARGET_FILE.test(file))
    .sort();
  for (const file of files) {
    try {
      const module = (await import(pathToFileURL(path.join(dir, file)).href)) as { targets?: unknown };
      // Helpers and the interface module export no `targets`: they are not target files.
      if (!('targets' in module)) continue;
      if (!Array.isArray(module.targets)) throw new Error('`targets` must be an array of FuzzTarget');
      for (const [index, target] of module.targets.entries()) {
        if (!isTarget(target)) {
          throw new Error(
            `targets[${index}] is not a FuzzTarget (name, minCases ≥ 1, property, classify?, counts?)`,
          );
        }
        if (byName.has(target.name)) throw new Error(`two targets are named ${target.name}`);
        byName.set(target.name, target);
        const info: TargetInfo = { file, name: target.name, minCases: target.minCases };
        report.targets.push(info);
      }
    } catch (error) {
      report.errors.push({ file, message: describeError(error) });
    }
  }
  return { report, byName };
}

/**
 * Wraps a property so every run is counted (for the watchdog) and classified (for the report),
 * and so an untyped exception the target recorded fails the run even if its predicate passed.
 */
function instrument(
  inner: fc.IRawProperty<unknown>,
  classify: (outcome: unknown) => string,
  tally: Map<string, number>,
  captureCase: number | undefined,
): fc.IRawProperty<unknown> {
  let shrinking = false;
  let recorded = 0;
  let untyped: unknown;
  const count = (name: string) => tally.set(name, (tally.get(name) ?? 0) + 1);
  setOutcomeSink((outcome) => {
    if (shrinking) return;
    recorded++;
    if (untyped === undefined && isUntypedError(outcome)) untyped = unlabelled(outcome);
    count(safeClassify(classify, outcome));
  });
  const finish = (result: fc.PreconditionFailure | fc.PropertyFailure | null) => {
    Atomics.add(counters, PROGRESS.finished, 1);
    const final = result === null && untyped !== undefined ? { error: untyped } : result;
    if (!shrinking) {
      if (final === null) {
        if (recorded === 0) count('passed');
      } else if (fc.PreconditionFailure.isFailure(final)) count('skipped (precondition)');
      else {
        count('FAILED');
        shrinking = true;
      }
    }
    return final;
  };
  return {
    isAsync: () => inner.isAsync(),
    generate: (mrng: Parameters<typeof inner.generate>[0], runId?: number) => inner.generate(mrng, runId),
    shrink: (value: Parameters<typeof inner.shrink>[0]) => inner.shrink(value),
    runBeforeEach: () => inner.runBeforeEach(),
    runAfterEach: () => inner.runAfterEach(),
    run: (value: unknown) => {
      recorded = 0;
      untyped = undefined;
      const caseNumber = Atomics.add(counters, PROGRESS.started, 1) + 1;
      if (caseNumber === captureCase) {
        port.postMessage({ type: 'case', caseNumber, input: stringify(value) } satisfies CaseMessage);
      }
      const result = inner.run(value) as unknown;
      if (inner.isAsync()) {
        return (result as Promise<fc.PreconditionFailure | fc.PropertyFailure | null>).then(finish, (error) =>
          finish({ error }),
        );
      }
      return finish(result as fc.PreconditionFailure | fc.PropertyFailure | null);
    },
  } as unknown as fc.IRawProperty<unknown>;
}

function safeClassify(classify: (outcome: unknown) => string, outcome: unknown): string {
  try {
    return String(classify(outcome));
  } catch (error) {
    return `unclassifiable (${describeError(error)})`;
  }
}

/**
 * The classes counted here from recorded outcomes, and those a target counted itself (its
 * `counts()`, which then stands for the cases this side could only count as `passed`).
 */
function outcomesOf(target: FuzzTarget, tally: Map<string, number>): Record<string, number> {
  const merged = new Map(tally);
  let own: Readonly<Record<string, number>> | undefined;
  try {
    own = target.counts?.();
  } catch (error) {
    merged.set(`counts() failed (${describeError(error)})`, 1);
  }
  if (own) {
    merged.delete('passed');
    for (const [label, count] of Object.entries(own)) merged.set(label, (merged.get(label) ?? 0) + count);
  }
  return Object.fromEntries([...merged].sort(([, a], [, b]) => b - a));
}

function stringify(value: unknown): string {
  try {
    const text = fc.stringify(value);
    return text.length > 4_000 ? `${text.slice(0, 4_000)}… (${text.length} characters)` : text;
  } catch (error) {
    return `(could not print the counterexample: ${describeError(error)})`;
  }
}

async function run(target: FuzzTarget, request: RunRequest): Promise<ResultMessage['result']> {
  const tally = new Map<string, number>();
  const started = performance.now();
  const base = { name: target.name, seed: request.seed, casesRequested: request.numRuns };
  let details: fc.RunDetails<unknown>;
  try {
    const property = instrument(
      target.property(),
      target.classify ?? classifyOutcome,
      tally,
      request.captureCase,
    );
    details = await fc.check(property, {
      numRuns: request.numRuns,
      seed: request.seed,
      ...(request.path ? { path: request.path } : {}),
    });
  } catch (error) {
    return {
      ...base,
      status: 'failed',
      casesRun: Atomics.load(counters, PROGRESS.finished),
      shrinks: 0,
      outcomes: Object.fromEntries(tally),
      durationMs: performance.now() - started,
      failure: { kind: 'error', message: `the target could not run: ${describeError(error)}` },
    };
  } finally {
    setOutcomeSink(undefined);
  }
  const disposeErrors = await disposeTarget();
  const result: ResultMessage['result'] = {
    ...base,
    status: details.failed ? 'failed' : 'passed',
    casesRun: details.numRuns,
    shrinks: details.numShrinks,
    outcomes: outcomesOf(target, tally),
    durationMs: performance.now() - started,
  };
  if (details.failed) {
    const error = details.errorInstance;
    const violation = error instanceof Error && ['AssertionError', 'PropertyViolation'].includes(error.name);
    const untyped = isUntypedError(error) && !violation;
    result.failure = {
      kind: untyped ? 'untyped' : 'property',
      message:
        error instanceof Error
          ? `${describeError(error)}${error.stack ? `\n${error.stack.split('\n').slice(1, 6).join('\n')}` : ''}`
          : String(error ?? 'the property failed'),
      counterexample: stringify(details.counterexample),
      path: details.counterexamplePath,
    };
  } else if (disposeErrors.length > 0) {
    result.status = 'failed';
    result.failure = {
      kind: 'error',
      message: `cleanup failed: ${disposeErrors.map(describeError).join('; ')}`,
    };
  }
  return result;
}

const { report, byName } = await load();
port.postMessage(report);
port.on('message', async (request: RunRequest) => {
  const target = byName.get(request.name);
  if (!target) throw new Error(`no target named ${request.name}`);
  counters.fill(0);
  const result = await run(target, request);
  port.postMessage({ type: 'result', result } satisfies ResultMessage);
});
