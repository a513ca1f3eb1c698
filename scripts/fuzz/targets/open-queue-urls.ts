/**
 * Queue URLs on every scheme (memory, bullmq, sqs, infrai) through the CLI's registry: the
 * configuration check (validateConfig, then each adapter's own parser), the adapter the CLI
 * loads by scheme, its URL check, and for some cases an open through the CLI's command context.
 * Hosts, ports, userinfo, paths, options and fragments are hostile, and a token planted per case
 * sits somewhere in the URL, raw or encoded. Every refusal is typed (a QueueError, or the CLI's
 * ConfigError), and no message, detail or cause names the token in any form.
 *
 * Nothing is connected to but loopback: opens of bullmq://, sqs:// and infrai:// go to a loopback
 * port nothing listens on (for sqs://, its endpoint=), rewritten so after the URL passed its
 * checks; every other case stays on the parse-only path. memory:// opens in this process.
 */
import net from 'node:net';
import fc from 'fast-check';
import { checkProviderUrls } from '../../../packages/cli/src/config/check-provider-urls';
import type { LoadedConfig } from '../../../packages/cli/src/config/config-types';
import { validateConfig } from '../../../packages/cli/src/config/validate-config';
import { createCommandContext } from '../../../packages/cli/src/context';
import { ConfigError } from '../../../packages/cli/src/errors';
import type { CliIo } from '../../../packages/cli/src/io';
import { checkAdapterUrl, loadAdapter } from '../../../packages/cli/src/providers/known-adapters';
import { oddString } from '../arbitraries';
import {
  afterTarget,
  check,
  classifyOutcome,
  isTypedError,
  labelled,
  recordOutcome,
  unlabelled,
} from '../context';
import type { FuzzTarget } from './fuzz-target';

const SCHEMES = ['memory', 'bullmq', 'sqs', 'infrai'] as const;

/** Lone surrogates replaced, so encodeURIComponent takes it (Node 20 has toWellFormed; the lib types may not). */
function wellFormed(text: string): string {
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}
type Scheme = (typeof SCHEMES)[number];

const OPTIONS: Record<Scheme, readonly string[]> = {
  memory: [
    'dedupe',
    'ordering',
    'fractionalDelay',
    'retentionSeconds',
    'batchMax',
    'maxReceives',
    'nativeMaxDelaySeconds',
  ],
  bullmq: [
    'db',
    'prefix',
    'tls',
    'username',
    'passwordEnv',
    'dedupeWindowSeconds',
    'stalledIntervalMs',
    'maxBodyBytes',
  ],
  sqs: ['endpoint', 'defaultGroupId', 'nativeMaxDelaySeconds', 'maxBodyBytes', 'timeoutMs'],
  infrai: ['region', 'keyEnv', 'tls', 'timeoutMs', 'dedupeWindowSeconds'],
};

/** A value each option takes, so a plausible URL gets past the parsers to where the token sits. */
const GOOD_VALUES: Record<string, string> = {
  dedupe: 'window:300',
  ordering: 'fifo-per-group',
  fractionalDelay: 'true',
  retentionSeconds: '60',
  batchMax: '10',
  maxReceives: '5',
  nativeMaxDelaySeconds: '900',
  db: '1',
  prefix: 'bull',
  tls: 'false',
  username: 'app',
  passwordEnv: 'REDIS_PASSWORD',
  dedupeWindowSeconds: '60',
  stalledIntervalMs: '250',
  maxBodyBytes: '65536',
  endpoint: 'http://127.0.0.1:1',
  defaultGroupId: 'tenant',
  timeoutMs: '1000',
  region: 'eu-west',
  keyEnv: 'INFRAI_API_KEY',
};

const PLAUSIBLE_HOST: Record<Scheme, string> = {
  memory: '',
  bullmq: 'redis.internal:6380',
  sqs: 'eu-west-1',
  infrai: 'api.infrai.cc',
};

/** The planted secret: looks generated, as keys do. Unique per case. */
const tokenArb = fc.stringMatching(/^[0-9a-f]{24}$/).map((hex) => `tk${hex}`);

/** Where and how the token is planted. */
type Encoding = 'raw' | 'percent' | 'upper' | 'base64' | 'ifr';
const encodingArb = fc.constantFrom<Encoding>('raw', 'percent', 'upper', 'base64', 'ifr');

function encode(token: string, encoding: Encoding): string {
  switch (encoding) {
    case 'raw':
      return token;
    case 'percent':
      return [...token].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    case 'upper':
      return token.toUpperCase();
    case 'base64':
      return Buffer.from(token).toString('base64url');
    case 'ifr':
      return `ifr_${token}`;
  }
}

/** Every form of the token an error must not carry. */
function formsOf(token: string): string[] {
  return [
    token,
    token.toUpperCase(),
    Buffer.from(token).toString('base64url'),
    Buffer.from(token).toString('base64'),
    encode(token, 'percent'),
  ];
}

const SLOTS = [
  'none',
  'scheme',
  'user',
  'password',
  'host',
  'port',
  'path',
  'optionName',
  'optionValue',
  'fragment',
] as const;
type Slot = (typeof SLOTS)[number];

const hostArb = fc.oneof(
  fc.constantFrom(
    '127.0.0.1',
    'localhost',
    '[::1]',
    'eu-west-1',
    'us-east-1',
    'sqs.eu-west-1.amazonaws.com',
    'api.infrai.cc',
    'orders',
    '',
    'a..b',
    '%41',
    '%zz',
    'xn--nxasmq6b',
    '例え',
    '0x7f.1',
    '999.999.999.999',
    '[::ffff:127.0.0.1]',
    'h'.repeat(300),
    '-',
    '_',
  ),
  fc.domain(),
  oddString.map((s) => encodeURIComponent(wellFormed(s))),
);

const portArb = fc.oneof(
  fc.constantFrom('', ':', ':0', ':1', ':6379', ':65535', ':65536', ':99999', ':-1', ':abc', ':0x10'),
  fc.integer({ min: 0, max: 70_000 }).map((n) => `:${n}`),
);

const segmentArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
  fc.constantFrom('q.fifo', '123456789012', '', '..', '%zz', '%2F', 'a:b', 'x'.repeat(90), '%E0%A4%A'),
  oddString.map((s) => encodeURIComponent(wellFormed(s))),
);

const valueArb = fc.oneof(
  fc.constantFrom(
    'true',
    'false',
    '0',
    '1',
    '15',
    '-5',
    '1e3',
    '0x10',
    '9007199254740993',
    '',
    '%',
    '%zz',
    'none',
    'window:300',
    'fifo-per-group',
    'eu-west',
    'http://127.0.0.1:1',
    'https://user:pw@h/x?y#z',
    'ftp://h',
    'INFRAI_API_KEY',
    'REDIS_PASSWORD',
  ),
  fc.integer().map(String),
  oddString.map((s) => encodeURIComponent(wellFormed(s))),
);

interface UrlCase {
  scheme: Scheme | 'odd';
  oddScheme: string;
  slot: Slot;
  encoding: Encoding;
  token: string;
  host: string;
  port: string;
  segments: string[];
  options: { name: string; value: string; known: boolean }[];
  fragment: string;
  /** Open it for real (on a closed loopback port), not only check it. */
  open: boolean;
  /** A URL the adapter would take but for the token: host, path and options as they should be. */
  plausible: boolean;
}

const caseArb: fc.Arbitrary<UrlCase> = fc.record({
  scheme: fc.constantFrom<UrlCase['scheme']>(
    'memory',
    'bullmq',
    'sqs',
    'infrai',
    'memory',
    'bullmq',
    'sqs',
    'infrai',
    'odd',
  ),
  oddScheme: fc.constantFrom('MEMORY', 'Sqs', 'redis', 'http', 'kafka', 'a+b', 'x-y.z', 'memory+ssl'),
  slot: fc.constantFrom(...SLOTS),
  encoding: encodingArb,
  token: tokenArb,
  host: hostArb,
  port: portArb,
  segments: fc.array(segmentArb, { minLength: 0, maxLength: 3 }),
  options: fc.array(
    fc.record({
      name: fc.oneof(
        fc.constantFrom('', 'x', 'prefx', 'Env', 'fooEnv', '%zz', 'a b'),
        fc.string({ maxLength: 8 }),
      ),
      value: valueArb,
      known: fc.boolean(),
    }),
    { maxLength: 4 },
  ),
  fragment: fc.constantFrom('', '#', '#frag', '#%zz'),
  open: fc.integer({ min: 0, max: 39 }).map((n) => n === 0),
  plausible: fc.integer({ min: 0, max: 9 }).map((n) => n < 6),
});

/** The URL as typed, and the token as it was planted there. */
function urlOf(c: UrlCase): { url: string; planted: string } {
  const planted = encode(c.token, c.encoding);
  const scheme = c.scheme === 'odd' ? c.oddScheme : c.scheme;
  const options = c.options.map(({ name, value, known }) => {
    if (c.plausible && c.scheme !== 'odd') {
      const names = OPTIONS[c.scheme];
      const realName = names[(name.length + value.length) % names.length]!;
      return [realName, GOOD_VALUES[realName] ?? value] as const;
    }
    const realName =
      known && c.scheme !== 'odd' ? OPTIONS[c.scheme][name.length % OPTIONS[c.scheme].length]! : name;
    return [realName, value] as const;
  });
  if (c.slot === 'optionName') options.push([planted, '1']);
  if (c.slot === 'optionValue') {
    const names = c.scheme === 'odd' ? ['x'] : OPTIONS[c.scheme];
    options.push([names[c.token.charCodeAt(3) % names.length]!, planted]);
  }
  const userinfo = c.slot === 'user' ? `${planted}@` : c.slot === 'password' ? `user:${planted}@` : '';
  const plausible = c.plausible && c.scheme !== 'odd';
  const host =
    c.slot === 'host' ? planted : plausible ? PLAUSIBLE_HOST[c.scheme as Scheme] || 'orders' : c.host;
  const port = c.slot === 'port' ? `:${planted}` : plausible ? '' : c.port;
  const baseSegments = plausible ? (c.scheme === 'memory' ? [] : ['orders']) : c.segments;
  const segments = c.slot === 'path' ? [...baseSegments, planted] : baseSegments;
  const query = options.map(([name, value]) => `${name}=${value}`).join('&');
  const fragment = c.slot === 'fragment' ? `#${planted}` : plausible ? '' : c.fragment;
  const head = c.slot === 'scheme' ? `${planted.replace(/^[^a-z]+/i, 'x')}://` : `${scheme}://`;
  return {
    url: `${head}${userinfo}${host}${port}${segments.length ? `/${segments.join('/')}` : ''}${query ? `?${query}` : ''}${fragment}`,
    planted,
  };
}

/** Every string an error carries: message, details, cause chain. */
function textOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    parts.push(current.message, String(current.stack ?? ''));
    const details = (current as { details?: unknown }).details;
    if (details !== undefined) parts.push(JSON.stringify(details));
    const field = (current as { field?: unknown }).field;
    if (typeof field === 'string') parts.push(field);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

function expectNoToken(error: unknown, token: string, where: string): void {
  const text = textOf(error);
  for (const form of formsOf(token)) {
    check(!text.includes(form), `${where} echoed the planted token (${form}): ${text.split('\n')[0]}`);
  }
}

/** A loopback port nothing listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let closed: number | undefined;

/** The URL pointed at the closed loopback port, or undefined when it cannot be. */
function onLoopback(url: URL, port: number): URL | undefined {
  const scheme = url.protocol.replace(/:$/, '');
  const copy = new URL(url.href);
  if (scheme === 'memory') return copy;
  if (scheme === 'sqs') {
    copy.searchParams.set('endpoint', `http://127.0.0.1:${port}`);
    return copy;
  }
  if (scheme === 'bullmq' || scheme === 'infrai') {
    copy.hostname = '127.0.0.1';
    copy.port = String(port);
    if (scheme === 'infrai') copy.searchParams.set('tls', 'false');
    if (scheme === 'infrai') copy.searchParams.set('timeoutMs', '500');
    if (scheme === 'bullmq') copy.searchParams.delete('tls');
    return copy.hostname === '127.0.0.1' ? copy : undefined;
  }
  return undefined;
}

const quietIo = (env: Record<string, string>): CliIo => ({
  stdout: () => {},
  stderr: () => {},
  isTTY: false,
  env,
  cwd: process.cwd(),
  now: () => performance.now(),
});

async function runCase(c: UrlCase): Promise<void> {
  const { url, planted } = urlOf(c);
  const where = `${c.slot} (${c.encoding})`;
  // 1. The configuration check: what `queueport` says at load.
  let accepted = true;
  try {
    const config = validateConfig({ providers: { p: { url } } }, undefined);
    await checkProviderUrls(config, undefined);
    recordOutcome(labelled('config', 'accepted'));
  } catch (error) {
    if (!(error instanceof ConfigError) && !isTypedError(error)) throw error;
    expectNoToken(error, c.token, `the configuration check of a token in the ${where}`);
    recordOutcome(labelled('config', error instanceof ConfigError ? 'refused' : error));
    accepted = false;
  }
  // 2. The CLI's registry on its own (a program's path, without the configuration's own
  // refusals first): the adapter by scheme, its URL check.
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  try {
    await loadAdapter(scheme);
    await checkAdapterUrl(parsed);
    recordOutcome(labelled('registry', 'accepted'));
  } catch (error) {
    if (!isTypedError(error)) throw error;
    expectNoToken(error, c.token, `the registry's check of a token in the ${where}`);
    recordOutcome(labelled('registry', error));
    return;
  }
  if (!accepted || (!c.open && scheme !== 'memory')) return;
  // 3. An open through the CLI's context, on loopback only.
  closed ??= await closedPort();
  const target = onLoopback(parsed, closed);
  if (!target) return;
  const io = quietIo({
    INFRAI_API_KEY: 'ifr_fuzz_key_0123456789abcdef',
    AWS_ACCESS_KEY_ID: 'fuzzaccess',
    AWS_SECRET_ACCESS_KEY: 'fuzz-secret-key-value',
  });
  const loaded: LoadedConfig = {
    config: { providers: { p: { url: target.href } } },
    file: undefined,
    close: async () => {},
  };
  const context = createCommandContext(io, { loaded, closeTimeoutMs: 2_000 });
  try {
    const provider = await context.openProvider('p');
    recordOutcome(labelled('open', 'ok'));
    await provider.close();
  } catch (error) {
    if (!isTypedError(error)) throw error;
    expectNoToken(error, c.token, `opening a URL with a token in the ${where}`);
    recordOutcome(labelled('open', error));
  } finally {
    await context.close();
  }
  check(planted.length > 0, 'planted');
}

/** `config: refused`, `registry: INVALID_ARGUMENT`, `open: UNAVAILABLE`: strings recorded are verdicts. */
export function classifyVerdict(outcome: unknown): string {
  const inner = unlabelled(outcome);
  if (typeof inner !== 'string') return classifyOutcome(outcome);
  return classifyOutcome(outcome).replace(/ok$/, inner);
}

export const targets: FuzzTarget[] = [
  {
    name: 'open-queue-urls',
    minCases: 1_000,
    classify: classifyVerdict,
    property: () => {
      afterTarget(() => {
        closed = undefined;
      });
      return fc.asyncProperty(caseArb, runCase);
    },
  },
];
