import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, BlockList, isIP } from 'node:net';
import { isQueueError, type QueueError } from '@queueport/core';
import {
  assertDestination,
  createAddressPolicy,
  createUrlPolicy,
  createWebhookSender,
  type DeliveryOutcome,
  type Destination,
  DestinationRefusedError,
  DestinationRegistry,
  formatIdempotencyKey,
  isSenderOwnedHeader,
  SENDER_OWNED_HEADERS,
  type WebhookRequest,
  type WebhookSender,
  type WebhookSenderOptions,
} from '@queueport/webhook';
import fc from 'fast-check';
import type { FuzzTarget } from './fuzz-target';

/*
 * The webhook sender's public entry points as a careless or hostile caller would use them.
 * Each property states what must hold for ANY input: a typed refusal or success, never another
 * exception, never a hang, never a request on the wire that the checks should have stopped.
 */

const MIN_CASES = 2000;
// Planted in generated values; no message, reason or outcome may ever contain it.
const SENTINEL = 'tok_fuzz_9f8e7d6c';
const SECRETS = [0, 1, 2].map(() => `whsec_${randomBytes(32).toString('base64')}`);

// RFC 9110 rules written out again here, so the oracle does not share code with the checks.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/;

// ----------------------------------------------------------------------------------------------
// Generators

const oddNumber = fc.constantFrom(0, -0, -1, 1.5, Number.NaN, Infinity, -Infinity, 2 ** 31, 2 ** 53, 1e300);
const plainOdd: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  oddNumber,
  fc.constantFrom(undefined, null, true, [], {}, () => 0, Symbol('odd'), new Date(0)),
  fc.string(),
);
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  plainOdd,
  fc.constantFrom(`Bearer ${SENTINEL}`, `a\r\nx-injected: ${SENTINEL}`, ''),
);
/** Valid `weight` times in `weight + 1`: a case with many fields still reaches the wire often. */
const mostly = <T>(valid: fc.Arbitrary<T>, weight = 3): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: valid, weight }, { arbitrary: oddValue, weight: 1 });

const v4Text = fc
  .tuple(
    fc.oneof(
      fc.constantFrom([10], [127], [169, 254], [192, 168], [172, 16], [100, 64], [0], [224], [255, 255, 255]),
      fc.constant([] as number[]),
    ),
    fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }),
  )
  .map(([prefix, rest]) => [...prefix, ...rest].slice(0, 4).join('.'));
const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
const v6Text = fc.oneof(
  fc.array(hextet, { minLength: 8, maxLength: 8 }).map((parts) => parts.join(':')),
  v4Text.map((v4) => `::ffff:${v4}`),
  v4Text.map((v4) => `64:ff9b::${v4}`),
  v4Text.map((v4) => `::${v4}`),
  v4Text.map((v4) => `::ffff:0:${v4}`),
  fc.tuple(v4Text, hextet).map(([v4, h]) => `64:ff9b:1:${h}::${v4}`),
  fc.tuple(v4Text, hextet).map(([v4, h]) => {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::${h}`;
  }),
  fc.tuple(v4Text, hextet).map(([v4, h]) => {
    const [a, b, c, d] = v4.split('.').map((n) => Number(n) ^ 0xff) as [number, number, number, number];
    return `2001:0:${h}::${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }),
  fc.constantFrom('::', '::1', 'fe80::1', 'fc00::1', 'ff02::1', '2606:4700::1111', 'fe80::1%eth0'),
);
const addressText = fc.oneof(
  v4Text,
  v6Text,
  v6Text.map((v6) => `[${v6}]`),
  fc.constantFrom('2130706433', '0x7f000001', '0177.0.0.1', '127.1', '1.2.3.04', '010.0.0.1', ' 8.8.8.8'),
  fc.string(),
);

const cidrText = fc.oneof(
  fc.tuple(v4Text, fc.integer({ min: 0, max: 32 })).map(([ip, bits]) => `${ip}/${bits}`),
  fc.tuple(v6Text, fc.integer({ min: 0, max: 128 })).map(([ip, bits]) => `${ip}/${bits}`),
  fc.constantFrom('10/8', '0xa.0.0.0/8', '10.0.0.0/33', '::/129', '64:ff9b::/96', '2002::/16', '::/0'),
  fc.string(),
);
const hostPattern = fc.oneof(
  fc.domain(),
  fc.domain().map((d) => `*.${d}`),
  v4Text,
  v6Text,
  fc.constantFrom('*.', '', 'a b', 'x:1', 'user@host', 'host/path', 'bücher.example', SENTINEL),
  fc.string(),
);

const ssrfOptions = fc.record(
  {
    allowHttp: mostly(fc.boolean()),
    allowLoopback: mostly(fc.boolean()),
    allowPrivateCidrs: mostly(fc.array(cidrText, { maxLength: 4 })),
    allowedHosts: mostly(fc.array(hostPattern, { maxLength: 4 })),
  },
  { requiredKeys: [] },
);

const timeoutMs = mostly(fc.integer({ min: 1, max: 2 ** 31 - 1 }));
const senderOptions: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        connectTimeoutMs: timeoutMs,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: timeoutMs,
        requestTimeoutMs: timeoutMs,
        maxResponseBytes: mostly(fc.integer({ min: 1, max: 16 * 1024 * 1024 })),
        idempotencyKeyStyle: mostly(fc.constantFrom('bare', 'structured')),
        ssrf: mostly(ssrfOptions),
        resolver: mostly(fc.constant(async () => [])),
        now: mostly(fc.constant(() => 0)),
        connectionsPerOrigin: mostly(fc.integer({ min: 1, max: 64 })),
        userAgent: mostly(fc.string({ minLength: 1, maxLength: 40 })),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.dictionary(fc.string(), oddValue, { maxKeys: 4 }) },
  { weight: 1, arbitrary: oddValue },
);

const headerName = fc.oneof(
  { weight: 12, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'X-Tenant',
      'authorization',
      'user-agent',
      '__proto__',
      'constructor',
      "x-!#$%&'*+.^_`|~",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ...SENDER_OWNED_HEADERS,
      'Host',
      'Proxy-Authorization',
      'Webhook-Id',
      'WEBHOOK-x',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);
const headerValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 24, arbitrary: fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e\t]{0,30}[\x21-\x7e])?$/) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('a\r\nb', ' lead', 'trail ', '\t', '', 'caf\u00e9', `Bearer ${SENTINEL}`),
  },
  { weight: 1, arbitrary: oddValue },
);
const headers = fc.oneof(
  { weight: 12, arbitrary: fc.dictionary(headerName, headerValue, { maxKeys: 4 }) },
  { weight: 1, arbitrary: oddValue },
);
const secrets = mostly(
  fc.array(
    fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(...SECRETS) },
      { weight: 1, arbitrary: fc.oneof(fc.constant('whsec_short'), fc.string(), oddValue) },
    ),
    { maxLength: 3 },
  ),
  9,
);
const retry = mostly(
  fc.record(
    {
      maxAttempts: mostly(fc.integer({ min: 1, max: 20 })),
      baseMs: mostly(fc.integer({ min: 0, max: 10_000 })),
      maxMs: mostly(fc.integer({ min: 10_000, max: 100_000 })),
      jitter: mostly(fc.double({ min: 0, max: 1, noNaN: true })),
    },
    { requiredKeys: [] },
  ),
  9,
);
const url = fc.oneof(
  { weight: 12, arbitrary: fc.webUrl({ withQueryParameters: true }) },
  fc.constantFrom(`https://user:${SENTINEL}@hooks.example.com/`, 'ftp://hooks.example.com/', 'not a url'),
  fc.string(),
  oddValue,
);
const destinationFields = {
  // Ids are meant to be shown in messages, so no planted secret goes into one.
  id: fc.oneof({ weight: 9, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) }, plainOdd),
  url,
  secrets,
  headers,
  retry,
  idempotencyKeyStyle: mostly(fc.constantFrom('bare', 'structured'), 9),
};
const destination: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record(destinationFields, { requiredKeys: ['id', 'url'] }) },
  // A typo'd field (`secret` for `secrets`) would send unsigned if it were ignored.
  {
    weight: 1,
    arbitrary: fc.record(
      { ...destinationFields, secret: fc.constant(SECRETS[0]) },
      { requiredKeys: ['id', 'url'] },
    ),
  },
  { weight: 1, arbitrary: oddValue },
);

const eventId: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 24, arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,40}$/) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' evt', 'evt ', 'evt\r\n', '"quoted"') },
  { weight: 1, arbitrary: oddValue },
);
const body: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 24, arbitrary: fc.string({ unit: 'binary', maxLength: 2000 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    }),
  },
  { weight: 1, arbitrary: oddValue },
);
const sendCase = fc.record({
  status: fc.constantFrom(200, 204, 302, 400, 410, 429, 500, 503),
  retryAfter: fc.option(fc.oneof(fc.nat({ max: 100 }).map(String), fc.string()), { nil: undefined }),
  headers: fc.option(headers, { nil: undefined }),
  secrets: fc.option(secrets, { nil: undefined }),
  style: fc.option(mostly(fc.constantFrom('bare', 'structured'), 20), { nil: undefined }),
  eventId,
  body,
  timestamp: fc.option(mostly(fc.integer({ min: 0, max: 4_102_444_800_000 }), 20), { nil: undefined }),
});

// ----------------------------------------------------------------------------------------------
// Oracles and helpers

/** A refusal must be INVALID_ARGUMENT, name a field, and quote nothing it was given. */
function assertTypedRefusal(error: unknown): QueueError {
  if (!isQueueError(error, 'INVALID_ARGUMENT')) throw error;
  const field = error.details.field;
  if (typeof field !== 'string' || field === '')
    throw new Error(`refusal without details.field: ${error.message}`);
  assertNoLeak(`${error.message} ${JSON.stringify(error)}`);
  return error;
}

function assertNoLeak(text: string): void {
  for (const secret of [SENTINEL, ...SECRETS, ...SECRETS.map((s) => s.slice(6))]) {
    if (text.includes(secret)) throw new Error(`leaked a planted secret: ${text.slice(0, 200)}`);
  }
}

const SENDER_OPTION_NAMES = new Set([
  'options',
  'connectTimeoutMs',
  'headersTimeoutMs',
  'bodyTimeoutMs',
  'requestTimeoutMs',
  'maxResponseBytes',
  'idempotencyKeyStyle',
  'ssrf',
  'resolver',
  'now',
  'connectionsPerOrigin',
  'userAgent',
]);
const DESTINATION_FIELDS = new Set([
  'destination',
  'id',
  'url',
  'secrets',
  'headers',
  'retry',
  'idempotencyKeyStyle',
]);

/** The label for a refusal: the top-level field, or `unknown-field` for keys the caller made up. */
function refusalLabel(error: QueueError, known: ReadonlySet<string>): string {
  const root = String(error.details.field).split(/[.[]/)[0] ?? '';
  return `refused:${known.has(root) ? root : 'unknown-field'}`;
}

function refusalOf(check: () => unknown): QueueError | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return assertTypedRefusal(error);
  }
}

/** Counts `classify` labels per `property()` call, as FuzzTarget.counts promises. */
function countedTarget(
  name: string,
  classify: (outcome: unknown) => string,
  build: (record: (outcome: unknown) => void) => fc.IRawProperty<unknown>,
): FuzzTarget {
  let counts: Record<string, number> = {};
  return {
    name,
    minCases: MIN_CASES,
    classify,
    counts: () => ({ ...counts }),
    property: () => {
      counts = {};
      return build((outcome) => {
        const label = classify(outcome);
        counts[label] = (counts[label] ?? 0) + 1;
      });
    },
  };
}

// Ranges no verdict may let through unless the policy lists the address reached. One list per
// family: node's BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules (and `::/0`).
interface FamilyLists {
  ipv4: BlockList;
  ipv6: BlockList;
}

function familyLists(cidrs: readonly string[]): FamilyLists {
  const lists = { ipv4: new BlockList(), ipv6: new BlockList() };
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/') as [string, string];
    const type = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    lists[type].addSubnet(net, Number(bits), type);
  }
  return lists;
}

const NOT_PUBLIC = familyLists([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
]);

const POLICIES = [
  { name: 'default', options: {} },
  { name: 'loopback', options: { allowHttp: true, allowLoopback: true } },
  {
    name: 'wrappers-listed',
    options: {
      allowPrivateCidrs: ['10.0.0.0/8', '64:ff9b::/96', '2002::/16', '::ffff:0:0/96', '2001::/32', '::/0'],
    },
  },
] as const;

function listedBy(options: { allowPrivateCidrs?: readonly string[]; allowLoopback?: boolean }): FamilyLists {
  return familyLists([
    ...(options.allowPrivateCidrs ?? []),
    ...(options.allowLoopback ? ['127.0.0.0/8', '::1/128'] : []),
  ]);
}

/** An allowed verdict must name the address really reached, and that address must be allowed. */
function assertReachedIsAllowed(address: string, listed: FamilyLists): void {
  const family = isIP(address);
  if (family === 0) throw new Error(`allowed verdict names a non-address: ${address}`);
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (NOT_PUBLIC[type].check(address, type) && !listed[type].check(address, type)) {
    throw new Error(`allowed ${address}, which is not public and not listed`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One loopback receiver per property: answers the status the path asks for, keeps what it got. */
async function startLoopback() {
  const received = new Map<string, string[]>();
  const server = createServer((req, res) => {
    const [, , status, caseId, retryAfter] = (req.url ?? '').split('/');
    received.set(caseId ?? '', req.rawHeaders);
    req.resume();
    req.on('end', () => {
      const extra = retryAfter ? { 'retry-after': decodeURIComponent(retryAfter) } : undefined;
      res.writeHead(Number(status) || 200, extra);
      res.end('{"ok":true}');
    });
  });
  // Nothing here may keep the runner's process alive once the cases are done.
  server.on('connection', (socket) => socket.unref());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  server.unref();
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, received };
}

function expectedKind(status: number): DeliveryOutcome['kind'] {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'disable';
  if (status === 429 || status >= 500) return 'retry';
  return 'terminal';
}

// ----------------------------------------------------------------------------------------------
// Targets

const optionsTarget = countedTarget(
  'webhook-sender/options',
  (outcome) => (isQueueError(outcome) ? refusalLabel(outcome, SENDER_OPTION_NAMES) : 'accepted'),
  (record) =>
    fc.property(senderOptions, (options) => {
      let sender: WebhookSender | undefined;
      const refusal = refusalOf(() => {
        sender = createWebhookSender(options as WebhookSenderOptions);
      });
      if (sender) {
        const asked = (options as { requestTimeoutMs?: unknown } | undefined)?.requestTimeoutMs;
        if (sender.requestTimeoutMs !== (asked ?? 30_000)) throw new Error('requestTimeoutMs not as asked');
        void sender.close();
      }
      record(refusal ?? 'accepted');
    }),
);

const registrationTarget = countedTarget(
  'webhook-sender/destination-registration',
  (outcome) => (isQueueError(outcome) ? refusalLabel(outcome, DESTINATION_FIELDS) : 'registered'),
  (record) =>
    fc.property(destination, (value) => {
      const registry = new DestinationRegistry();
      const refused = refusalOf(() => registry.register(value as Destination));
      const asserted = refusalOf(() => assertDestination(value));
      if (refused?.details.field !== asserted?.details.field) {
        throw new Error(
          `register and assertDestination disagree: ${refused?.message} / ${asserted?.message}`,
        );
      }
      if (!refused) assertRegisteredIsClean(registry.require((value as Destination).id));
      record(refused ?? 'registered');
    }),
);

function assertRegisteredIsClean(stored: Destination): void {
  if (!Object.isFrozen(stored)) throw new Error('stored destination is not frozen');
  const parsed = new URL(stored.url);
  if (!['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password) {
    throw new Error('registered a URL the sender can never use');
  }
  const names = Object.keys(stored.headers ?? {});
  if (new Set(names.map((n) => n.toLowerCase())).size !== names.length) throw new Error('duplicate header');
  for (const [name, value] of Object.entries(stored.headers ?? {})) {
    if (!TOKEN.test(name) || isSenderOwnedHeader(name)) throw new Error(`registered header name ${name}`);
    if (typeof value !== 'string' || !FIELD_VALUE.test(value))
      throw new Error(`registered a bad value for ${name}`);
  }
  for (const secret of stored.secrets ?? []) {
    if (!secret.startsWith('whsec_')) throw new Error('registered a malformed secret');
  }
}

const sendTarget = countedTarget(
  'webhook-sender/send-loopback',
  (outcome) => {
    const o = outcome as DeliveryOutcome;
    const status = 'status' in o && o.status !== undefined ? `${Math.floor(o.status / 100)}xx` : 'unsent';
    return `${o.kind}:${status}`;
  },
  (record) => {
    let setup: Promise<{ sender: WebhookSender; base: string; received: Map<string, string[]> }> | undefined;
    let caseNo = 0;
    return fc.asyncProperty(sendCase, async (c) => {
      setup ??= startLoopback().then((loopback) => ({
        ...loopback,
        sender: createWebhookSender({
          ssrf: { allowHttp: true, allowLoopback: true },
          requestTimeoutMs: 5_000,
        }),
      }));
      const { sender, base, received } = await setup;
      const caseId = `c${++caseNo}`;
      const retryAfter = c.retryAfter === undefined ? '' : `/${encodeURIComponent(c.retryAfter)}`;
      const dest = {
        id: 'fuzz',
        url: `${base}/s/${c.status}/${caseId}${retryAfter}`,
        ...(c.headers === undefined ? {} : { headers: c.headers }),
        ...(c.secrets === undefined ? {} : { secrets: c.secrets }),
        ...(c.style === undefined ? {} : { idempotencyKeyStyle: c.style }),
      };
      const request = { destination: dest, eventId: c.eventId, body: c.body, timestamp: c.timestamp };
      const sendable = wouldSend(request);
      const outcome = await withTimeout(
        sender.send(request as WebhookRequest).catch((error: unknown) => {
          throw new Error(`send() rejected: ${String(error)}`);
        }),
        15_000,
        'send()',
      );
      assertNoLeak(JSON.stringify(outcome));
      const status = 'status' in outcome ? outcome.status : undefined;
      const wire = received.get(caseId);
      if (!['delivered', 'retry', 'disable', 'terminal'].includes(outcome.kind))
        throw new Error('unknown kind');
      if (!Number.isFinite(outcome.attemptMs) || outcome.attemptMs < 0) throw new Error('bad attemptMs');
      if (outcome.kind === 'terminal' && status === undefined && wire) {
        throw new Error(`refused as unsendable, yet the receiver got it: ${outcome.reason}`);
      }
      if (!sendable && (outcome.kind !== 'terminal' || status !== undefined)) {
        throw new Error(`an invalid request went out: ${JSON.stringify(outcome).slice(0, 300)}`);
      }
      if (sendable) {
        if (status !== c.status || outcome.kind !== expectedKind(c.status)) {
          throw new Error(`a valid request did not get its answer: ${JSON.stringify(outcome).slice(0, 300)}`);
        }
        assertWireHeaders(wire ?? [], dest.headers as Record<string, string> | undefined);
      }
      record(outcome);
    });
  },
);

/** The oracle for send(): would this request pass every check the sender makes before sending? */
function wouldSend(request: {
  destination: unknown;
  eventId: unknown;
  body: unknown;
  timestamp: unknown;
}): boolean {
  if (typeof request.body !== 'string' || typeof request.eventId !== 'string') return false;
  const t = request.timestamp;
  if (t !== undefined && !(typeof t === 'number' && t >= 0 && t <= 8.64e15)) return false;
  try {
    assertDestination(request.destination);
    const style = (request.destination as Destination).idempotencyKeyStyle ?? 'bare';
    formatIdempotencyKey(request.eventId, style);
    return true;
  } catch {
    return false;
  }
}

function assertWireHeaders(raw: readonly string[], sent: Record<string, string> | undefined): void {
  const wire = new Map<string, string>();
  for (let i = 0; i + 1 < raw.length; i += 2) wire.set(raw[i]!.toLowerCase(), raw[i + 1]!);
  for (const [name, value] of Object.entries(sent ?? {})) {
    if (wire.get(name.toLowerCase()) !== value) throw new Error(`header ${name} did not arrive as given`);
  }
  if (!wire.has('idempotency-key')) throw new Error('no Idempotency-Key on the wire');
}

const ssrfTarget = countedTarget(
  'webhook-sender/ssrf-checks',
  (outcome) => String(outcome),
  (record) => {
    const policies = POLICIES.map(({ name, options }) => ({
      name,
      urls: createUrlPolicy(options),
      addresses: createAddressPolicy({
        allowLoopback: 'allowLoopback' in options ? options.allowLoopback : undefined,
        allowPrivateCidrs: 'allowPrivateCidrs' in options ? options.allowPrivateCidrs : undefined,
      }),
      listed: listedBy(options),
    }));
    const input = fc.oneof(
      addressText.map((text) => ({ kind: 'address' as const, text })),
      fc
        .tuple(fc.constantFrom('https', 'http', 'ftp'), addressText, fc.string({ maxLength: 8 }))
        .map(([scheme, host, path]) => ({
          kind: 'url' as const,
          text: `${scheme}://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}/${path}`,
        })),
      fc.webUrl().map((text) => ({ kind: 'url' as const, text })),
      fc.string().map((text) => ({ kind: 'url' as const, text })),
    );
    return fc.property(input, fc.nat({ max: policies.length - 1 }), ({ kind, text }, which) => {
      const policy = policies[which]!;
      if (kind === 'address') {
        const verdict = policy.addresses.check(text);
        if (typeof verdict.allowed !== 'boolean' || typeof verdict.address !== 'string') {
          throw new Error('untyped address verdict');
        }
        if (verdict.allowed) assertReachedIsAllowed(verdict.address, policy.listed);
        else if (typeof verdict.range !== 'string' || typeof verdict.message !== 'string') {
          throw new Error('refusal without range or message');
        }
        record(`address:${policy.name}:${verdict.allowed ? 'allowed' : verdict.range}`);
        return;
      }
      const verdict = policy.urls.check(text);
      if (verdict.allowed) {
        if (!(verdict.url instanceof URL)) throw new Error('allowed verdict without a URL');
        const host = verdict.url.hostname.replace(/^\[|\]$/g, '');
        // A literal is judged here or nowhere (node:net skips the lookup): it must agree.
        if (isIP(host) !== 0) {
          const address = policy.addresses.check(host);
          if (!address.allowed) throw new Error(`URL allowed, its literal refused: ${host}`);
          assertReachedIsAllowed(address.address, policy.listed);
        }
      } else if (!(verdict.error instanceof DestinationRefusedError)) {
        throw new Error('refused URL verdict without a DestinationRefusedError');
      } else if (verdict.error.message.includes(SENTINEL)) {
        throw new Error('URL refusal quotes the URL');
      }
      record(`url:${policy.name}:${verdict.allowed ? 'allowed' : verdict.error.refusal.reason}`);
    });
  },
);

export const targets: FuzzTarget[] = [optionsTarget, registrationTarget, sendTarget, ssrfTarget];
