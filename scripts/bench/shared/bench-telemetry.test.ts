import { context, createContextKey } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import {
  inTracedContext,
  subjectObservers,
  subjectQueueOptions,
  withSubjectTelemetry,
} from './bench-telemetry';

const KEY = createContextKey('bench-telemetry-test');

/** The value under KEY after an await inside `context.with`: kept only where a context manager runs. */
async function carriedAcrossAwait(): Promise<unknown> {
  return context.with(context.active().setValue(KEY, 'carried'), async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return context.active().getValue(KEY);
  });
}

describe('the bench telemetry of --otel', () => {
  it('hands a subject nothing outside a scenario run under --otel', () => {
    expect(subjectQueueOptions()).toEqual({});
    expect(subjectObservers()).toBeUndefined();
  });

  it('hands the telemetry out while the scenario runs, and takes it back after', async () => {
    const result = await withSubjectTelemetry('wired', async () => {
      expect(subjectQueueOptions().telemetry).toBeDefined();
      expect(subjectObservers()?.telemetry).toBeDefined();
      return { ops: 1 };
    });
    expect(result).toEqual({ ops: 1 });
    expect(subjectQueueOptions()).toEqual({});
  });

  it('refuses a scenario whose subject never took the telemetry: raw numbers labelled traced', async () => {
    await expect(withSubjectTelemetry('miswired', async () => ({ ops: 1 }))).rejects.toThrow(
      /miswired: under --otel its subject never took the bench telemetry/,
    );
    expect(subjectQueueOptions()).toEqual({});
  });

  it('lets a skipped scenario through without the telemetry taken', async () => {
    await expect(withSubjectTelemetry('skipped', async () => ({ skipped: 'no server' }))).resolves.toEqual({
      skipped: 'no server',
    });
  });

  it('refuses a second scenario inside the first', async () => {
    await withSubjectTelemetry('outer', async () => {
      subjectQueueOptions();
      await expect(withSubjectTelemetry('inner', async () => 1)).rejects.toThrow(/already on/);
    });
  });

  it('runs a traced subject under the context manager, and nothing else', async () => {
    expect(await carriedAcrossAwait()).toBeUndefined();
    await withSubjectTelemetry('traced', async () => {
      subjectQueueOptions();
      expect(await inTracedContext(carriedAcrossAwait)).toBe('carried');
      // The manager is on only while the traced work runs: the baseline's rounds go without.
      expect(await carriedAcrossAwait()).toBeUndefined();
    });
  });
});
