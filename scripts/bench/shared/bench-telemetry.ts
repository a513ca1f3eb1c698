/**
 * `--otel`: the one place a scenario's subject gets its OpenTelemetry. Every subject that runs
 * the portable Queue builds it with `subjectQueueOptions()` (and a DeliveryWorker takes
 * `subjectObservers()`); without --otel both are empty and the subject runs exactly as before.
 * With it, the runner opens one SDK per scenario (`benchOtelSdk()`: the real SDK, exporters
 * that drop) around the scenario's rounds, what the subject builds records into it, and each
 * subject round runs under the SDK's context manager (`traced`), as a process with the SDK
 * does. Baselines never call these and run without the context manager, so they stay raw.
 */
import type { QueueOptions, Telemetry } from '@queueport/core';
import { instrumentWorker, otelTelemetry } from '@queueport/otel';
import type { PairScenario, Sample } from '../runner';
import { type BenchOtelSdk, benchOtelSdk } from './otel-sdk';
import type { PipelineObservers } from './pipeline';

/** The worker's delivery objective under --otel, as delivery-otel measures it. */
const OBJECTIVE_MS = 60_000;

interface Active {
  sdk: BenchOtelSdk;
  telemetry: Telemetry;
  observers: PipelineObservers;
  /** How often a subject took the telemetry: a scenario that says it does and never did is miswired. */
  taken: number;
}

let active: Active | undefined;

/** The Queue options of a subject: `{ telemetry }` while a scenario runs under --otel, else `{}`. */
export function subjectQueueOptions(): Pick<QueueOptions, 'telemetry'> {
  if (!active) return {};
  active.taken++;
  return { telemetry: active.telemetry };
}

/** The pipeline's observers for a subject under --otel (Queue telemetry and instrumentWorker), else none. */
export function subjectObservers(): PipelineObservers | undefined {
  if (!active) return undefined;
  active.taken++;
  return active.observers;
}

/**
 * Runs one scenario with the subject's telemetry on: a fresh SDK (so no scenario's metric
 * streams or pending spans spill into the next), shut down after. Throws if the scenario ran
 * and its subject never took the telemetry, which would label raw numbers as traced ones.
 */
export async function withSubjectTelemetry<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (active) throw new Error('subject telemetry is already on');
  const sdk = benchOtelSdk();
  const { meterProvider, tracerProvider } = sdk;
  const telemetry = otelTelemetry({ meterProvider, tracerProvider });
  const current: Active = {
    sdk,
    telemetry,
    observers: {
      telemetry,
      instrument: (worker) => instrumentWorker(worker, { meterProvider, objectiveMs: OBJECTIVE_MS }),
    },
    taken: 0,
  };
  active = current;
  let result: T;
  try {
    result = await run();
  } finally {
    active = undefined;
    await sdk.shutdown();
  }
  const skipped = typeof result === 'object' && result !== null && 'skipped' in result && result.skipped;
  if (current.taken === 0 && !skipped) {
    throw new Error(
      `${name}: under --otel its subject never took the bench telemetry (see bench-telemetry.ts)`,
    );
  }
  return result;
}

/** `work` under the active SDK's context manager (on only while it runs); as it is without --otel. */
export async function inTracedContext<T>(work: () => Promise<T>): Promise<T> {
  if (!active) return work();
  let out: { value: T } | undefined;
  await active.sdk.traced(async (): Promise<Sample> => {
    out = { value: await work() };
    return { ops: 0, ms: 0, cpuUs: 0 };
  })('');
  return out!.value;
}

/**
 * The pair with each subject round run in `inTracedContext`, the baseline's left alone. The
 * session is changed in place: a scenario may fill in its detail when it closes.
 */
export function tracingSubject(scenario: PairScenario): PairScenario {
  return {
    ...scenario,
    async open(config) {
      const session = await scenario.open(config);
      if ('skipped' in session) return session;
      const subject = session.subject;
      session.subject = (label) => inTracedContext(() => subject(label));
      return session;
    },
  };
}
