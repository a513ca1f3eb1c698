import { Worker } from 'node:worker_threads';

export type IsolatedOutcome =
  | { status: 'returned'; value: unknown; ms: number }
  | { status: 'threw'; name: string; code: unknown; message: string; ms: number }
  | { status: 'hung'; ms: number };

// Runs in the worker: TypeScript through tsx, then the scenario, reporting how it ended.
const BOOT = `
const { parentPort, workerData } = require('node:worker_threads');
import('tsx/esm/api')
  .then(({ register }) => { register(); return import(workerData.url); })
  .then(async (module) => {
    parentPort.postMessage({ status: 'loaded' });
    const started = performance.now();
    try {
      const value = await module[workerData.scenario]();
      parentPort.postMessage({ status: 'returned', value, ms: performance.now() - started });
    } catch (error) {
      parentPort.postMessage({
        status: 'threw', name: String(error?.name), code: error?.code, message: String(error?.message),
        ms: performance.now() - started,
      });
    }
  });
`;

/**
 * Runs one exported scenario of `moduleUrl` in a worker thread, so a scenario that blocks the
 * event loop for good (a check that never ends) is reported as `hung` after `timeoutMs` instead
 * of hanging the test run. `ms` is the scenario's own time, module loading excluded.
 */
export function runIsolated(moduleUrl: URL, scenario: string, timeoutMs = 5_000): Promise<IsolatedOutcome> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOT, { eval: true, workerData: { url: moduleUrl.href, scenario } });
    let timer: NodeJS.Timeout | undefined;
    let started = 0;
    const finish = (outcome: IsolatedOutcome) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(outcome);
    };
    worker.on('message', (message: IsolatedOutcome | { status: 'loaded' }) => {
      if (message.status === 'loaded') {
        started = performance.now();
        timer = setTimeout(() => finish({ status: 'hung', ms: performance.now() - started }), timeoutMs);
      } else finish(message);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
