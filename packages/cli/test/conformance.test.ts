import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { closedPort } from './support/spawn-cli';
import { tempDir, testIo, uniqueQueue } from './support/test-io';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup) await clean();
  cleanup = [];
});

async function run(argv: string[], cwd: string) {
  const io = testIo({ cwd });
  const code = await main([...argv, '--json'], io);
  return { code, report: JSON.parse(io.out()) as CommandReport };
}

describe('queueport conformance', () => {
  it('--provider memory --quick passes on the embedded defaults', async () => {
    const dir = await tempDir();
    cleanup.push(dir.remove);
    const { code, report } = await run(
      ['conformance', '--provider', 'memory', '--quick', '--seed', '7'],
      dir.dir,
    );
    expect(code).toBe(EXIT.ok);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({ provider: 'memory', seed: 7, failed: 0 });
    expect(report.checks.length).toBeGreaterThanOrEqual(20);
    for (const check of report.checks) {
      // The CLI has no portable way to cut a provider's connection, and a default memory queue
      // ends no hold on its own: those two properties say so.
      const skips: Record<string, string> = {
        'conformance.connection-drop': 'dropConnection',
        'conformance.max-hold': 'declares no maximum hold',
      };
      const expected = skips[check.id]
        ? { status: 'skipped', detail: expect.stringContaining(skips[check.id]!) }
        : { status: 'passed', detail: '5 run(s)' };
      expect(check).toMatchObject({
        id: expect.stringMatching(/^conformance\./),
        provider: 'memory',
        ...expected,
      });
    }
  });

  it('passes over a configuration file of memory:// providers, each with its own options', async () => {
    const dir = await tempDir({
      'queueport.config.json': {
        providers: {
          plain: { url: `memory://${uniqueQueue('plain')}` },
          bridged: { url: `memory://${uniqueQueue('bridged')}?nativeMaxDelaySeconds=900&maxReceives=3` },
        },
      },
    });
    cleanup.push(dir.remove);
    for (const provider of ['plain', 'bridged']) {
      const { code, report } = await run(['conformance', '--provider', provider, '--quick'], dir.dir);
      expect(code, JSON.stringify(report.checks.filter((c) => c.status === 'failed'))).toBe(EXIT.ok);
      expect(report.checks.every((check) => check.provider === provider)).toBe(true);
    }
  });

  it('reports a provider that cannot be opened as a failed check', async () => {
    const port = await closedPort();
    const dir = await tempDir({
      'queueport.config.json': { providers: { gone: { url: `bullmq://127.0.0.1:${port}/q` } } },
    });
    cleanup.push(dir.remove);
    const { code, report } = await run(['conformance', '--provider', 'gone', '--quick'], dir.dir);
    expect(code).toBe(EXIT.failed);
    expect(report.checks).toEqual([
      expect.objectContaining({
        id: 'conformance.open',
        provider: 'gone',
        status: 'failed',
        detail: expect.stringMatching(/refused/),
      }),
    ]);
  });

  it('refuses a URL option its adapter does not take at load, before anything runs (exit 2)', async () => {
    const dir = await tempDir({
      'queueport.config.json': { providers: { odd: { url: 'memory://q?dedupe=sometimes' } } },
    });
    cleanup.push(dir.remove);
    const io = testIo({ cwd: dir.dir });
    expect(await main(['conformance', '--provider', 'odd', '--quick'], io)).toBe(EXIT.usage);
  });
});
