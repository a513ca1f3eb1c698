import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import { tempDir, testIo, uniqueQueue } from './support/test-io';

/** Typed where a flag or a name goes; not in the environment, so no redactor knows it. */
const TOKEN = 'tk9f8e7d6c5b4a3928170615aa';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup) await clean();
  cleanup = [];
});

async function memoryProject() {
  const dir = await tempDir({
    'queueport.config.json': { providers: { main: { url: `memory://${uniqueQueue('main')}` } } },
  });
  cleanup.push(dir.remove);
  return dir;
}

describe('a usage error writes no JUnit file', () => {
  it.each([
    ['an unknown flag', ['dlq', 'list', '--bogus']],
    ['an unknown provider', ['dlq', 'list', '--provider', 'elsewhere']],
    ['a stray argument', ['conformance', '--provider', 'main', 'extra']],
  ])('%s: no out.xml, and no folder made for it', async (_what, argv) => {
    const dir = await memoryProject();
    const io = testIo({ cwd: dir.dir });

    expect(await main([...argv, '--junit', 'out.xml'], io)).toBe(EXIT.usage);
    expect(await main([...argv, '--junit', 'reports/ci/out.xml'], io)).toBe(EXIT.usage);

    expect(existsSync(dir.file('out.xml'))).toBe(false);
    expect(existsSync(dir.file('reports'))).toBe(false);
  });

  it('an existing JUnit file is left as it was', async () => {
    const dir = await tempDir({ 'out.xml': 'earlier' });
    cleanup.push(dir.remove);
    const { readFile } = await import('node:fs/promises');
    expect(await main(['dlq', 'list', '--bogus', '--junit', 'out.xml'], testIo({ cwd: dir.dir }))).toBe(
      EXIT.usage,
    );
    expect(await readFile(dir.file('out.xml'), 'utf8')).toBe('earlier');
  });
});

describe('a usage error quotes what was typed only when it reads as a name', () => {
  it.each([
    [
      'an unknown flag',
      ['dlq', 'list', '--provider', 'main', `--${TOKEN}`],
      /Unknown option \(argument 4 after the command/,
    ],
    [
      'an unknown flag with a value',
      ['dlq', 'list', '--provider', 'main', `--${TOKEN}=1`],
      /Unknown option \(argument 4/,
    ],
    [
      'a stray argument',
      ['conformance', '--provider', 'main', TOKEN],
      /unexpected argument \(argument 3 after the command/i,
    ],
    [
      'a bad number',
      ['conformance', '--provider', 'main', '--runs', TOKEN],
      /--runs takes a whole number of at least 1\n/,
    ],
  ])('%s', async (_what, argv, message) => {
    const dir = await memoryProject();
    for (const json of [false, true]) {
      const io = testIo({ cwd: dir.dir });
      expect(await main([...argv, ...(json ? ['--json'] : [])], io)).toBe(EXIT.usage);
      expect(io.err()).toMatch(message);
      expect(io.err() + io.out()).not.toContain(TOKEN);
    }
  });

  it.each([
    ['an unknown flag', ['dlq', 'list', '--bogus'], /Unknown option '--bogus'/],
    [
      'a stray argument',
      ['conformance', '--provider', 'main', 'extra'],
      /unexpected argument ('extra'|"extra")/i,
    ],
    ['a bad number', ['conformance', '--provider', 'main', '--runs', 'many'], /not "many"/],
  ])('%s that reads as a name is quoted', async (_what, argv, message) => {
    const dir = await memoryProject();
    const io = testIo({ cwd: dir.dir });
    expect(await main(argv, io)).toBe(EXIT.usage);
    expect(io.err()).toMatch(message);
  });
});

describe('a usage error in --json is masked before it is encoded', () => {
  it('a known secret with characters JSON escapes is masked in the document, not only in plain text', async () => {
    const secret = 'Qx7"vL9\\mR2#pT4$wZ8kN5';
    const dir = await memoryProject();
    const io = testIo({ cwd: dir.dir, env: { DRILL_API_KEY: secret } });

    const code = await main(
      ['dlq', 'list', '--provider', 'main', '--json', '--junit', `/proc/${secret}/out.xml`],
      io,
    );

    expect(code).toBe(EXIT.usage);
    const document = JSON.parse(io.out()) as { error: { message: string } };
    expect(document.error.message).toMatch(/^--junit \/proc\/.+\/out\.xml: cannot be written/);
    expect(document.error.message).not.toContain(secret);
    expect(io.out()).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(io.err()).not.toContain(secret);
  });
});
