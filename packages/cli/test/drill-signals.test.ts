import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliChild, spawnCli } from './support/spawn-cli';
import { tempDir } from './support/test-io';
import { findAll, parseXml } from './support/xml-check';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean().catch(() => undefined);
  cleanup = [];
});

/**
 * The quick drill on the embedded defaults, as a process, once the infrai provider's suite is
 * under way (its progress line names the running property): then a signal is mid-run.
 */
async function drillUnderWay(): Promise<{ cli: CliChild; junit: string }> {
  const dir = await tempDir();
  cleanup.push(dir.remove);
  const cli = spawnCli(['drill', '--quick', '--junit', 'drill.xml'], { cwd: dir.dir });
  const killer = setTimeout(() => cli.child.kill('SIGKILL'), 120_000);
  cleanup.push(async () => clearTimeout(killer));
  const deadline = performance.now() + 90_000;
  while (!/drill infrai: \[2\/\d+\] conformance\.\S+ …/.test(cli.stderr())) {
    if (cli.child.exitCode !== null || performance.now() > deadline) {
      throw new Error(`the drill never reached infrai's suite: ${cli.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { cli, junit: dir.file('drill.xml') };
}

describe('queueport drill and the signals that stop it', () => {
  it('SIGTERM: the report of what ran, marked interrupted, and exit 143', async () => {
    const { cli, junit } = await drillUnderWay();
    cli.child.kill('SIGTERM');
    const exit = await cli.exited;

    expect(exit, cli.stderr()).toMatchObject({ code: 143, signal: null });
    expect(cli.stdout()).toMatch(/^interrupted: /m);
    // memory ran whole before infrai's suite started; infrai's later properties did not run.
    expect(cli.stdout()).toMatch(/conformance\.round-trip\s+memory\s+passed/);
    expect(cli.stdout()).toMatch(/infrai\s+skipped\s+\d+ ms\s+not run: the drill was interrupted/);
    const cases = findAll(parseXml(await readFile(junit, 'utf8')), 'testcase');
    expect(cases.length).toBeGreaterThan(10);
  });

  it("a CI runner's cancel, SIGINT then SIGTERM: the cleanup goes on, and exit 130", async () => {
    const { cli } = await drillUnderWay();
    // SIGTERM goes the moment the CLI says it took SIGINT: two signals sent back to back reach
    // Node in either order, and on the embedded defaults cleanup can end within milliseconds.
    cli.child.stderr!.on('data', function onStopping() {
      if (!/SIGINT: stopping/.test(cli.stderr())) return;
      cli.child.stderr!.off('data', onStopping);
      cli.child.kill('SIGTERM');
    });
    cli.child.kill('SIGINT');
    const exit = await cli.exited;

    expect(exit, cli.stderr()).toMatchObject({ code: 130, signal: null });
    // Still cleaning up, or (cleanup already done) exiting at once: the SIGINT's code either way.
    expect(cli.stderr()).toMatch(/SIGTERM: still cleaning up after SIGINT|SIGTERM again: exiting now/);
    expect(cli.stdout()).toMatch(/^interrupted: /m);
  });
});
