/**
 * Configuration files through the CLI's loader: JSON of the configuration's shape with hostile
 * keys and values (a token planted per case in a key, a provider name, a URL, an env name, or a
 * value), raw text that is not quite JSON (a byte order mark, truncation, other JSON types,
 * deep nesting), and now and then the same as a `.mjs` module. Each load ends in a
 * configuration, or a ConfigError (exit 2); an accepted one is then checked for what a command
 * needs (`requireConfig`), which ends the same way or in a UsageError. A refused file run
 * through `main` exits 2. No message names the token in any form. Nothing is opened: the
 * check connects to nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { CommandContext } from '../../../packages/cli/src/command-context';
import type { LoadedConfig } from '../../../packages/cli/src/config/config-types';
import { loadConfig } from '../../../packages/cli/src/config/load-config';
import { requireConfig } from '../../../packages/cli/src/config/require-config';
import { ConfigError, UsageError } from '../../../packages/cli/src/errors';
import type { CliIo } from '../../../packages/cli/src/io';
import { main } from '../../../packages/cli/src/main';
import { oddString } from '../arbitraries';
import { afterTarget, check, classifyOutcome, labelled, recordOutcome, unlabelled } from '../context';
import type { FuzzTarget } from './fuzz-target';

const tokenArb = fc.stringMatching(/^[0-9a-f]{24}$/).map((hex) => `tk${hex}`);

function formsOf(token: string): string[] {
  return [
    token,
    token.toUpperCase(),
    Buffer.from(token).toString('base64'),
    Buffer.from(token).toString('base64url'),
    [...token].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
  ];
}

/** A piece of the configuration, where `T` stands for the planted token. */
const T = '@@TOKEN@@';

const urlArb = fc.oneof(
  fc.constantFrom(
    'memory://orders',
    'memory://orders?maxReceives=5',
    'memory://orders?prefx=1',
    `memory://${T}`,
    `memory://q?${T}=1`,
    `memory://q?ordering=${T}`,
    'bullmq://127.0.0.1:6379/orders?prefix=bull',
    'bullmq://127.0.0.1:6379/orders?prefx=bull',
    'bullmq://127.0.0.1:6379/orders?passwordEnv=REDIS_PW',
    `bullmq://127.0.0.1:6379/orders?passwordEnv=${T}`,
    `bullmq://127.0.0.1:6379/orders?db=${T}`,
    `bullmq://${T}@127.0.0.1/q`,
    `bullmq://u:${T}@127.0.0.1/q`,
    'sqs://eu-west-1/orders',
    `sqs://${T}/orders`,
    `sqs://eu-west-1/orders?endpoint=http://${T}@127.0.0.1:1`,
    'infrai://api.infrai.cc/orders?keyEnv=INFRAI_KEY',
    `infrai://api.infrai.cc/orders?keyEnv=${T}`,
    `infrai://api.infrai.cc/orders?region=${T}`,
    `infrai://api.infrai.cc/${T}`,
    `${T}://q`,
    `x${T}://q`,
    `memory://q#${T}`,
    `memory://q?token=${T}`,
    `memory://q?apiKey=${T}`,
    'not a url',
    '',
    'memory://',
    'http://example.com',
  ),
  oddString,
);

const envNameArb = fc.oneof(
  fc.constantFrom(
    'DATABASE_URL',
    'SIGNING_SECRET',
    'NOT_SET',
    T,
    `ifr_${T}`,
    'postgres://u:p@h/d',
    '1ABC',
    '',
  ),
  oddString,
);

const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    T,
    `whsec_${T}`,
    `Bearer ${T}`,
    `ifr_${T}`,
    true,
    false,
    null,
    0,
    -1,
    Number.POSITIVE_INFINITY,
    '',
    [],
  ),
  oddString,
  fc.integer(),
);

const keyArb = fc.oneof(
  fc.constantFrom(T, '__proto__', 'constructor', 'apiKey', 'password', 'secret', 'token', 'prefx', '', 'ü'),
  oddString,
);

const providerNameArb = fc.oneof(
  fc.constantFrom('main', 'primary', 'a', 'b', 'next', T, `x${T}`, '-x', '', 'a b', '__proto__'),
  oddString,
);

const providersArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .array(
        fc.tuple(
          providerNameArb,
          fc.oneof(
            { weight: 8, arbitrary: urlArb.map((url) => ({ url })) },
            { weight: 1, arbitrary: fc.record({ url: urlArb, extra: valueArb }) },
            { weight: 1, arbitrary: valueArb },
          ),
        ),
        { maxLength: 3 },
      )
      .map((entries) => Object.fromEntries(entries)),
  },
  { weight: 1, arbitrary: valueArb },
);

const ledgerArb = fc.oneof(
  fc.record({ sqlite: fc.oneof(fc.constantFrom('ledger.db', `${T}.db`, 'sqlite://x'), oddString) }),
  fc.record({ postgresUrlEnv: envNameArb }),
  fc.record({ sqlite: fc.constant('a.db'), postgresUrlEnv: envNameArb }),
  valueArb,
);

const receiverArb = fc.oneof(
  fc.record(
    {
      url: fc.oneof(
        fc.constantFrom(
          'https://receiver.example/hook',
          'http://127.0.0.1:1/hook',
          `https://${T}@receiver.example/`,
          `https://receiver.example/hook?sig=${T}`,
          `https://receiver.example/${T}`,
          'ftp://x',
        ),
        oddString,
      ),
      secretEnv: envNameArb,
      allowInsecure: fc.oneof(fc.boolean(), valueArb),
    },
    { requiredKeys: ['url'] },
  ),
  valueArb,
);

const configArb = fc.record(
  {
    providers: providersArb,
    ledger: ledgerArb,
    receiver: receiverArb,
    payloadLoader: fc.oneof(fc.constantFrom('./loader.mjs', T), valueArb),
    $schema: fc.constant('./schema.json'),
    extra: fc.dictionary(keyArb, valueArb, { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);

/** A configuration a person would write, with the token in one of the places it is taken. */
const plausibleArb = fc.record(
  {
    providers: fc
      .array(
        fc.tuple(
          fc.constantFrom('main', 'next', 'a', 'b'),
          fc.constantFrom(
            'memory://orders',
            'memory://orders?maxReceives=5',
            `memory://${T}`,
            'bullmq://127.0.0.1:6379/orders?passwordEnv=REDIS_PW',
            `bullmq://127.0.0.1:6379/orders?passwordEnv=${T}`,
            `bullmq://127.0.0.1:6379/${T}`,
            'sqs://eu-west-1/orders',
            `sqs://eu-west-1/${T}`,
            'infrai://api.infrai.cc/orders?keyEnv=INFRAI_KEY',
            'infrai://api.infrai.cc/orders',
            `infrai://api.infrai.cc/orders?keyEnv=${T}`,
          ),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((entries) => Object.fromEntries(entries.map(([name, url]) => [name, { url }]))),
    ledger: fc.constantFrom(
      { sqlite: 'ledger.db' },
      { postgresUrlEnv: 'DATABASE_URL' },
      { postgresUrlEnv: T },
    ),
    receiver: fc.constantFrom(
      { url: 'https://receiver.example/hook' },
      { url: 'https://receiver.example/hook', secretEnv: 'SIGNING_SECRET' },
      { url: 'https://receiver.example/hook', secretEnv: T },
      { url: 'http://127.0.0.1:1/hook', allowInsecure: true },
    ),
  },
  { requiredKeys: ['providers'] },
);

type FileCase =
  | { kind: 'json'; config: unknown; bom: boolean }
  | { kind: 'text'; text: string }
  | { kind: 'mjs'; config: unknown };

const fileArb: fc.Arbitrary<FileCase> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('json' as const), config: configArb, bom: fc.boolean() }),
  },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('json' as const), config: plausibleArb, bom: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.oneof(
        configArb.map((config) => JSON.stringify(config).slice(0, -1)),
        configArb.map((config) => `${JSON.stringify(config)} trailing ${T}`),
        configArb.map((config) => `{"a": ${T}, ${JSON.stringify(config).slice(1)}`),
        fc.constantFrom(
          '',
          '\uFEFF',
          'null',
          '[]',
          '"x"',
          '1',
          `{"${T}": 1`,
          `{"providers": {"${T}": }}`,
          '{'.repeat(5000),
        ),
        fc.nat({ max: 3000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
        oddString,
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('mjs' as const), config: plausibleArb }) },
);

/** The case's text with the token put in, everywhere `T` stands. */
function plant(text: string, token: string): string {
  return text.split(T).join(token);
}

const quietIo = (cwd: string, env: Record<string, string>): CliIo & { text(): string } => {
  let out = '';
  return {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      out += t;
    },
    isTTY: false,
    env,
    cwd,
    now: () => performance.now(),
    text: () => out,
  };
};

let root: string | undefined;
let counter = 0;

function expectNoToken(text: string, token: string, where: string): void {
  for (const form of formsOf(token))
    check(!text.includes(form), `${where} echoed the planted token: ${text.slice(0, 300)}`);
}

async function runCase(
  file: FileCase,
  token: string,
  env: Record<string, string>,
  needs: number,
): Promise<void> {
  root ??= await mkdtemp(path.join(tmpdir(), 'queueport-fuzz-config-'));
  const dir = path.join(root, String(counter++));
  const name = file.kind === 'mjs' ? 'queueport.config.mjs' : 'queueport.config.json';
  const text =
    file.kind === 'text'
      ? plant(file.text, token)
      : file.kind === 'mjs'
        ? `export default ${plant(JSON.stringify(file.config ?? null), token)};\n`
        : `${file.bom ? '\uFEFF' : ''}${plant(JSON.stringify(file.config ?? null), token)}`;
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, name), text);
  const plantedEnv = Object.fromEntries(
    Object.entries(env).map(([k, v]) => [plant(k, token), plant(v, token)]),
  );

  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig({ cwd: dir });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expectNoToken(error.message, token, 'loading the configuration');
    recordOutcome(labelled('load', 'ConfigError'));
    // What a person sees: main refuses with exit 2, nothing else.
    if (counter % 8 === 0) {
      const io = quietIo(dir, plantedEnv);
      const code = await main(['ledger', 'show', 'evt_1'], io);
      check(code === 2, `main exited ${code} on a configuration refused at load`);
      expectNoToken(io.text(), token, 'main on a refused configuration');
    }
    return;
  }
  recordOutcome(labelled('load', 'accepted'));
  const names = Object.keys(loaded.config.providers);
  const context: CommandContext = {
    io: quietIo(dir, plantedEnv),
    configPath: undefined,
    config: async () => loaded,
    openProvider: () => Promise.reject(new Error('nothing is opened here')),
    openLedger: () => Promise.reject(new Error('nothing is opened here')),
    progress: () => {},
    signal: new AbortController().signal,
  } as CommandContext;
  try {
    await requireConfig(context, {
      providers: [
        ...names.slice(0, needs % 3).map((each) => ({ name: each, flag: '--provider' })),
        ...(needs % 5 === 0 ? [{ name: plant(`x${T}`, token), flag: '--provider' }] : []),
      ],
      ledger: needs % 2 === 0,
      ...(needs % 3 === 0 ? { receiver: 'the command delivers to a receiver' } : {}),
    });
    recordOutcome(labelled('require', 'accepted'));
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof UsageError)) throw error;
    expectNoToken(error.message, token, 'checking what a command needs');
    recordOutcome(labelled('require', error.name));
  } finally {
    await loaded.close();
  }
}

export const targets: FuzzTarget[] = [
  {
    name: 'cli-config',
    minCases: 1_000,
    classify: (outcome) => {
      const inner = unlabelled(outcome);
      return typeof inner === 'string'
        ? classifyOutcome(outcome).replace(/ok$/, inner)
        : classifyOutcome(outcome);
    },
    property: () => {
      afterTarget(async () => {
        if (root) await rm(root, { recursive: true, force: true });
        root = undefined;
      });
      return fc.asyncProperty(
        fileArb,
        tokenArb,
        fc.dictionary(
          fc.constantFrom('DATABASE_URL', 'SIGNING_SECRET', 'REDIS_PW', 'INFRAI_KEY', T),
          fc.constantFrom('postgres://u:p@127.0.0.1:1/d', 'whsec_abc', T, '', 'x'),
        ),
        fc.nat({ max: 29 }),
        runCase,
      );
    },
  },
];
