import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Command } from '../src/command-context';
import { COMMANDS } from '../src/commands/registry';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { VERSION } from '../src/version';
import { tempDir, testIo, uniqueQueue } from './support/test-io';
import { findAll, parseXml } from './support/xml-check';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup) await clean();
  cleanup = [];
});

/** A folder with a configuration of memory:// providers and a SQLite ledger. */
async function memoryProject() {
  const dir = await tempDir({
    'queueport.config.json': {
      providers: { main: { url: `memory://${uniqueQueue('main')}` } },
      ledger: { sqlite: 'ledger.db' },
    },
  });
  cleanup.push(dir.remove);
  return dir;
}

describe('help and version', () => {
  it('lists every command with its summary', async () => {
    const io = testIo();
    expect(await main(['--help'], io)).toBe(EXIT.ok);
    const width = Math.max(...COMMANDS.map((command) => command.name.length));
    for (const command of COMMANDS)
      expect(io.out()).toContain(`  ${command.name.padEnd(width)}  ${command.summary}`);
    expect(io.out()).toContain('--junit <file>');
  });

  it.each(COMMANDS.map((command) => [command.name, command] as const))(
    '%s --help prints its help',
    async (_name, command) => {
      for (const argv of [
        [command.name, '--help'],
        [command.name, '-h'],
        ['--json', command.name, 'x', '--help'],
      ]) {
        const io = testIo();
        expect(await main(argv, io)).toBe(EXIT.ok);
        expect(io.out()).toBe(command.help);
        expect(command.help.length).toBeGreaterThan(0);
      }
    },
  );

  it('prints the version', async () => {
    const io = testIo();
    expect(await main(['--version'], io)).toBe(EXIT.ok);
    expect(io.out()).toBe(`${VERSION}\n`);
  });

  it('without a command prints the help to stderr as a usage error', async () => {
    const io = testIo();
    expect(await main([], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('Commands:');
    expect(io.out()).toBe('');
  });
});

describe('exit codes', () => {
  it('0 when every check passed', async () => {
    const dir = await memoryProject();
    expect(
      await main(
        ['conformance', '--provider', 'main', '--quick', '--only', 'round-trip'],
        testIo({ cwd: dir.dir }),
      ),
    ).toBe(EXIT.ok);
  });

  it('1 when a check failed', async () => {
    const dir = await memoryProject();
    const io = testIo({ cwd: dir.dir });
    expect(await main(['ledger', 'show', 'evt_missing'], io)).toBe(EXIT.failed);
    expect(io.out()).toContain('not found');
  });

  it('1, with the error as a failed check, when a command breaks down', async () => {
    const broken: Command = {
      name: 'broken',
      summary: 'throws',
      help: 'usage: queueport broken\n',
      run: async () => {
        throw new TypeError('something unexpected');
      },
    };
    const io = testIo();
    expect(await main(['broken', '--json'], io, { commands: [broken] })).toBe(EXIT.failed);
    const report = JSON.parse(io.out()) as CommandReport;
    expect(report.checks).toEqual([
      expect.objectContaining({ id: 'broken.error', status: 'failed', detail: 'something unexpected' }),
    ]);
  });

  it.each([
    ['an unknown command', ['frobnicate'], /unknown command "frobnicate"; commands: drill, conformance/],
    ['an unknown global flag', ['--colour'], /unknown option "--colour"/],
    [
      'an unknown command flag',
      ['conformance', '--provider', 'main', '--bogus'],
      /Unknown option '--bogus'[\s\S]*usage: queueport conformance/,
    ],
    ['a missing required flag', ['dlq', 'list'], /--provider is required/],
    ['a bad number', ['conformance', '--provider', 'main', '--runs', 'many'], /--runs takes a whole number/],
    [
      'an unknown property',
      ['conformance', '--provider', 'main', '--only', 'nope'],
      /--only: no property "nope"/,
    ],
    [
      'an unknown provider',
      ['dlq', 'list', '--provider', 'elsewhere'],
      /no provider named "elsewhere"; configured: main/,
    ],
    ['a missing --config value', ['--config'], /--config takes a file/],
  ])('2 for %s, with the message and a hint to --help', async (_what, argv, message) => {
    const dir = await memoryProject();
    const io = testIo({ cwd: dir.dir });
    expect(await main(argv, io)).toBe(EXIT.usage);
    expect(io.err()).toMatch(message);
    expect(io.err()).toMatch(/\(queueport( \w+)? --help for usage\)/);
    expect(io.out()).toBe('');
  });

  it('2 for a configuration error, naming the file and the field', async () => {
    const dir = await tempDir({ 'queueport.config.json': { providers: { main: { url: 'kafka://x/y' } } } });
    cleanup.push(dir.remove);
    const io = testIo({ cwd: dir.dir });
    expect(await main(['dlq', 'list', '--provider', 'main'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain(
      `${dir.file('queueport.config.json')} (providers.main.url): no adapter knows "kafka://"`,
    );
  });

  it('2 for a configuration error, also as JSON with --json', async () => {
    const dir = await tempDir({ 'ci.json': { providers: {}, ledger: {} } });
    cleanup.push(dir.remove);
    const io = testIo({ cwd: dir.dir });
    expect(await main(['--config', 'ci.json', 'ledger', 'show', 'e', '--json'], io)).toBe(EXIT.usage);
    expect(JSON.parse(io.out())).toEqual({
      command: 'ledger',
      ok: false,
      error: {
        kind: 'config',
        message: expect.stringContaining('exactly one of'),
        file: dir.file('ci.json'),
        field: 'ledger',
      },
    });
  });
});

describe('output formats', () => {
  it('--json prints one JSON document, and no progress', async () => {
    const dir = await memoryProject();
    const io = testIo({ cwd: dir.dir });
    expect(
      await main(
        ['conformance', '--provider', 'main', '--quick', '--only', 'round-trip,ack-deletes', '--json'],
        io,
      ),
    ).toBe(EXIT.ok);
    const report = JSON.parse(io.out()) as CommandReport;
    expect(report).toMatchObject({
      command: 'conformance',
      ok: true,
      summary: { provider: 'main', passed: 2 },
    });
    expect(report.checks.map((check) => check.id)).toEqual([
      'conformance.round-trip',
      'conformance.ack-deletes',
    ]);
    expect(io.err()).toBe('');
  });

  it('prints progress lines on stderr without a terminal, and a live line on one', async () => {
    const dir = await memoryProject();
    const plain = testIo({ cwd: dir.dir });
    await main(['conformance', '--provider', 'main', '--quick', '--only', 'round-trip'], plain);
    // The running property, then its result: a CI log shows what is under way, not only what ended.
    expect(plain.err()).toContain('conformance main: [1/1] round-trip …\n');
    expect(plain.err()).not.toContain('\r');
    const tty = testIo({ cwd: dir.dir, isTTY: true });
    await main(['conformance', '--provider', 'main', '--quick', '--only', 'round-trip'], tty);
    expect(tty.err()).toContain('\r\x1b[2Kconformance main: [1/1] round-trip');
    expect(tty.err().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('--junit writes well-formed JUnit XML, on success and on failure', async () => {
    const dir = await memoryProject();
    expect(
      await main(
        [
          'conformance',
          '--provider',
          'main',
          '--quick',
          '--only',
          'round-trip,dedupe',
          '--junit',
          'reports/cf.xml',
        ],
        testIo({ cwd: dir.dir }),
      ),
    ).toBe(EXIT.ok);
    const passed = parseXml(await readFile(dir.file('reports/cf.xml'), 'utf8'));
    expect(passed.name).toBe('testsuites');
    expect(passed.attributes).toMatchObject({ tests: '2', failures: '0' });
    const [suite] = findAll(passed, 'testsuite');
    expect(suite?.attributes.name).toBe('conformance (main)');
    const cases = findAll(passed, 'testcase');
    expect(cases.map((c) => c.attributes.name)).toEqual([
      expect.stringMatching(/^conformance\.round-trip: /),
      expect.stringMatching(/^conformance\.dedupe: /),
    ]);
    for (const testcase of cases) expect(Number(testcase.attributes.time)).toBeGreaterThanOrEqual(0);
    expect(findAll(passed, 'property').map((p) => p.attributes.name)).toContain('seed');

    expect(
      await main(['ledger', 'show', 'evt <&> "1"', '--junit', 'ledger.xml'], testIo({ cwd: dir.dir })),
    ).toBe(EXIT.failed);
    const failed = parseXml(await readFile(dir.file('ledger.xml'), 'utf8'));
    const [failure] = findAll(failed, 'failure');
    expect(failure?.text).toBe('not found: the ledger has no row for evt <&> "1"');
    expect(failed.attributes.failures).toBe('1');
  });

  it('colours only on a terminal, and never with --no-color or NO_COLOR', async () => {
    const dir = await memoryProject();
    const run = async (options: { isTTY: boolean; env?: Record<string, string> }, ...extra: string[]) => {
      const io = testIo({ cwd: dir.dir, ...options });
      await main(['ledger', 'show', 'evt_1', ...extra], io);
      return io.out();
    };
    expect(await run({ isTTY: true })).toContain('\x1b[31m');
    expect(await run({ isTTY: false })).not.toContain('\x1b[');
    expect(await run({ isTTY: true }, '--no-color')).not.toContain('\x1b[');
    expect(await run({ isTTY: true, env: { NO_COLOR: '1' } })).not.toContain('\x1b[');
  });
});

describe('what a forgotten flag costs', () => {
  it('refuses a JUnit path that cannot be written before anything runs (exit 2)', async () => {
    const dir = await memoryProject();
    const io = testIo({ cwd: dir.dir });
    expect(await main(['ledger', 'show', 'evt_1', '--junit', '/proc/queueport/report.xml'], io)).toBe(
      EXIT.usage,
    );
    expect(io.err()).toContain('--junit /proc/queueport/report.xml: cannot be written');
    expect(io.out()).toBe('');
  });

  it('says so when a command ran on the embedded defaults, and not when a configuration was used', async () => {
    const empty = await tempDir({});
    cleanup.push(empty.remove);
    const embedded = testIo({ cwd: empty.dir });
    await main(['ledger', 'show', 'evt_1'], embedded);
    expect(embedded.out()).toContain('ran on the embedded defaults');
    const dir = await memoryProject();
    const configured = testIo({ cwd: dir.dir });
    await main(['ledger', 'show', 'evt_1'], configured);
    expect(configured.out()).not.toContain('ran on the embedded defaults');
  });
});
