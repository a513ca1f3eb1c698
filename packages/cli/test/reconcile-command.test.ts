import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, UsageError } from '../src/errors';
import { reconcileCommand } from '../src/reconcile';
import { startTestContext, type TestContext } from './support/migrate-context';
import { PayloadStore, type SeededLedger, seedLedger } from './support/reconcile-ledger';

let fixture: TestContext | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** A configuration file's folder holding the application's loader module and its payloads. */
async function seeded(loaderSource?: string): Promise<{ f: TestContext; seeded: SeededLedger }> {
  const f = await startTestContext({ memory: ['a', 'work'] });
  fixture = f;
  const store = new PayloadStore();
  const rows = await seedLedger(f.ledgerFile, store);
  await writeFile(join(f.folder, 'payloads.json'), JSON.stringify(store.json()));
  await writeFile(
    join(f.folder, 'load-payload.mjs'),
    loaderSource ??
      [
        "import { readFile } from 'node:fs/promises';",
        "const payloads = JSON.parse(await readFile(new URL('./payloads.json', import.meta.url), 'utf8'));",
        'export default async (eventId) => payloads[eventId];',
      ].join('\n'),
  );
  f.loaded.file = join(f.folder, 'queueport.config.json');
  f.loaded.config.payloadLoader = './load-payload.mjs';
  return { f, seeded: rows };
}

const flags = ['--provider', 'a', '--older-than-seconds', '3600', '--batch', '3', '--budget-ms', '10000'];

describe('queueport reconcile', () => {
  it('republishes the stuck events through the configured payload loader and reports the counts', async () => {
    const { f, seeded: rows } = await seeded();
    const report = await reconcileCommand.run(flags, f.context);
    expect(report.command).toBe('reconcile');
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['reconcile.budget', 'passed'],
      ['reconcile.republish', 'passed'],
    ]);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({
      provider: 'a',
      mode: 'inline',
      eligible: rows.stale.length,
      republished: rows.stale.length,
      pending: 0,
      ambiguous: 2,
      missing: 0,
      mismatched: 0,
      'retry scheduled': 1,
      scan: 'complete',
    });
    expect(report.rows?.map((row) => row.ambiguous).sort()).toEqual([
      'ambiguous_delivered',
      'ambiguous_pending',
    ]);
    expect(report.notes?.some((note) => note.includes('ambiguous rows'))).toBe(true);
    expect(await f.depth('a')).toBe(rows.stale.length);
  });

  it('--enqueue-scan: the units go to --scan-provider, no loader needed', async () => {
    const { f, seeded: rows } = await seeded();
    delete f.loaded.config.payloadLoader;
    const report = await reconcileCommand.run(
      [...flags, '--enqueue-scan', '--scan-provider', 'work'],
      f.context,
    );
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({
      mode: 'enqueue',
      enqueued: rows.stale.length,
      units: 2,
      pending: 0,
    });
    expect(await f.depth('a')).toBe(0);
    expect(await f.depth('work')).toBe(2);
  });

  it('without payloadLoader: a ConfigError naming the field, before anything is opened', async () => {
    const { f } = await seeded();
    delete f.loaded.config.payloadLoader;
    const error = await reconcileCommand.run(flags, f.context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('payloadLoader');
    expect((error as ConfigError).message).toContain('never stores payloads');
  });

  it('a loader module without a default function is a ConfigError too', async () => {
    const { f } = await seeded('export const load = async () => undefined;');
    const error = await reconcileCommand.run(flags, f.context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('payloadLoader');
    expect((error as ConfigError).message).toMatch(/no default export/);
  });

  it('refuses flags it does not take', async () => {
    const { f } = await seeded();
    await expect(reconcileCommand.run([], f.context)).rejects.toThrow(/--provider is required/);
    await expect(reconcileCommand.run([...flags, '--budget', '5'], f.context)).rejects.toThrow(UsageError);
    await expect(reconcileCommand.run([...flags, '--batch', '0'], f.context)).rejects.toThrow(/--batch/);
    await expect(reconcileCommand.run([...flags, '--scan-provider', 'work'], f.context)).rejects.toThrow(
      /goes with --enqueue-scan/,
    );
  });
});
