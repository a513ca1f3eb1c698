import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { redactSecrets } from '@queueport/core';
import { type ReferenceReceiver, startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QUICK_PROPERTY_IDS } from '../src/drill';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { checkOf } from './support/drill-world';
import { tempDir, testIo, uniqueQueue } from './support/test-io';

/** An adapter package outside packages/, as a team's own would be: nothing in the CLI names it. */
const FIXTURE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../conformance/fixtures/third-party-adapter',
);

let folder: Awaited<ReturnType<typeof tempDir>>;
let receiver: ReferenceReceiver;
beforeEach(async () => {
  folder = await tempDir();
  receiver = await startReferenceReceiver({ mode: 'idempotent' });
});
afterEach(async () => {
  await receiver.close();
  await folder.remove();
});

/** A configuration naming the fixture by its folder, relative to the configuration file. */
async function fixtureConfig(adapters: string[] = [path.relative(folder.dir, FIXTURE)]): Promise<string> {
  return folder.write('queueport.config.json', {
    adapters,
    providers: { fixture: { url: `fixture://${uniqueQueue('third-party')}` } },
    ledger: { sqlite: 'ledger.db' },
    receiver: { url: receiver.url, allowInsecure: true },
  });
}

async function run(
  argv: string[],
): Promise<{ code: number; report: CommandReport | undefined; err: string }> {
  const io = testIo({ cwd: folder.dir });
  const code = await main([...argv, '--json'], io);
  const out = io.out();
  return { code, report: out ? (JSON.parse(out) as CommandReport) : undefined, err: io.err() };
}

describe('a third-party adapter named by the configuration', () => {
  it('runs through queueport drill --quick: its preflight a row of the report, the canary and the suite pass', async () => {
    const config = await fixtureConfig();

    const { code, report } = await run(['drill', '--quick', '--config', config]);

    expect(report?.checks.filter((check) => check.status === 'failed')).toEqual([]);
    expect(code).toBe(EXIT.ok);
    expect(checkOf(report!, 'fixture', 'canary.open').detail).toMatch(
      /^queueport-fixture-adapter opened fixture:/,
    );
    expect(checkOf(report!, 'fixture', 'canary.preflight.fixture-ready')).toMatchObject({
      status: 'passed',
      detail: 'the fixture provider runs in this process',
    });
    for (const id of ['canary.publish', 'canary.consume', 'canary.deliver', 'canary.ledger']) {
      expect(checkOf(report!, 'fixture', id).status).toBe('passed');
    }
    for (const id of QUICK_PROPERTY_IDS) {
      expect(checkOf(report!, 'fixture', `conformance.${id}`).status).toBe('passed');
    }
    expect(receiver.requests()).toBeGreaterThanOrEqual(1);
    // Its secret pattern is registered with core's redaction once the adapter is loaded.
    expect(redactSecrets('key fxt_0123456789abcdef refused')).toBe('key [REDACTED] refused');
  });

  it('runs through queueport conformance --quick, loaded by the path of its module file', async () => {
    const config = await fixtureConfig([path.join(FIXTURE, 'index.mjs')]);

    const { code, report } = await run([
      'conformance',
      '--provider',
      'fixture',
      '--quick',
      '--config',
      config,
    ]);

    expect(code).toBe(EXIT.ok);
    expect(report).toMatchObject({ ok: true, summary: { provider: 'fixture', failed: 0 } });
    const ran = report!.checks.filter((check) => check.status === 'passed');
    expect(ran.length).toBeGreaterThanOrEqual(10);
  });

  it("checks the provider URLs by the adapter's own URL rules when the configuration loads (exit 2)", async () => {
    const config = await folder.write('queueport.config.json', {
      adapters: [path.relative(folder.dir, FIXTURE)],
      providers: { fixture: { url: 'fixture://orders?maxReceive=3' } },
    });

    const { code, err } = await run(['conformance', '--provider', 'fixture', '--config', config]);

    expect(code).toBe(EXIT.usage);
    expect(err).toMatch(/\(providers\.fixture\.url\): .*maxReceive/);
  });

  it.each([
    [
      'a module that exports no adapter definition',
      { 'nothing.mjs': 'export const answer = 42;\n' },
      './nothing.mjs',
      /\(adapters\[0\]\): "\.\/nothing\.mjs" exports no adapter definition/,
    ],
    [
      'a scheme a built-in adapter serves',
      {
        'clash.mjs':
          "export default { scheme: 'memory', packageName: 'my-memory', virtualClock: true, open() { throw new Error('never'); } };\n",
      },
      './clash.mjs',
      /\(adapters\[0\]\): "\.\/clash\.mjs" serves memory:\/\/, which @queueport\/memory \(built in\) already serves/,
    ],
    [
      'a path with no module',
      {},
      './missing-adapter.mjs',
      /\(adapters\[0\]\): "\.\/missing-adapter\.mjs" could not be loaded: no module at /,
    ],
    [
      'a package that is not installed',
      {},
      '@acme/queueport-not-installed',
      /\(adapters\[0\]\): "@acme\/queueport-not-installed" could not be loaded: it is not installed where the configuration is \(npm i/,
    ],
  ])('refuses %s with a configuration error naming the entry', async (_what, files, specifier, message) => {
    for (const [name, content] of Object.entries(files)) await folder.write(name, content);
    const config = await folder.write('queueport.config.json', {
      adapters: [specifier],
      providers: { main: { url: `memory://${uniqueQueue('q')}` } },
    });

    const { code, err } = await run(['conformance', '--provider', 'main', '--config', config]);

    expect(code).toBe(EXIT.usage);
    expect(err).toMatch(message);
  });

  it('refuses adapters that is not a list of names or paths', async () => {
    const config = await folder.write('queueport.config.json', {
      adapters: 'queueport-fixture-adapter',
      providers: { main: { url: `memory://${uniqueQueue('q')}` } },
    });

    const { code, err } = await run(['conformance', '--provider', 'main', '--config', config]);

    expect(code).toBe(EXIT.usage);
    expect(err).toMatch(/\(adapters\): must be a list of package names or paths/);
  });
});
