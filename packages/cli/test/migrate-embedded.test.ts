import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createCommandContext } from '../src/context';
import { migrateCommand } from '../src/migrate';

it('runs on the embedded defaults through the CLI’s own context: memory → infrai, infrai → memory; never a provider to itself', async () => {
  // An empty folder: no configuration file, so the embedded defaults start (signed receiver included).
  const cwd = await mkdtemp(join(tmpdir(), 'queueport-migrate-embedded-'));
  const context = createCommandContext({
    stdout: () => {},
    stderr: () => {},
    isTTY: false,
    env: {},
    cwd,
    now: () => performance.now(),
  });
  try {
    for (const [from, to] of [
      ['memory', 'infrai'],
      ['infrai', 'memory'],
    ] as const) {
      const report = await migrateCommand.run(
        ['--from', from, '--to', to, '--events', '5', '--window-ms', '50'],
        context,
      );
      expect(report.checks.filter((c) => c.status !== 'passed')).toEqual([]);
      expect(report.summary).toMatchObject({ delivered: 5, duplicates: 0, lost: 0, effects: 'receiver' });
    }
    // A migration to the same provider proves nothing: refused as a usage error.
    await expect(migrateCommand.run(['--from', 'memory', '--to', 'memory'], context)).rejects.toThrow(
      /name the same provider/,
    );
  } finally {
    await context.close();
    await rm(cwd, { recursive: true, force: true });
  }
});
