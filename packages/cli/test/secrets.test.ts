import { readFile } from 'node:fs/promises';
import { defineAdapter } from '@queueport/core/driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import { tempDir, testIo } from './support/test-io';
import { parseXml } from './support/xml-check';

const INFRAI_KEY = 'ifr_planted_d1st1nct1ve_4f7a9e';
const SIGNING_BARE = Buffer.from('planted-receiver-signing-key-0427').toString('base64');
const SIGNING = `whsec_${SIGNING_BARE}`;
const DB_PASSWORD = 'pl4nted-db-pw-6620';
const DB_URL = `postgres://app:${DB_PASSWORD}@db.internal:5432/app`;
/** Escaped differently by JSON, XML and URLs: each format must still mask it. */
const TOKEN = 'tok<&>"planted/+=%-3391';

const env = {
  INFRAI_API_KEY: INFRAI_KEY,
  // Not secret-looking by name: masked because the configuration names it (receiver.secretEnv).
  DRILL_SIGNING: SIGNING,
  LEDGER_CONNECTION: DB_URL,
  SERVICE_TOKEN: TOKEN,
};

/** Every form a planted secret could leak in. */
const FORBIDDEN = [
  INFRAI_KEY,
  SIGNING,
  SIGNING_BARE,
  DB_URL,
  DB_PASSWORD,
  TOKEN,
  JSON.stringify(TOKEN).slice(1, -1),
  encodeURIComponent(TOKEN),
  TOKEN.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  'planted/+=%-3391',
];

/** A provider whose errors echo everything, as a careless SDK's do. */
const leaky = defineAdapter({
  scheme: 'leaky',
  packageName: 'leaky-adapter',
  virtualClock: false,
  open: (_url, context) => {
    const e = context.env ?? {};
    throw new Error(
      `401 at https://api.example/v1?key=${e.INFRAI_API_KEY}: signed with ${e.DRILL_SIGNING} (${SIGNING_BARE}), db ${e.LEDGER_CONNECTION}, pw ${DB_PASSWORD}, token ${e.SERVICE_TOKEN} ${encodeURIComponent(TOKEN)}`,
    );
  },
});

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir({
    'queueport.config.json': {
      providers: {
        leaky: { url: 'leaky://api.example/q?keyEnv=INFRAI_API_KEY' },
        memory: { url: 'memory://secrets-scan' },
      },
      ledger: { postgresUrlEnv: 'LEDGER_CONNECTION' },
      receiver: { url: 'https://receiver.example/hook', secretEnv: 'DRILL_SIGNING' },
    },
  });
});
afterAll(() => dir.remove());

function expectClean(where: string, text: string) {
  for (const secret of FORBIDDEN) expect(text.includes(secret), `${where} shows ${secret}`).toBe(false);
}

describe('no secret appears in any output format', () => {
  it.each([
    ['conformance', ['conformance', '--provider', 'leaky', '--quick']],
    ['dlq', ['dlq', 'list', '--provider', 'leaky']],
  ])('of a failing %s run: human, --json, --junit and stderr', async (_name, argv) => {
    let outputs = 0;
    for (const [format, extra] of [
      ['human', []],
      ['human on a terminal', []],
      ['--json', ['--json']],
    ] as const) {
      const io = testIo({ cwd: dir.dir, env, isTTY: format === 'human on a terminal' });
      const junit = `out${format.replace(/\W+/g, '-')}-${argv[0]}.xml`;
      const code = await main([...argv, ...extra, '--junit', junit], io, { adapters: [leaky] });
      expect(code, io.err()).toBe(EXIT.failed);
      const xml = await readFile(dir.file(junit), 'utf8');
      parseXml(xml);
      for (const [where, text] of [
        [`${format} stdout`, io.out()],
        [`${format} stderr`, io.err()],
        [`${format} junit`, xml],
      ] as const) {
        expectClean(where, text);
        if (text.includes('[REDACTED]')) outputs++;
      }
    }
    // The secrets did reach the output, and were masked there: the scan is not vacuous.
    expect(outputs).toBeGreaterThanOrEqual(4);
  });

  it('of usage and configuration errors that would echo a secret', async () => {
    for (const argv of [
      ['conformance', '--provider', INFRAI_KEY],
      ['dlq', 'list', '--provider', 'memory', TOKEN],
      ['--json', 'dlq', 'list', '--provider', 'memory', SIGNING],
    ]) {
      const io = testIo({ cwd: dir.dir, env });
      expect(await main(argv, io, { adapters: [leaky] })).toBe(EXIT.usage);
      expectClean(`${argv.join(' ')} stderr`, io.err());
      expectClean(`${argv.join(' ')} stdout`, io.out());
      // Withheld where it was typed as a name, or masked by the redactor: either way it was there.
      expect(io.err()).toMatch(/\[REDACTED\]|not shown: it may be a secret/);
    }
  });

  it('of a run with dummy credentials that are common words: JUnit and JSON stay well-formed, real secrets masked', async () => {
    const dummyEnv = { ...env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };
    const argv = ['dlq', 'list', '--provider', 'leaky'];
    const human = testIo({ cwd: dir.dir, env: dummyEnv });
    expect(await main([...argv, '--junit', 'dummy.xml'], human, { adapters: [leaky] })).toBe(EXIT.failed);
    const xml = await readFile(dir.file('dummy.xml'), 'utf8');
    const root = parseXml(xml);
    expect(root.name).toBe('testsuites');
    expect(root.attributes.tests).toBe('1');
    expect(xml).not.toContain('[REDACTED]suites');
    const json = testIo({ cwd: dir.dir, env: dummyEnv });
    expect(await main([...argv, '--json'], json, { adapters: [leaky] })).toBe(EXIT.failed);
    const parsed = JSON.parse(json.out()) as { checks: { detail: string }[]; notes: string[] };
    for (const [where, text] of [
      ['human', human.out()],
      ['junit', xml],
      ['json', json.out()],
    ] as const) {
      expectClean(where, text);
      // The leaky adapter echoed the real secrets: they were there, and masked.
      expect(text, where).toContain('[REDACTED]');
      // The dummy values are not masked (they would rewrite every "test" in the markup), and the report says so by name.
      expect(text, where).toContain('AWS_SECRET_ACCESS_KEY');
    }
    expect(parsed.checks[0]?.detail).toContain('[REDACTED]');
    expect(parsed.notes.join('\n')).toMatch(
      /not reliably masked in this output: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/,
    );
  });
});
