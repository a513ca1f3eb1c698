import type { AdapterDefinition } from '@queueport/core/driver';
import { memoryAdapter } from '@queueport/memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QUICK_PROPERTY_IDS } from '../src/drill';
import { processIo } from '../src/io';
import { createProgress } from '../src/report/progress';
import { checkOf, type DrillWorld, startDrillWorld } from './support/drill-world';
import { testIo, uniqueQueue } from './support/test-io';

/** Back to the start of the terminal's line, and the line erased. */
const CLEAR = '\r\x1b[2K';

let world: DrillWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  vi.useRealTimers();
});

describe('the canary after a failed delivery', () => {
  it('is acked, never dead-lettered: `dlq redrive` cannot hand it to the application', async () => {
    world = await startDrillWorld({ respond: () => 400 });
    const url = `memory://${uniqueQueue('drill')}`;

    const { report } = await world.drill({ memory: url });

    expect(checkOf(report, 'memory', 'canary.deliver')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/^receiver refused: it answered HTTP 400/),
    });
    const admin = await memoryAdapter.admin!(new URL('memory://'), {});
    try {
      expect(await admin.listDeadLetters!(url, { limit: 10 })).toEqual([]);
      expect(await admin.stats(url)).toMatchObject({ depth: 0, deadLetters: 0 });
    } finally {
      await admin.close();
    }
  });
});

/** memory://, except that a receive on a scratch queue of the suite takes `ms` first. */
function slowScratchAdapter(ms: number): AdapterDefinition {
  const toMemory = (url: URL) => new URL(url.href.replace(/^slow:/, 'memory:'));
  return {
    scheme: 'slow',
    packageName: 'slow-scratch-test-adapter',
    virtualClock: true,
    async open(url, context) {
      const driver = await memoryAdapter.open(toMemory(url), context);
      if (!url.pathname.includes('conformance-') && !url.host.includes('conformance-')) return driver;
      return {
        ...driver,
        receive: async (request) => {
          await new Promise((resolve) => setTimeout(resolve, ms));
          return driver.receive(request);
        },
      };
    },
    async admin(url, context) {
      const admin = await memoryAdapter.admin!(toMemory(url), context);
      return {
        createQueue: async (request) => (await admin.createQueue(request)).replace(/^memory:/, 'slow:'),
        deleteQueue: (queue) => admin.deleteQueue(queue.replace(/^slow:/, 'memory:')),
        stats: (queue) => admin.stats(queue.replace(/^slow:/, 'memory:')),
        close: () => admin.close(),
      };
    },
  };
}

describe('a conformance property that overruns its budget', () => {
  it('fails, naming the budget and the flag that sets it; the drill goes on with the next', async () => {
    world = await startDrillWorld();
    const { report } = await world.drill(
      { slow: `slow://${uniqueQueue('drill')}` },
      ['--quick', '--property-timeout-ms', '300'],
      { adapters: [slowScratchAdapter(1_000)] },
    );

    expect(checkOf(report, 'slow', 'canary.ledger').status).toBe('passed');
    expect(checkOf(report, 'slow', 'conformance.round-trip')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/overran its budget of 300 ms \(--property-timeout-ms\)/),
    });
    // The run went on with the next properties, each within its own budget.
    for (const id of QUICK_PROPERTY_IDS) {
      expect(checkOf(report, 'slow', `conformance.${id}`).durationMs).toBeLessThan(30_000);
    }
    expect(report.ok).toBe(false);
  });
});

describe('progress', () => {
  it('shows the running step, in a CI log and on a terminal with its elapsed time', async () => {
    world = await startDrillWorld();
    const { io } = await world.drill({ memory: `memory://${uniqueQueue('drill')}` });
    const log = io.err();
    // Each step is named when it starts, not only when it ended.
    expect(log).toMatch(/drill memory: canary\.publish …\n(.*\n)*drill memory: canary\.publish passed/);

    vi.useFakeTimers();
    let now = 0;
    const tty = { ...testIo({ isTTY: true }), now: () => now };
    const progress = createProgress(tty, { silent: false, redact: (text) => text });
    progress.line('drill sqs: [16/22] conformance.dead-letters', { running: true });
    now = 3_000;
    vi.advanceTimersByTime(3_000);
    expect(tty.err().endsWith(`${CLEAR}drill sqs: [16/22] conformance.dead-letters (3 s)`)).toBe(true);
    progress.clear();
    expect(tty.err().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('makes way for a process warning on a terminal, and draws the line again under it', async () => {
    const tty = { ...testIo({ isTTY: true }), watchWarnings: processIo().watchWarnings };
    const progress = createProgress(tty, { silent: false, redact: (text) => text });
    progress.line('drill sqs: canary.publish', { running: true });
    const before = tty.err();

    process.emitWarning('Node.js 20 support ends soon', 'NodeVersionSupportWarning');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));

    // Cleared before Node printed the warning (on the real stderr), drawn again after it.
    expect(tty.err().slice(before.length)).toBe(`${CLEAR}${CLEAR}drill sqs: canary.publish (0 s)`);
    progress.clear();
    // Cleared, the progress stops watching: a later warning leaves the output alone.
    const after = tty.err();
    process.emitWarning('another warning', 'TestWarning');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(tty.err()).toBe(after);
  });
});
