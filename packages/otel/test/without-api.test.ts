import { readFileSync } from 'node:fs';
import { Queue } from '@queueport/core';
import { MemoryDriver } from '@queueport/memory';
import { describe, expect, it } from 'vitest';
import { INSTRUMENTATION_VERSION, instrumentWorker, observeQueueStats, otelTelemetry } from '../src';

/** A loader that finds nothing, as where `@opentelemetry/api` is not installed. */
const notInstalled = (name: string): never => {
  const error = new Error(`Cannot find module '${name}'`) as Error & { code: string };
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};

describe('without @opentelemetry/api', () => {
  it('is a no-op: the queue gets no telemetry and carries no trace attribute', async () => {
    const telemetry = otelTelemetry({ loadModule: notInstalled });
    const driver = new MemoryDriver();
    const queue = new Queue(driver, { telemetry });
    await queue.publish({ envelope: { event_id: 'e1', type: 't', payload: {} } });
    const [raw] = await driver.receive({ maxMessages: 1, leaseSeconds: 30, waitSeconds: 0 });
    expect(raw?.attributes).toEqual({});
    await queue.close();
  });

  it('instrumentWorker and observeQueueStats listen to nothing and poll nothing', () => {
    let subscribed = 0;
    const worker = {
      on: () => {
        subscribed++;
        return () => {};
      },
    };
    instrumentWorker(worker, { loadModule: notInstalled })();
    let polled = 0;
    const admin = {
      stats: async () => {
        polled++;
        return { depth: 0, oldestReadyAgeSeconds: null, deadLetters: 0 };
      },
    };
    observeQueueStats({ admin, url: 'memory://q', name: 'q', loadModule: notInstalled })();
    expect([subscribed, polled]).toEqual([0, 0]);
  });

  it("names its instrumentation scope with the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(INSTRUMENTATION_VERSION).toBe(pkg.version);
  });
});
