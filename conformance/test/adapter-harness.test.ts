import {
  adapterHarness,
  adminSurface,
  deadLetters,
  defineProperty,
  runConformance,
  SCRATCH_REDRIVE_AFTER_RECEIVES,
  withSession,
} from '@queueport/conformance';
import type { CreateQueueRequest, QueueAdmin } from '@queueport/core';
import { type AdapterDefinition, defineAdapter } from '@queueport/core/driver';
import { memoryAdapter } from '@queueport/memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The memory adapter, with what its admin creates and deletes recorded, and its admin trimmed to `keep`. */
function recorded(keep: (admin: QueueAdmin) => QueueAdmin = (admin) => admin) {
  const created: CreateQueueRequest[] = [];
  const live = new Set<string>();
  const definition: AdapterDefinition = defineAdapter({
    ...memoryAdapter,
    admin: async (url, context) => {
      const admin = await memoryAdapter.admin!(url, context);
      return keep({
        ...admin,
        createQueue: async (request) => {
          created.push(request);
          const made = await admin.createQueue(request);
          live.add(made);
          return made;
        },
        deleteQueue: async (made) => {
          await admin.deleteQueue(made);
          live.delete(made);
        },
      });
    },
  });
  return { definition, created, live };
}

describe('adapterHarness', () => {
  it('makes scratch queues with a small redrive unless told otherwise, and deletes each one', async () => {
    const { definition, created, live } = recorded();
    await runConformance(adapterHarness(definition, 'memory://'), { properties: [deadLetters], numRuns: 3 });
    expect(created.length).toBeGreaterThan(0);
    expect(created.every((r) => r.redriveAfterReceives === SCRATCH_REDRIVE_AFTER_RECEIVES)).toBe(true);
    expect([...live]).toEqual([]);
    const own = recorded();
    await runConformance(
      adapterHarness(own.definition, 'memory://', { createQueue: { redriveAfterReceives: 2 } }),
      {
        properties: [deadLetters],
        numRuns: 1,
      },
    );
    expect(own.created.map((r) => r.redriveAfterReceives)).toEqual([2, 2]);
  });

  it('deletes the scratch queues of a property stopped by its budget or by the signal', async () => {
    const { definition, created, live } = recorded();
    const stuck = defineProperty({
      id: 'stuck',
      title: 'never ends',
      build: (harness) =>
        fc.asyncProperty(fc.constant(0), () => withSession(harness, () => new Promise<void>(() => {}))),
    });
    const overrun = await runConformance(adapterHarness(definition, 'memory://'), {
      properties: [stuck],
      propertyTimeoutMs: 200,
    });
    expect(overrun.results[0]).toMatchObject({ status: 'failed', timedOut: true });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    const interrupted = await runConformance(adapterHarness(definition, 'memory://'), {
      properties: [stuck],
      signal: abort.signal,
    });
    expect(interrupted.results[0]).toMatchObject({ status: 'skipped', reason: 'interrupted' });
    expect(created.length).toBeGreaterThanOrEqual(4);
    expect([...live]).toEqual([]);
  });

  it('deletes a scratch queue it made but could not open', async () => {
    const { definition, live } = recorded();
    const failing = defineAdapter({
      ...definition,
      open: () => {
        throw new Error('cannot open');
      },
    });
    await expect(runConformance(adapterHarness(failing, 'memory://'))).rejects.toThrow('cannot open');
    expect([...live]).toEqual([]);
  });

  it('declares inspects for a minimal admin, and admin-surface passes it, saying what it left unchecked', async () => {
    const { definition } = recorded(({ createQueue, deleteQueue, stats, close }) => ({
      createQueue,
      deleteQueue,
      stats,
      close,
    }));
    const harness = adapterHarness(definition, 'memory://');
    expect(harness.inspects).toBe(true);
    const report = await runConformance(harness, { properties: [adminSurface, deadLetters], numRuns: 20 });
    expect(report.results.map((r) => [r.id, r.status, r.error])).toEqual([
      ['admin-surface', 'passed', undefined],
      ['dead-letters', 'passed', undefined],
    ]);
    expect(report.results[0]!.notes).toEqual(
      expect.arrayContaining([
        expect.stringContaining('redriveDeadLetters'),
        expect.stringContaining('purge'),
      ]),
    );
    expect(report.results[1]!.notes).toEqual([expect.stringContaining('listDeadLetters')]);
  });

  it('says which admin-surface checks a null depth, age or dead-letter count left out', async () => {
    const { definition } = recorded((admin) => ({
      ...admin,
      stats: async () => ({ depth: null, oldestReadyAgeSeconds: null, deadLetters: null }),
    }));
    const report = await runConformance(adapterHarness(definition, 'memory://'), {
      properties: [adminSurface],
      numRuns: 30,
      seed: 1,
    });
    const [result] = report.results;
    expect(result?.status).toBe('passed');
    expect(result?.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^depth: .*null/),
        expect.stringMatching(/^oldest ready age: .*null/),
        expect.stringMatching(/^dead-letter count: .*null/),
      ]),
    );
  });
});
