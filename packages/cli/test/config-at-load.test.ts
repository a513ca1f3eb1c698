import { defineAdapter } from '@queueport/core/driver';
import { memoryAdapter } from '@queueport/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load-config';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import { tempDir, testIo, uniqueQueue } from './support/test-io';

/** Typed where a name goes: never in any output. Not in the environment, so no redactor knows it. */
const TOKEN = 'tk9f8e7d6c5b4a3928170615aa';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup) await clean();
  cleanup = [];
});

async function project(config: object | string) {
  const dir = await tempDir({ 'queueport.config.json': config });
  cleanup.push(dir.remove);
  return dir;
}

/** A memory adapter under its own scheme that counts every open: nothing may be opened before the check. */
function spyAdapter() {
  const opened: string[] = [];
  const adapter = defineAdapter({
    scheme: 'spy',
    packageName: 'spy-adapter',
    virtualClock: false,
    open: (url, context) => {
      opened.push(url.href);
      return memoryAdapter.open(new URL(`memory://${url.host}`), context);
    },
    admin: (_url, context) => memoryAdapter.admin!(new URL('memory://'), context),
  });
  return { adapter, opened };
}

async function run(argv: string[], config: object | string, env: Record<string, string> = {}) {
  const dir = await project(config);
  const spy = spyAdapter();
  const io = testIo({ cwd: dir.dir, env });
  const code = await main([...argv, '--junit', 'report.xml'], io, { adapters: [spy.adapter] });
  return { code, err: io.err(), out: io.out(), opened: spy.opened, dir };
}

const spy = () => ({ a: { url: `spy://${uniqueQueue('a')}` }, b: { url: `spy://${uniqueQueue('b')}` } });
const sqlite = { sqlite: 'ledger.db' };
const receiver = { url: 'https://receiver.example/hook' };

describe('a configuration mistake is found at load, exit 2, before anything is opened or published', () => {
  it.each([
    [
      'migrate without a receiver',
      ['migrate', '--from', 'a', '--to', 'b'],
      { providers: spy(), ledger: sqlite },
      /\(receiver\): migrate delivers its canary events to a receiver/,
    ],
    [
      'migrate with receiver.secretEnv unset',
      ['migrate', '--from', 'a', '--to', 'b'],
      { providers: spy(), ledger: sqlite, receiver: { ...receiver, secretEnv: 'NOT_SET_SIGNING' } },
      /\(receiver\.secretEnv\): names the environment variable NOT_SET_SIGNING, which is not set/,
    ],
    [
      'migrate with ledger.postgresUrlEnv unset',
      ['migrate', '--from', 'a', '--to', 'b'],
      { providers: spy(), ledger: { postgresUrlEnv: 'NOT_SET_DB' }, receiver },
      /\(ledger\.postgresUrlEnv\): names the environment variable NOT_SET_DB, which is not set/,
    ],
    [
      'migrate --rollback without a ledger',
      ['migrate', '--to', 'b', '--rollback'],
      { providers: spy() },
      /\(ledger\): no ledger is configured/,
    ],
    [
      'reconcile with ledger.postgresUrlEnv unset',
      ['reconcile', '--provider', 'a', '--enqueue-scan'],
      { providers: spy(), ledger: { postgresUrlEnv: 'NOT_SET_DB' } },
      /names the environment variable NOT_SET_DB, which is not set/,
    ],
    [
      'ledger show with ledger.postgresUrlEnv unset',
      ['ledger', 'show', 'evt_1'],
      { providers: spy(), ledger: { postgresUrlEnv: 'NOT_SET_DB' } },
      /names the environment variable NOT_SET_DB, which is not set/,
    ],
    [
      'a bullmq:// passwordEnv unset',
      ['dlq', 'list', '--provider', 'r'],
      { providers: { r: { url: 'bullmq://127.0.0.1:1/q?passwordEnv=NOT_SET_REDIS_PW' } } },
      /\(providers\.r\.url\): names the environment variable NOT_SET_REDIS_PW, which is not set/,
    ],
    [
      'an infrai:// URL without its key (INFRAI_API_KEY by default)',
      ['dlq', 'list', '--provider', 'i'],
      { providers: { i: { url: 'infrai://127.0.0.1:1/q?tls=false' } } },
      /\(providers\.i\.url\): names the environment variable INFRAI_API_KEY, which is not set/,
    ],
    [
      'a bullmq:// option typo (prefx)',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { ...spy(), r: { url: 'bullmq://127.0.0.1:1/q?prefx=bull' } } },
      /\(providers\.r\.url\): bullmq:\/\/ URLs take no option "prefx"/,
    ],
    [
      'a memory:// option typo',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { ...spy(), m: { url: 'memory://q?maxReceive=3' } } },
      /\(providers\.m\.url\): memory:\/\/ URLs take no option "maxReceive"/,
    ],
    [
      'an sqs:// option typo',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { ...spy(), s: { url: 'sqs://eu-west-1/q?endpont=http://127.0.0.1:1' } } },
      // Whether the name is quoted is the adapter's call (a name may be a pasted secret).
      /\(providers\.s\.url\): .*sqs:\/\/ URL.* (no option|option it does not take)/,
    ],
    [
      'drill without a receiver',
      ['drill', '--skip-conformance'],
      { providers: spy(), ledger: sqlite },
      /\(receiver\): the drill delivers its synthetic event to a receiver/,
    ],
    [
      'drill without a ledger',
      ['drill', '--skip-conformance'],
      { providers: spy(), receiver },
      /\(ledger\): no ledger is configured/,
    ],
    [
      'drill with ledger.postgresUrlEnv unset',
      ['drill', '--skip-conformance', '--provider', 'a'],
      { providers: spy(), ledger: { postgresUrlEnv: 'NOT_SET_DB' }, receiver },
      /\(ledger\.postgresUrlEnv\): names the environment variable NOT_SET_DB, which is not set/,
    ],
    [
      'drill with a bullmq:// passwordEnv unset (every provider by default)',
      ['drill', '--skip-conformance'],
      {
        providers: { ...spy(), r: { url: 'bullmq://127.0.0.1:1/q?passwordEnv=NOT_SET_REDIS_PW' } },
        ledger: sqlite,
        receiver,
      },
      /\(providers\.r\.url\): names the environment variable NOT_SET_REDIS_PW, which is not set/,
    ],
    [
      'drill with receiver.secretEnv unset',
      ['drill', '--skip-conformance'],
      { providers: spy(), ledger: sqlite, receiver: { ...receiver, secretEnv: 'NOT_SET_SIGNING' } },
      /\(receiver\.secretEnv\): names the environment variable NOT_SET_SIGNING, which is not set/,
    ],
    [
      'conformance with a bullmq:// passwordEnv unset',
      ['conformance', '--provider', 'r', '--quick'],
      { providers: { r: { url: 'bullmq://127.0.0.1:1/q?passwordEnv=NOT_SET_REDIS_PW' } } },
      /\(providers\.r\.url\): names the environment variable NOT_SET_REDIS_PW, which is not set/,
    ],
    [
      'conformance with an unknown provider',
      ['conformance', '--provider', 'nowhere', '--quick'],
      { providers: spy() },
      /--provider: no provider named "nowhere"; configured: a, b/,
    ],
    [
      'an infrai:// value it refuses',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { ...spy(), i: { url: 'infrai://127.0.0.1:1/q?timeoutMs=soon' } } },
      /\(providers\.i\.url\): infrai:\/\/ option timeoutMs is invalid/,
    ],
  ])('%s', async (_name, argv, config, message) => {
    const result = await run(argv, config);
    expect(result.code, result.err).toBe(EXIT.usage);
    expect(result.err).toMatch(message);
    expect(result.opened).toEqual([]);
  });

  it('names the configuration mistake in --json', async () => {
    const dir = await project({ providers: spy(), ledger: sqlite });
    const io = testIo({ cwd: dir.dir });
    const code = await main(['migrate', '--from', 'a', '--to', 'b', '--json'], io, {
      adapters: [spyAdapter().adapter],
    });
    expect(code).toBe(EXIT.usage);
    expect(JSON.parse(io.out())).toMatchObject({ ok: false, error: { kind: 'config', field: 'receiver' } });
  });

  it('accepts a configuration file that starts with a UTF-8 byte order mark', async () => {
    const dir = await project(`\uFEFF${JSON.stringify({ providers: { main: { url: 'memory://bom' } } })}`);
    const loaded = await loadConfig({ cwd: dir.dir });
    expect(loaded.config.providers.main?.url).toBe('memory://bom');
  });
});

describe('a secret typed where a name goes is never echoed', () => {
  it.each([
    ['as the --provider value', ['dlq', 'list', '--provider', TOKEN], { providers: spy() }],
    ['as --from and --to', ['migrate', '--from', TOKEN, '--to', TOKEN], { providers: spy() }],
    ['as --to of a rollback', ['migrate', '--to', TOKEN, '--rollback'], { providers: spy(), ledger: sqlite }],
    ["as the drill's --provider", ['drill', '--provider', TOKEN], { providers: spy() }],
    ['as the conformance --provider', ['conformance', '--provider', TOKEN], { providers: spy() }],
    ['as a dlq subcommand', ['dlq', TOKEN, '--provider', 'a'], { providers: spy() }],
    [
      'as a provider name',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { [TOKEN]: { url: 'memory://q' } } },
    ],
    ['as a scheme', ['dlq', 'list', '--provider', 'a'], { providers: { a: { url: `${TOKEN}://q` } } }],
    [
      'as a memory:// option name',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { a: { url: `memory://q?${TOKEN}=1` } } },
    ],
    [
      'as a memory:// option value',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { a: { url: `memory://q?ordering=${TOKEN}` } } },
    ],
    [
      'as a bullmq:// db',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { a: { url: `bullmq://127.0.0.1:1/q?db=${TOKEN}` } } },
    ],
    [
      'as an sqs:// region',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { a: { url: `sqs://${TOKEN}/q` } } },
    ],
    [
      'as an infrai:// queue name',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { a: { url: `infrai://h/${TOKEN}.x` } } },
    ],
    [
      'as the variable a passwordEnv names',
      ['dlq', 'list', '--provider', 'a'],
      { providers: { a: { url: `bullmq://127.0.0.1:1/q?passwordEnv=${TOKEN}` } } },
    ],
  ])('%s', async (_name, argv, config) => {
    const dir = await project(config);
    for (const json of [false, true]) {
      const io = testIo({ cwd: dir.dir });
      const code = await main([...argv, ...(json ? ['--json'] : [])], io, {
        adapters: [spyAdapter().adapter],
      });
      expect(code, io.err()).toBe(EXIT.usage);
      expect(io.err()).not.toContain(TOKEN);
      expect(io.out()).not.toContain(TOKEN);
      // Refused for what it is, not for a missing adapter.
      expect(io.err()).not.toMatch(/no adapter knows "spy/);
    }
  });
});
