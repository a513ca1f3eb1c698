import { Queue } from '@queueport/core';
import { memoryAdapter } from '@queueport/memory';
import { createWebhookSender, type DeliveryResult, DeliveryWorker } from '@queueport/webhook';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { CONFIGURED_LEDGERS, type LedgerSetup } from './support/configured-ledgers';
import { tempDir, testIo, uniqueQueue } from './support/test-io';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean();
  cleanup = [];
});

/**
 * A project whose configuration names a memory:// queue and the ledger, and a delivery worker of
 * the application's on the same queue and ledger, delivering to a receiver. `run` runs the CLI
 * in the project, `--json`.
 */
async function world(setup: LedgerSetup, queueOptions = 'dedupe=none') {
  const url = `memory://${uniqueQueue('dest')}?${queueOptions}`;
  const dir = await tempDir();
  cleanup.push(dir.remove);
  const store = await setup(dir.file);
  cleanup.push(store.drop);
  await dir.write('queueport.config.json', { providers: { orders: { url } }, ledger: store.config });
  const io = () => testIo({ cwd: dir.dir, env: store.env });
  const run = async (argv: string[]) => {
    const captured = io();
    const code = await main([...argv, '--json'], captured);
    return { code, report: JSON.parse(captured.out()) as CommandReport, stderr: captured.err() };
  };
  const receiver: ReferenceReceiver = await startReferenceReceiver({ mode: 'idempotent' });
  cleanup.push(() => receiver.close());
  const queue = new Queue(await memoryAdapter.open(new URL(url), {}));
  cleanup.push(() => queue.close());
  const ledger = await store.open();
  cleanup.push(() => ledger.close());
  const sender = createWebhookSender({
    ssrf: { allowHttp: true, allowLoopback: true },
    requestTimeoutMs: 5_000,
  });
  cleanup.push(() => sender.close());
  const worker = new DeliveryWorker({
    queue,
    ledger,
    sender,
    route: () => ({ id: 'acme', url: receiver.url }),
    destinationRefreshMs: 0,
  });
  const drain = async (): Promise<DeliveryResult[]> => {
    const results: DeliveryResult[] = [];
    for (let [delivery] = await queue.receive(); delivery; [delivery] = await queue.receive()) {
      results.push(await worker.process(delivery));
    }
    return results;
  };
  const publish = async (ids: readonly string[]) => {
    for (const id of ids)
      await queue.publish({ envelope: { event_id: id, type: 'order.placed', payload: { id } } });
  };
  return { io, run, receiver, drain, publish };
}

describe.each(CONFIGURED_LEDGERS)('queueport destinations, ledger on %s', (_store, setup) => {
  it('disable parks what the workers take; list shows it; enable resumes every parked event, delivered once', async () => {
    const w = await world(setup);
    const disabled = await w.run(['destinations', 'disable', 'acme', '--reason', 'maintenance']);
    expect(disabled.code).toBe(EXIT.ok);
    expect(disabled.report.checks).toEqual([
      expect.objectContaining({
        id: 'destinations.disable',
        status: 'passed',
        detail: expect.stringMatching(/^disabled/),
      }),
    ]);
    expect(disabled.report.rows).toEqual([
      expect.objectContaining({ destination: 'acme', state: 'disabled', reason: 'maintenance', parked: 0 }),
    ]);
    expect((await w.run(['destinations', 'disable', 'acme'])).report.checks[0]?.detail).toBe(
      'already disabled',
    );

    const ids = ['order_1:placed', 'order_2:placed', 'order_3:placed'];
    await w.publish(ids);
    expect(await w.drain()).toEqual(['parked', 'parked', 'parked']);
    expect(w.receiver.requests()).toBe(0);

    const listed = await w.run(['destinations', 'list']);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.report.summary).toEqual({ destinations: 1, disabled: 1, parked: 3 });
    expect(listed.report.rows).toEqual([
      expect.objectContaining({ destination: 'acme', state: 'disabled', reason: 'maintenance', parked: 3 }),
    ]);
    const human = w.io();
    expect(await main(['destinations', 'list'], human)).toBe(EXIT.ok);
    expect(human.out()).toMatch(/destination\s+acme[\s\S]*state\s+disabled[\s\S]*reason\s+maintenance/);

    // One provider configured: it is where the events go back.
    const enabled = await w.run(['destinations', 'enable', 'acme']);
    expect(enabled.code).toBe(EXIT.ok);
    expect(enabled.report.summary).toMatchObject({
      destination: 'acme',
      provider: 'orders',
      republished: 3,
      'settled already': 0,
      'still parked': 0,
    });
    expect(await w.drain()).toEqual(['delivered', 'delivered', 'delivered']);
    for (const id of ids) expect(w.receiver.effectCount(id), id).toBe(1);
    expect((await w.run(['destinations', 'list'])).report.rows).toEqual([
      expect.objectContaining({ destination: 'acme', state: 'enabled', parked: 0 }),
    ]);
    // Enabling again finds nothing to do.
    expect((await w.run(['destinations', 'enable', 'acme'])).report.summary).toMatchObject({
      republished: 0,
      'still parked': 0,
    });
  });

  it("fails the check while events wait for the queue's dedupe window, and says when to run it again", async () => {
    const w = await world(setup, 'dedupe=window:300');
    await w.run(['destinations', 'disable', 'acme']);
    await w.publish(['order_1:placed']);
    expect(await w.drain()).toEqual(['parked']);
    const enabled = await w.run([
      'destinations',
      'enable',
      'acme',
      '--provider',
      'orders',
      '--max-wait-ms',
      '0',
    ]);
    expect(enabled.code).toBe(EXIT.failed);
    expect(enabled.report.checks[0]).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/enabled; 0 republished, 0 settled already; 1 still parked/),
    });
    expect(enabled.report.notes?.join('\n')).toMatch(/dedupe window .* Run enable again after/);
    expect(await w.drain()).toEqual([]);
    // Enabled meanwhile: the list points at the unfinished resume.
    const listed = await w.run(['destinations', 'list']);
    expect(listed.report.rows).toEqual([expect.objectContaining({ state: 'enabled', parked: 1 })]);
    expect(listed.report.notes?.join('\n')).toMatch(/Enabled with events still parked.*acme/);
  });
});

describe('queueport destinations', () => {
  it('refuses what it cannot do as asked, as a usage or configuration error', async () => {
    const dir = await tempDir({
      'queueport.config.json': {
        providers: { a: { url: 'memory://a' }, b: { url: 'memory://b' } },
        ledger: { sqlite: 'ledger.db' },
      },
    });
    cleanup.push(dir.remove);
    const usage = async (argv: string[]) => {
      const io = testIo({ cwd: dir.dir });
      expect(await main(argv, io), argv.join(' ')).toBe(EXIT.usage);
      return io.err();
    };
    expect(await usage(['destinations'])).toContain('destinations takes list, enable or disable');
    expect(await usage(['destinations', 'drop', 'acme'])).toContain('unknown destinations command "drop"');
    expect(await usage(['destinations', 'enable'])).toContain('takes a destination id');
    expect(await usage(['destinations', 'enable', 'acme', '--reason', 'x'])).toContain('--reason goes with');
    expect(await usage(['destinations', 'enable', 'acme'])).toContain('needs --provider');
    expect(await usage(['destinations', 'enable', 'acme', '--provider', 'nope'])).toContain(
      'no provider named',
    );
    const none = await tempDir({ 'queueport.config.json': { providers: {} } });
    cleanup.push(none.remove);
    const io = testIo({ cwd: none.dir });
    expect(await main(['destinations', 'list'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('no ledger is configured');
    const help = testIo({ cwd: dir.dir });
    expect(await main(['destinations', '--help'], help)).toBe(EXIT.ok);
    expect(help.out()).toContain('queueport destinations enable <id>');
  });
});
