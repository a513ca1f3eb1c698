import type { MeterProvider } from '@opentelemetry/api';
import { type Clock, systemClock } from '@queueport/core';
import { ATTR } from './attribute-names';
import { instrumentFactory } from './instrument-factory';
import { loadOtelApi, type ModuleLoader } from './load-api';
import { claimOutcomeOf, type ReportingWorker, type WorkerReport } from './worker-reports';

export interface WorkerInstrumentationOptions {
  /** Where metrics go; the globally registered provider by default. */
  meterProvider?: MeterProvider;
  /**
   * The delivery objective: an event delivered within this many milliseconds of its envelope's
   * `occurred_at` counts as met. Without it, no objective is measured.
   */
  objectiveMs?: number;
  /** The clock deliveries are timed by; the worker's, if it runs on another (tests: a VirtualClock). */
  clock?: Clock;
  /** Test hook: how `@opentelemetry/api` is loaded. */
  loadModule?: ModuleLoader;
}

/** Stops the instrumentation: it no longer listens to the worker, and its gauge reports nothing. */
export type StopInstrumentation = () => void;

/**
 * Per-destination delivery metrics from a delivery worker's `report` and `retry` events: each
 * attempt's outcome and duration, how long events took from `occurred_at` to delivery and the
 * share within the objective, the ledger's claim outcomes and webhook retries. The destination
 * is named by its configured id, never its URL. Inside a traced delivery (its Queue has an
 * `otelTelemetry`), the process span gets the destination, result and status too.
 */
export function instrumentWorker(
  worker: ReportingWorker,
  options: WorkerInstrumentationOptions = {},
): StopInstrumentation {
  const api = loadOtelApi(options.loadModule);
  if (!api) return () => {};
  const objectiveMs = options.objectiveMs;
  if (objectiveMs !== undefined && !(Number.isFinite(objectiveMs) && objectiveMs > 0)) {
    throw new RangeError(`objectiveMs must be a positive number of milliseconds; got ${String(objectiveMs)}`);
  }
  const clock = options.clock ?? systemClock;
  const instruments = instrumentFactory(api, options.meterProvider);
  const { counter, gauge, seconds } = instruments;
  const outcomes = counter(
    'queueport.delivery.outcomes',
    '{attempt}',
    "Webhook attempts by the receiver's answer: delivered, retry, disable, terminal.",
  );
  const attemptDuration = seconds('queueport.delivery.attempt.duration', 'Duration of one webhook attempt.');
  const latency = seconds(
    'queueport.delivery.latency',
    "Time from an event's occurred_at to its delivery.",
    [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400],
  );
  const objective = counter(
    'queueport.delivery.objective',
    '{event}',
    'Events delivered, by whether they were within the delivery objective.',
  );
  const share = gauge(
    'queueport.delivery.objective.share',
    '1',
    'Share of the events delivered since the worker started that were within the objective.',
  );
  const claims = counter(
    'queueport.ledger.claims',
    '{claim}',
    "The ledger's answers to the worker's claims: claimed, already-settled, busy, conflict.",
  );
  const retries = instruments.retries();
  const delivered = new Map<string, { within: number; total: number }>();
  const observeShare = (result: { observe(value: number, attributes: Record<string, string>): void }) => {
    for (const [destination, counts] of delivered) {
      result.observe(counts.within / counts.total, { [ATTR.destinationId]: destination });
    }
  };
  if (objectiveMs !== undefined) share.addCallback(observeShare);

  const onReport = (report: WorkerReport) => {
    const destination = report.destinationId ?? 'none';
    const claim = claimOutcomeOf(report);
    if (claim) claims.add(1, { [ATTR.claimOutcome]: claim });
    const { outcome } = report;
    if (outcome) {
      const attributes = {
        [ATTR.destinationId]: destination,
        [ATTR.deliveryOutcome]: outcome.kind,
        ...(outcome.status === undefined ? {} : { [ATTR.httpStatus]: outcome.status }),
      };
      outcomes.add(1, attributes);
      attemptDuration.record(outcome.attemptMs / 1000, attributes);
    }
    api.trace.getActiveSpan()?.setAttributes({
      [ATTR.deliveryResult]: report.result,
      ...(report.destinationId === undefined ? {} : { [ATTR.destinationId]: report.destinationId }),
      ...(outcome?.status === undefined ? {} : { [ATTR.httpStatus]: outcome.status }),
    });
    if (report.result !== 'delivered') return;
    const occurredAt = Date.parse(report.occurredAt);
    if (Number.isNaN(occurredAt)) return;
    const tookMs = Math.max(0, clock.now() - occurredAt);
    latency.record(tookMs / 1000, { [ATTR.destinationId]: destination });
    if (objectiveMs === undefined) return;
    const met = tookMs <= objectiveMs;
    objective.add(1, { [ATTR.destinationId]: destination, [ATTR.objectiveMet]: met });
    const counts = delivered.get(destination) ?? { within: 0, total: 0 };
    counts.total++;
    if (met) counts.within++;
    delivered.set(destination, counts);
  };
  const stops = [
    worker.on('report', onReport),
    worker.on('retry', () => retries.add(1, { [ATTR.retryKind]: 'webhook' })),
  ];
  return () => {
    for (const stop of stops) stop();
    share.removeCallback(observeShare);
  };
}
