import { afterEach, describe, expect, it } from 'vitest';
import type { CommandReport } from '../src/report/report-types';
import { closedPort, HANGING_OPEN_CLI, spawnCli } from './support/spawn-cli';
import { tempDir } from './support/test-io';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean();
  cleanup = [];
});

const TIMEOUT_MS = 3_000;
/** Process start (tsx compiles the sources), the probe, the close bounds and the exit grace, generously. */
const BOUND_MS = 45_000;

describe('queueport drill against a Redis nothing listens on', () => {
  for (const json of [false, true]) {
    it(`exits 1 within the timeout plus a bound, naming the refused connection${json ? ' (--json)' : ''}`, async () => {
      const port = await closedPort();
      const dir = await tempDir({
        'queueport.config.json': {
          providers: { redis: { url: `bullmq://127.0.0.1:${port}/drill` } },
          ledger: { sqlite: 'ledger.db' },
          receiver: { url: 'http://127.0.0.1:9/drill', allowInsecure: true },
        },
      });
      cleanup.push(dir.remove);

      const cli = spawnCli(['drill', '--timeout-ms', String(TIMEOUT_MS), ...(json ? ['--json'] : [])], {
        cwd: dir.dir,
      });
      const killer = setTimeout(() => cli.child.kill('SIGKILL'), TIMEOUT_MS + BOUND_MS);
      const exit = await cli.exited;
      clearTimeout(killer);

      expect(exit, `stderr: ${cli.stderr()}`).toMatchObject({ code: 1, signal: null });
      const shown = json
        ? (JSON.parse(cli.stdout()) as CommandReport).checks.find((check) => check.id === 'canary.open')
            ?.detail
        : cli.stdout();
      // Said by the adapter, or found by the drill's own probe when the adapter says nothing.
      // (The adapter may keep the host to itself; the port and the refusal are what matter.)
      expect(shown).toMatch(new RegExp(`:${port}\\b.*refused`));
      expect(shown).not.toMatch(/raise --timeout-ms/);
    });
  }
});

describe('queueport drill with an adapter whose open never answers', () => {
  it('reports, names the refused connection itself, and exits 1 naming what was still open', async () => {
    const port = await closedPort();
    const dir = await tempDir({
      'queueport.config.json': {
        providers: { redis: { url: `bullmq://127.0.0.1:${port}/drill` } },
        ledger: { sqlite: 'ledger.db' },
        receiver: { url: 'http://127.0.0.1:9/drill', allowInsecure: true },
      },
    });
    cleanup.push(dir.remove);

    const cli = spawnCli(['drill', '--timeout-ms', String(TIMEOUT_MS)], {
      cwd: dir.dir,
      entry: HANGING_OPEN_CLI,
    });
    const killer = setTimeout(() => cli.child.kill('SIGKILL'), TIMEOUT_MS + BOUND_MS);
    const exit = await cli.exited;
    clearTimeout(killer);

    expect(exit, `stderr: ${cli.stderr()}`).toMatchObject({ code: 1, signal: null });
    // The adapter said nothing: the drill's own probe found why.
    expect(cli.stdout()).toMatch(
      new RegExp(`the connection to 127\\.0\\.0\\.1:${port} was refused \\(ECONNREFUSED\\)`),
    );
    expect(cli.stdout()).toMatch(/the adapter gave no answer within 3000 ms/);
    expect(cli.stderr()).toMatch(
      /still open after the run: provider redis \(bullmq:\/\/127\.0\.0\.1:\d+\/drill\), still opening/,
    );
    expect(cli.stderr()).toMatch(/still running 2000 ms after the report \(open: .*\): exiting/);
  });
});
