import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { type EnvelopeInput, FIFO_DEDUPE_WINDOW_SECONDS, Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { MemoryDriver } from '@queueport/memory';
import { type MeasurementScenario, progress, round1, round3, scenarioText } from '../runner';
import { subjectQueueOptions } from '../shared/bench-telemetry';

const CONCURRENCY = 16;
const PUBLISH_CHUNK = 1000;
const MB = 1024 * 1024;

/** Set by `node --expose-gc`; the entry point re-spawns itself with it when missing. */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('backlog-drain needs node --expose-gc');
  gc();
  gc();
}

/** Settled heap: pending finalizers and promise reactions get a turn before the GC runs. */
async function heapUsedMb(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  return process.memoryUsage().heapUsed / MB;
}

function input(label: string, i: number): EnvelopeInput {
  return {
    event_id: `drain_${label}_${i}:settled:v1`,
    type: 'payment.settled',
    payload: { i, amount: 4200 },
  };
}

async function publish(queue: Queue, label: string, messages: number): Promise<void> {
  for (let start = 0; start < messages; start += PUBLISH_CHUNK) {
    const end = Math.min(messages, start + PUBLISH_CHUNK);
    const batch = [];
    for (let i = start; i < end; i++) batch.push({ envelope: input(label, i) });
    await queue.publishBatch(batch);
  }
}

/** Drains the whole backlog with a handler that does no I/O; resolves when the last one ran. */
async function drain(queue: Queue, messages: number): Promise<void> {
  let handled = 0;
  let drained!: () => void;
  const done = new Promise<void>((resolve) => {
    drained = resolve;
  });
  const consumer = queue.consume(
    async () => {
      if (++handled === messages) drained();
    },
    { concurrency: CONCURRENCY },
  );
  await done;
  await consumer.close();
}

export const backlogDrain: MeasurementScenario = {
  kind: 'measurement',
  otel: 'subject',
  name: 'backlog-drain',
  description:
    'Not a ratio: a backlog of distinct event ids published to a memory queue (default 300 s dedupe window) and drained through queue.consume with a handler that does no I/O. Heap is heapUsed after a forced GC, before publishing, right after the drain, and after the driver clock has moved past the dedupe window (one more publish + receive + ack gives any lazy sweep its turn). Lag is monitorEventLoopDelay during the drain, and how often a setInterval(…, 10) fired against how often it would on an idle loop.',
  subject: `drain of a backlog through queue.consume, concurrency ${CONCURRENCY}, no-op handler`,
  baseline: 'none: heap before publishing, and an idle event loop',
  targets: [
    { metric: 'heapRatio', atMost: 1.1 },
    { metric: 'lagP99Ms', atMost: 50 },
  ],
  async run({ quick }) {
    const messages = quick ? 10_000 : 100_000;
    // JIT warm-up on a throwaway queue, so the measured drain is not the first run of the code.
    const warm = new Queue(new MemoryDriver(), subjectQueueOptions());
    await publish(warm, 'warm', Math.min(5000, messages / 2));
    await drain(warm, Math.min(5000, messages / 2));
    await warm.close();

    const clock = new VirtualClock(Date.now());
    const driver = new MemoryDriver({ clock });
    const queue = new Queue(driver, subjectQueueOptions());
    const heapBeforeMb = await heapUsedMb();

    progress(`backlog-drain: publishing ${messages.toLocaleString('en-US')} messages`);
    const publishStarted = performance.now();
    await publish(queue, 'backlog', messages);
    const publishMs = performance.now() - publishStarted;

    progress(`backlog-drain: draining`);
    const lag = monitorEventLoopDelay({ resolution: 10 });
    let fires = 0;
    const interval = setInterval(() => fires++, 10);
    lag.enable();
    const cpu = process.cpuUsage();
    const drainStarted = performance.now();
    await drain(queue, messages);
    const drainMs = performance.now() - drainStarted;
    const used = process.cpuUsage(cpu);
    const timerFires = fires;
    // A loop blocked for the whole drain records its stall only when the monitor's timer next
    // runs, so give it that turn before reading the histogram.
    await new Promise((resolve) => setTimeout(resolve, 30));
    lag.disable();
    clearInterval(interval);
    const heapAfterDrainMb = await heapUsedMb();

    await clock.advance((FIFO_DEDUPE_WINDOW_SECONDS + 1) * 1000);
    await queue.publish({ envelope: input('after-window', 0) });
    await queue.ackBatch(await queue.receive({ maxMessages: 1, leaseSeconds: 30 }));
    const heapAfterWindowMb = await heapUsedMb();
    // The queue must still be reachable here, or the GC would free whatever it holds and the
    // after-window number would say nothing about the queue.
    await queue.close();

    const perSec = (messages * 1000) / drainMs;
    const result = {
      messages,
      concurrency: CONCURRENCY,
      publishMs: Math.round(publishMs),
      drainMs: Math.round(drainMs),
      heapBeforeMb: round1(heapBeforeMb),
      heapAfterDrainMb: round1(heapAfterDrainMb),
      heapAfterWindowMb: round1(heapAfterWindowMb),
      heapRatio: round3(heapAfterWindowMb / heapBeforeMb),
      retainedBytesPerMessage: Math.round(((heapAfterWindowMb - heapBeforeMb) * MB) / messages),
      lagP99Ms: round1(lag.percentile(99) / 1e6),
      lagMaxMs: round1(lag.max / 1e6),
      timerFires,
      timerFiresExpected: Math.floor(drainMs / 10),
    };
    progress(
      `backlog-drain: ${Math.round(perSec).toLocaleString('en-US')}/s; heap ${result.heapBeforeMb} → ${result.heapAfterDrainMb} → ${result.heapAfterWindowMb} MB (×${result.heapRatio}); lag p99 ${result.lagP99Ms} ms, max ${result.lagMaxMs} ms; timer ${timerFires}/${result.timerFiresExpected}`,
    );
    return {
      ...scenarioText(this),
      detail: `${messages} distinct event ids, publishBatch in ${PUBLISH_CHUNK}s, ${CONCURRENCY} in flight; driver on a VirtualClock moved ${FIFO_DEDUPE_WINDOW_SECONDS + 1} s after the drain`,
      subjectPerSec: Math.round(perSec),
      baselinePerSec: null,
      ratio: null,
      range: null,
      subjectCpuUsPerOp: round1((used.user + used.system) / messages),
      baselineCpuUsPerOp: null,
      ...result,
    };
  },
};
