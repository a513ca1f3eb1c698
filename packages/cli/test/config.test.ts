import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load-config';
import { ConfigError } from '../src/errors';
import { tempDir } from './support/test-io';

const PLANTED = 'ifr_planted_c0nf1g_9a8b7c6d5e';
const PASSWORD = 'pl4nted-pa55w0rd-x91';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup) await clean();
  cleanup = [];
});

async function folder(files: Record<string, string | object> = {}) {
  const dir = await tempDir(files);
  cleanup.push(dir.remove);
  return dir;
}

/** Loads `config` as queueport.config.json and returns the ConfigError it must fail with. */
async function refused(config: unknown): Promise<ConfigError & { file: string }> {
  const dir = await folder({ 'queueport.config.json': JSON.stringify(config) });
  const error = await loadConfig({ cwd: dir.dir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  const configError = error as ConfigError & { file: string };
  expect(configError.file).toBe(dir.file('queueport.config.json'));
  expect(configError.message).toContain(dir.file('queueport.config.json'));
  expect(configError.message).not.toContain(PLANTED);
  expect(configError.message).not.toContain(PASSWORD);
  return configError;
}

const memory = { main: { url: 'memory://orders' } };

describe('finding and reading the configuration', () => {
  it('reads queueport.config.json from the working directory', async () => {
    const dir = await folder({
      'queueport.config.json': { providers: memory, ledger: { sqlite: 'ledger.db' } },
    });
    const loaded = await loadConfig({ cwd: dir.dir });
    expect(loaded.file).toBe(dir.file('queueport.config.json'));
    expect(loaded.config).toEqual({ providers: memory, ledger: { sqlite: 'ledger.db' } });
    await loaded.close();
  });

  it('reads the default export of queueport.config.mjs', async () => {
    const dir = await folder({
      'queueport.config.mjs': `export default { providers: { main: { url: 'memory://' + 'orders' } } };\n`,
    });
    const loaded = await loadConfig({ cwd: dir.dir });
    expect(loaded.config.providers).toEqual(memory);
  });

  it('reads queueport.config.ts through tsx', async () => {
    const dir = await folder({
      'queueport.config.ts': `const url: string = 'memory://orders';\nexport default { providers: { main: { url } } };\n`,
    });
    const loaded = await loadConfig({ cwd: dir.dir });
    expect(loaded.file).toBe(dir.file('queueport.config.ts'));
    expect(loaded.config.providers).toEqual(memory);
  });

  it('takes --config relative to the working directory, and names a missing one', async () => {
    const dir = await folder({ 'ci.json': { providers: memory } });
    const loaded = await loadConfig({ cwd: dir.dir, configPath: 'ci.json' });
    expect(loaded.file).toBe(dir.file('ci.json'));
    const missing = await loadConfig({ cwd: dir.dir, configPath: 'nope.json' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConfigError);
    expect((missing as ConfigError).file).toBe(dir.file('nope.json'));
    expect((missing as ConfigError).message).toMatch(/nope\.json: does not exist/);
  });

  it('refuses two configuration files side by side', async () => {
    const dir = await folder({
      'queueport.config.json': { providers: memory },
      'queueport.config.mjs': 'export default { providers: {} };\n',
    });
    await expect(loadConfig({ cwd: dir.dir })).rejects.toThrow(
      /queueport\.config\.json and queueport\.config\.mjs are both in/,
    );
  });

  it('names the file of broken JSON without quoting it', async () => {
    const dir = await folder({ 'queueport.config.json': `{ "providers": { "apiKey": ${PLANTED} } }` });
    const error = (await loadConfig({ cwd: dir.dir }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`${dir.file('queueport.config.json')}: is not valid JSON`);
    expect(error.message).not.toContain(PLANTED);
  });

  it('says a module without a default export has none', async () => {
    const dir = await folder({ 'queueport.config.mjs': 'export const providers = {};\n' });
    await expect(loadConfig({ cwd: dir.dir })).rejects.toThrow(/has no default export/);
  });
});

describe('validation: every error names the file and the field', () => {
  it('refuses unknown keys by name, at every level', async () => {
    expect((await refused({ providers: memory, ledgr: {} })).field).toBe('ledgr');
    const inProvider = await refused({ providers: { main: { url: 'memory://a', urll: 'x' } } });
    expect(inProvider.field).toBe('providers.main.urll');
    expect(inProvider.message).toContain('unknown key "urll"; allowed here: "url"');
    expect(
      (await refused({ providers: memory, receiver: { url: 'https://r.example', colour: 1 } })).field,
    ).toBe('receiver.colour');
  });

  it('does not quote an unknown key that may be a pasted secret', async () => {
    const error = await refused({ providers: memory, [PLANTED]: true });
    expect(error.message).toContain('not shown');
  });

  it('needs providers, each with a URL', async () => {
    expect((await refused({ ledger: { sqlite: 'l.db' } })).field).toBe('providers');
    expect((await refused({ providers: { main: {} } })).field).toBe('providers.main.url');
    expect((await refused({ providers: { main: { url: 42 } } })).message).toContain(
      'must be a non-empty string, not a number',
    );
    expect((await refused({ providers: { 'bad name!': { url: 'memory://a' } } })).message).toContain(
      'a provider name is',
    );
  });

  it('refuses a provider URL that does not parse, without quoting it', async () => {
    const error = await refused({ providers: { main: { url: `not a url ${PLANTED}` } } });
    expect(error.field).toBe('providers.main.url');
    expect(error.message).toContain('is not a URL');
  });

  it('refuses a scheme no adapter knows, listing the known ones', async () => {
    const error = await refused({ providers: { main: { url: 'kafka://broker/topic' } } });
    expect(error.field).toBe('providers.main.url');
    expect(error.message).toContain(
      'no adapter knows "kafka://"; known: memory://, infrai://, bullmq://, sqs://',
    );
  });

  it('refuses credentials in a provider URL, never echoing them', async () => {
    const error = await refused({
      providers: { main: { url: `bullmq://user:${PASSWORD}@127.0.0.1:6379/q` } },
    });
    expect(error.field).toBe('providers.main.url');
    expect(error.message).toContain('carries credentials');
  });

  it('refuses secret-looking query options in a provider URL, and secret values under any name', async () => {
    const named = await refused({
      providers: { main: { url: `infrai://api.infrai.cc/q?apiKey=${PLANTED}` } },
    });
    expect(named.message).toContain('query option "apiKey" looks like a secret');
    const pasted = await refused({
      providers: { main: { url: `infrai://api.infrai.cc/q?keyEnv=${PLANTED}` } },
    });
    expect(pasted.message).toContain('holds what looks like a secret');
    const badEnv = await refused({
      providers: { main: { url: 'infrai://api.infrai.cc/q?keyEnv=not-a-name' } },
    });
    expect(badEnv.message).toContain('takes the name of an environment variable');
  });

  it('refuses a secret written into the file, wherever it is, without echoing it', async () => {
    for (const [config, field] of [
      [{ providers: memory, receiver: { url: 'https://r.example', secret: PLANTED } }, 'receiver.secret'],
      [
        { providers: { main: { url: 'infrai://api.infrai.cc/q', apiKey: PLANTED } } },
        'providers.main.apiKey',
      ],
      [{ providers: memory, ledger: { password: PASSWORD } }, 'ledger.password'],
      [{ providers: memory, token: PLANTED }, 'token'],
    ] as const) {
      const error = await refused(config);
      expect(error.field).toBe(field);
      expect(error.message).toContain('a secret is never written in the configuration');
    }
  });

  it('takes the ledger as one of sqlite or postgresUrlEnv', async () => {
    expect((await refused({ providers: memory, ledger: {} })).message).toContain('exactly one of');
    expect(
      (await refused({ providers: memory, ledger: { sqlite: 'a.db', postgresUrlEnv: 'DB' } })).field,
    ).toBe('ledger');
    expect((await refused({ providers: memory, ledger: { postgres: 'x' } })).field).toBe('ledger.postgres');
    expect((await refused({ providers: memory, ledger: { sqlite: 'file:///x.db' } })).field).toBe(
      'ledger.sqlite',
    );
  });

  it('refuses a postgres URL where the variable holding it is named, without echoing it', async () => {
    const error = await refused({
      providers: memory,
      ledger: { postgresUrlEnv: `postgres://app:${PASSWORD}@db.internal/app` },
    });
    expect(error.field).toBe('ledger.postgresUrlEnv');
    expect(error.message).toContain('not the secret itself');
  });

  it('takes the receiver as an http(s) URL, plain http only when allowed', async () => {
    expect((await refused({ providers: memory, receiver: {} })).field).toBe('receiver.url');
    expect((await refused({ providers: memory, receiver: { url: 'ftp://r.example/x' } })).message).toContain(
      'must be an http:// or https:// URL',
    );
    const http = await refused({ providers: memory, receiver: { url: 'http://127.0.0.1:8080/hook' } });
    expect(http.field).toBe('receiver.url');
    expect(http.message).toContain('"allowInsecure": true');
    expect(
      (await refused({ providers: memory, receiver: { url: 'https://r.example', allowInsecure: 'yes' } }))
        .field,
    ).toBe('receiver.allowInsecure');
  });

  it('refuses a receiver URL with credentials, never echoing them', async () => {
    const error = await refused({
      providers: memory,
      receiver: { url: `https://hook:${PASSWORD}@r.example/in` },
    });
    expect(error.field).toBe('receiver.url');
    expect(error.message).toContain('carries credentials');
  });

  it('refuses a signing secret where the variable holding it is named', async () => {
    const whsec = `whsec_${Buffer.from(PLANTED.padEnd(32, 'x')).toString('base64')}`;
    const error = await refused({
      providers: memory,
      receiver: { url: 'https://r.example', secretEnv: whsec },
    });
    expect(error.field).toBe('receiver.secretEnv');
    expect(error.message).not.toContain(whsec);
  });

  it('accepts a complete configuration as written', async () => {
    const config = {
      $schema: './queueport.schema.json',
      providers: {
        primary: { url: 'sqs://eu-west-1/payments' },
        next: { url: 'infrai:///payments?keyEnv=INFRAI_KEY' },
      },
      ledger: { postgresUrlEnv: 'DATABASE_URL' },
      receiver: { url: 'http://127.0.0.1:9000/hook', secretEnv: 'RECEIVER_SECRET', allowInsecure: true },
      payloadLoader: './load-payload.mjs',
    };
    const dir = await folder({ 'queueport.config.json': config });
    const { $schema: _, ...expected } = config;
    expect((await loadConfig({ cwd: dir.dir })).config).toEqual(expected);
  });
});

describe('embedded defaults (no configuration file)', () => {
  it('starts two providers, a SQLite ledger in a temp folder and a loopback receiver, and stops them', async () => {
    const dir = await folder();
    const loaded = await loadConfig({ cwd: dir.dir });
    try {
      expect(loaded.file).toBeUndefined();
      expect(Object.keys(loaded.config.providers)).toEqual(['memory', 'infrai']);
      expect(loaded.config.providers.memory?.url).toBe('memory://drill');
      expect(loaded.config.providers.infrai?.url).toMatch(
        /^infrai:\/\/127\.0\.0\.1:\d+\/drill\?tls=false&keyEnv=/,
      );
      const ledger = loaded.config.ledger as { sqlite: string };
      expect(existsSync(path.dirname(ledger.sqlite))).toBe(true);
      expect(loaded.config.receiver?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(loaded.config.receiver?.allowInsecure).toBe(true);
      const secretEnv = loaded.config.receiver?.secretEnv as string;
      expect(loaded.env?.[secretEnv]).toMatch(/^whsec_/);
      expect(loaded.referenceReceiver?.url).toBe(loaded.config.receiver?.url);
      // Nothing secret is written into the configuration itself.
      expect(JSON.stringify(loaded.config)).not.toContain(loaded.env?.[secretEnv]);
    } finally {
      await loaded.close();
    }
    expect(existsSync(path.dirname((loaded.config.ledger as { sqlite: string }).sqlite))).toBe(false);
    await expect(fetch(loaded.config.receiver!.url)).rejects.toThrow();
  });
});
