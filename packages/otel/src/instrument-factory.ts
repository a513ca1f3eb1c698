import type { Counter, Histogram, Meter, MeterProvider, ObservableGauge } from '@opentelemetry/api';
import type { OtelApi } from './load-api';
import { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from './scope';

/** Buckets for durations in seconds: 5 ms to 10 s, as the messaging conventions advise. */
export const DURATION_BUCKETS_SECONDS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/** The instruments of this package's meter, each declared by its name, unit and description. */
export interface InstrumentFactory {
  /** For what is not one instrument: a callback that observes several at once. */
  meter: Meter;
  counter(name: string, unit: string, description: string): Counter;
  gauge(name: string, unit: string, description: string): ObservableGauge;
  /** A duration histogram, in seconds as the messaging conventions ask. */
  seconds(name: string, description: string, boundaries?: number[]): Histogram;
  /**
   * Retries of every kind. The Queue's telemetry and the worker's instrumentation both add to it,
   * so it is declared here once: the SDK reports two registrations of a name that differ.
   */
  retries(): Counter;
}

/** Instruments on this package's meter of `provider`, the globally registered one by default. */
export function instrumentFactory(api: OtelApi, provider?: MeterProvider): InstrumentFactory {
  const meter: Meter = (provider ?? api.metrics.getMeterProvider()).getMeter(
    INSTRUMENTATION_SCOPE,
    INSTRUMENTATION_VERSION,
  );
  const counter = (name: string, unit: string, description: string) =>
    meter.createCounter(name, { description, unit });
  return {
    meter,
    counter,
    gauge: (name, unit, description) => meter.createObservableGauge(name, { description, unit }),
    seconds: (name, description, boundaries = DURATION_BUCKETS_SECONDS) =>
      meter.createHistogram(name, {
        description,
        unit: 's',
        advice: { explicitBucketBoundaries: boundaries },
      }),
    retries: () =>
      counter(
        'queueport.retries',
        '{retry}',
        'Retries: of provider calls, of redeliveries after a handler failed, of webhook attempts.',
      ),
  };
}
