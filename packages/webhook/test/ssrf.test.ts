import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkAddress,
  createAddressPolicy,
  createGuardedLookup,
  createUrlPolicy,
  createWebhookSender,
  DestinationRefusedError,
  type ResolvedAddress,
  type Resolver,
  type WebhookSenderOptions,
} from '../src';
import { type ReferenceReceiver, startReferenceReceiver } from '../src/reference-receiver';
import { destination } from './helpers/fixtures';
import { installNetworkTripwire } from './helpers/network-tripwire';

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** Every refused category, as the URL would carry it (https, so only the address can refuse). */
const LITERAL_CASES: [string, string, string][] = [
  ['IPv4 loopback', 'https://127.0.0.1/hook', 'loopback'],
  ['IPv6 loopback', 'https://[::1]/hook', 'loopback'],
  ['IPv4-mapped IPv6, dotted', 'https://[::ffff:127.0.0.1]/hook', 'loopback'],
  ['IPv4-mapped IPv6, hex', 'https://[::ffff:7f00:1]/hook', 'loopback'],
  ['NAT64 64:ff9b::/96', 'https://[64:ff9b::7f00:1]/hook', 'loopback'],
  ['6to4 2002::/16', 'https://[2002:7f00:1::]/hook', 'loopback'],
  ['decimal IPv4', 'https://2130706433/hook', 'loopback'],
  ['hex IPv4', 'https://0x7f000001/hook', 'loopback'],
  ['octal IPv4', 'https://0177.0.0.1/hook', 'loopback'],
  ['RFC 1918 10/8', 'https://10.0.0.1/hook', 'private'],
  ['RFC 1918 172.16/12', 'https://172.16.0.1/hook', 'private'],
  ['RFC 1918 192.168/16', 'https://192.168.1.1/hook', 'private'],
  ['cloud metadata 169.254.169.254', 'https://169.254.169.254/latest/meta-data', 'linkLocal'],
  ['carrier-grade NAT', 'https://100.64.0.1/hook', 'carrierGradeNat'],
  ['IPv6 unique local', 'https://[fc00::1]/hook', 'uniqueLocal'],
  ['IPv6 link local', 'https://[fe80::1]/hook', 'linkLocal'],
  ['multicast', 'https://224.0.0.1/hook', 'multicast'],
  ['unspecified', 'https://0.0.0.0/hook', 'unspecified'],
  ['broadcast', 'https://255.255.255.255/hook', 'broadcast'],
  ['NAT64 of a private address', 'https://[64:ff9b::a00:1]/hook', 'private'],
  ['6to4 of the metadata address', 'https://[2002:a9fe:a9fe::]/hook', 'linkLocal'],
  ['IPv4-compatible (deprecated)', 'https://[::7f00:1]/hook', 'ipv4Compatible'],
];

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['fc00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'teredo'],
    ['not-an-ip', 'invalid'],
  ])('refuses %s (%s)', (ip, range) => {
    const verdict = checkAddress(ip);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.range).toBe(range);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
    '2002:5db8:d822::',
  ])('allows public unicast %s', (ip) => {
    expect(checkAddress(ip).allowed).toBe(true);
  });

  it('reports the embedded address of NAT64 / 6to4 forms', () => {
    const verdict = checkAddress('64:ff9b::7f00:1');
    expect(verdict).toMatchObject({ allowed: false, address: '127.0.0.1', range: 'loopback' });
  });

  it('allows loopback only with allowLoopback, and never 0.0.0.0', () => {
    const policy = createAddressPolicy({ allowLoopback: true });
    expect(policy.check('127.0.0.1').allowed).toBe(true);
    expect(policy.check('::1').allowed).toBe(true);
    expect(policy.check('::ffff:127.0.0.1').allowed).toBe(true);
    expect(policy.check('0.0.0.0').allowed).toBe(false);
    expect(policy.check('10.0.0.1').allowed).toBe(false);
    expect(checkAddress('127.0.0.1', { allowLoopback: false }).allowed).toBe(false);
  });

  it('allows exactly the CIDRs in allowPrivateCidrs', () => {
    const policy = createAddressPolicy({ allowPrivateCidrs: ['10.20.0.0/16', 'fd00:1::/32'] });
    expect(policy.check('10.20.3.4').allowed).toBe(true);
    expect(policy.check('::ffff:10.20.3.4').allowed).toBe(true);
    expect(policy.check('fd00:1::5').allowed).toBe(true);
    expect(policy.check('10.21.0.1').allowed).toBe(false);
    expect(policy.check('fd00:2::5').allowed).toBe(false);
    expect(policy.check('127.0.0.1').allowed).toBe(false);
  });

  it('refuses a malformed CIDR at construction', () => {
    expect(() => createAddressPolicy({ allowPrivateCidrs: ['10.0.0.0/33'] })).toThrow(/not a CIDR/);
  });
});

describe('URL policy', () => {
  const policy = createUrlPolicy();

  it.each(LITERAL_CASES)('refuses %s literal', (_name, url, range) => {
    const verdict = policy.check(url);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.error.refusal).toMatchObject({ reason: 'address', range });
  });

  it('refuses http:// by default and allows it with allowHttp', () => {
    const verdict = policy.check('http://hooks.example.com/x');
    expect(verdict).toMatchObject({ allowed: false });
    if (!verdict.allowed) expect(verdict.error.refusal.reason).toBe('scheme');
    expect(createUrlPolicy({ allowHttp: true }).check('http://hooks.example.com/x').allowed).toBe(true);
  });

  it('refuses other schemes even with allowHttp', () => {
    for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'gopher://x/']) {
      const verdict = createUrlPolicy({ allowHttp: true }).check(url);
      expect(verdict.allowed).toBe(false);
    }
  });

  it('refuses credentials in the URL without echoing them', () => {
    const verdict = policy.check('https://user:hunter2-secret@hooks.example.com/x');
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) {
      expect(verdict.error.refusal.reason).toBe('credentials');
      expect(JSON.stringify(verdict.error)).not.toContain('hunter2');
      expect(verdict.error.message).not.toContain('hunter2');
    }
  });

  it('refuses a host outside allowedHosts; `*.suffix` matches subdomains only', () => {
    const allow = createUrlPolicy({ allowedHosts: ['hooks.example.com', '*.partner.test'] });
    expect(allow.check('https://hooks.example.com/a').allowed).toBe(true);
    expect(allow.check('https://HOOKS.example.com./a').allowed).toBe(true);
    expect(allow.check('https://eu.partner.test/a').allowed).toBe(true);
    expect(allow.check('https://a.b.partner.test/a').allowed).toBe(true);
    for (const url of [
      'https://partner.test/',
      'https://evil.com/',
      'https://hooks.example.com.evil.com/',
      'https://evilpartner.test/',
    ]) {
      const verdict = allow.check(url);
      expect(verdict.allowed).toBe(false);
      if (!verdict.allowed) expect(verdict.error.refusal.reason).toBe('host-not-allowed');
    }
  });

  it('still checks the address of an allow-listed literal', () => {
    const allow = createUrlPolicy({ allowedHosts: ['127.0.0.1'] });
    expect(allow.check('https://127.0.0.1/').allowed).toBe(false);
  });

  it('refuses what is not a URL', () => {
    const verdict = policy.check('not a url');
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.error.refusal.reason).toBe('invalid-url');
  });

  it('allows a public https URL and a public IP literal', () => {
    expect(policy.check('https://hooks.example.com/x?y=1').allowed).toBe(true);
    expect(policy.check('https://93.184.216.34/x').allowed).toBe(true);
  });
});

describe('guarded lookup', () => {
  const lookupWith = (resolver: Resolver, options: { allowLoopback?: boolean } = {}) =>
    createGuardedLookup(createAddressPolicy(options), resolver);

  const run = (lookup: ReturnType<typeof lookupWith>, hostname: string, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
      (
        lookup as unknown as (
          h: string,
          o: object,
          cb: (e: Error | null, a: unknown, f?: number) => void,
        ) => void
      )(hostname, { all }, (error, address, family) => resolve({ error, address, family }));
    });

  it('passes every address of a public name through, in both callback shapes', async () => {
    const lookup = lookupWith(async () => [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')]);
    const all = await run(lookup, 'example.com', true);
    expect(all.error).toBeNull();
    expect(all.address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    const one = await run(lookup, 'example.com', false);
    expect(one).toMatchObject({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('refuses a name when ANY resolved address is refused (public + private)', async () => {
    const lookup = lookupWith(async () => [v4('93.184.216.34'), v4('10.0.0.1')]);
    const result = await run(lookup, 'rebind.example', true);
    expect(result.error).toBeInstanceOf(DestinationRefusedError);
    expect((result.error as DestinationRefusedError).refusal).toMatchObject({
      address: '10.0.0.1',
      range: 'private',
    });
    expect(result.address).toEqual([]);
  });

  it('refuses localhost resolved by the injected resolver', async () => {
    const lookup = lookupWith(async () => [v4('127.0.0.1'), v6('::1')]);
    const result = await run(lookup, 'localhost', true);
    expect(result.error).toBeInstanceOf(DestinationRefusedError);
  });

  it('reports a name with no addresses as a transient ENOTFOUND', async () => {
    const lookup = lookupWith(async () => []);
    const result = await run(lookup, 'nothing.example', true);
    expect((result.error as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });
});

describe('the sender refuses before any connection', () => {
  let tripwire: ReturnType<typeof installNetworkTripwire>;
  beforeEach(() => {
    tripwire = installNetworkTripwire();
  });
  afterEach(() => {
    tripwire.restore();
  });

  const send = async (url: string, options: WebhookSenderOptions = {}) => {
    const sender = createWebhookSender(options);
    try {
      return await sender.send({ destination: destination(url), eventId: 'evt_ssrf', body: '{}' });
    } finally {
      await sender.close();
    }
  };

  it.each(LITERAL_CASES)('%s literal: terminal, no connect', async (_name, url, range) => {
    const outcome = await send(url);
    expect(outcome).toMatchObject({ kind: 'terminal', refusal: { reason: 'address', range } });
    expect(tripwire.connects).toEqual([]);
    expect(tripwire.violations).toEqual([]);
  });

  it.each([
    ['localhost', [v4('127.0.0.1'), v6('::1')], 'loopback'],
    ['a name resolving to the metadata address', [v4('169.254.169.254')], 'linkLocal'],
    [
      'a name resolving to one public and one private address',
      [v4('93.184.216.34'), v4('10.0.0.1')],
      'private',
    ],
    ['a name resolving to a private IPv6', [v6('fd12::1')], 'uniqueLocal'],
  ] as const)('%s: refused by the lookup, no address reaches node:net', async (_name, addresses, range) => {
    const asked: string[] = [];
    const resolver: Resolver = async (hostname) => {
      asked.push(hostname);
      return addresses;
    };
    const outcome = await send('https://hooks.customer.test/x', { resolver });
    expect(outcome).toMatchObject({ kind: 'terminal', refusal: { reason: 'address', range } });
    expect(asked).toEqual(['hooks.customer.test']);
    // The lookup ran inside node:net's connect, and handed it nothing to connect to.
    expect(tripwire.resolved).toEqual([]);
    expect(tripwire.violations).toEqual([]);
  });

  it('refuses http:// by default, a host outside the allow-list, and credentials', async () => {
    const resolver: Resolver = async () => [v4('93.184.216.34')];
    expect(await send('http://hooks.customer.test/x', { resolver })).toMatchObject({
      kind: 'terminal',
      refusal: { reason: 'scheme' },
    });
    expect(
      await send('https://other.test/x', { resolver, ssrf: { allowedHosts: ['hooks.customer.test'] } }),
    ).toMatchObject({ kind: 'terminal', refusal: { reason: 'host-not-allowed' } });
    const withCredentials = await send('https://u:pw-secret-1@hooks.customer.test/x', { resolver });
    expect(withCredentials).toMatchObject({ kind: 'terminal', refusal: { reason: 'credentials' } });
    expect(JSON.stringify(withCredentials)).not.toContain('pw-secret-1');
    expect(tripwire.connects).toEqual([]);
  });
});

describe('loopback opt-in against the reference receiver', () => {
  let receiver: ReferenceReceiver;
  beforeEach(async () => {
    receiver = await startReferenceReceiver({ mode: 'idempotent' });
  });
  afterEach(async () => {
    await receiver.close();
  });

  const send = async (url: string, options: WebhookSenderOptions) => {
    const sender = createWebhookSender(options);
    try {
      return await sender.send({ destination: destination(url), eventId: 'evt_loop', body: '{"ok":true}' });
    } finally {
      await sender.close();
    }
  };

  it('with allowHttp + allowLoopback a real request succeeds', async () => {
    const outcome = await send(receiver.url, { ssrf: { allowHttp: true, allowLoopback: true } });
    expect(outcome).toMatchObject({ kind: 'delivered', status: 200 });
    expect(receiver.effectCount('evt_loop')).toBe(1);
  });

  it('without the opt-in the same request is refused and never reaches the receiver', async () => {
    const outcome = await send(receiver.url, { ssrf: { allowHttp: true } });
    expect(outcome).toMatchObject({ kind: 'terminal', refusal: { reason: 'address', range: 'loopback' } });
    expect(receiver.requests()).toBe(0);
    expect(receiver.connections()).toBe(0);
  });

  it('a name resolving to loopback goes through the guarded lookup: refused, then allowed by opt-in', async () => {
    const port = new URL(receiver.url).port;
    const resolver: Resolver = async () => [v4('127.0.0.1')];
    const url = `http://receiver.test:${port}/`;
    const refused = await send(url, { resolver, ssrf: { allowHttp: true } });
    expect(refused).toMatchObject({ kind: 'terminal', refusal: { reason: 'address', range: 'loopback' } });
    expect(receiver.connections()).toBe(0);
    const allowed = await send(url, { resolver, ssrf: { allowHttp: true, allowLoopback: true } });
    expect(allowed).toMatchObject({ kind: 'delivered', status: 200 });
    expect(receiver.effectCount('evt_loop')).toBe(1);
  });
});

describe('SSRF options are checked at construction', () => {
  const refusal = (make: () => unknown) => {
    try {
      make();
    } catch (error) {
      return error as { code: string; details: { field: string }; message: string };
    }
    throw new Error('expected a refusal');
  };

  it.each([
    [{ allowPrivateCidrs: '10.0.0.0/8' }, 'allowPrivateCidrs'],
    [{ allowPrivateCidrs: ['10.0.0.0/8', 10] }, 'allowPrivateCidrs[1]'],
    [{ allowPrivateCidrs: ['0xa.0.0.0/8'] }, 'allowPrivateCidrs[0]'],
    [{ allowPrivateCidrs: ['10/8'] }, 'allowPrivateCidrs[0]'],
    [{ allowLoopback: 1 }, 'allowLoopback'],
    [{ allowHttp: 'true' }, 'allowHttp'],
    [{ allowedHosts: ['*.'] }, 'allowedHosts[0]'],
    [{ allowedHosts: ['hooks.example.com:443'] }, 'allowedHosts[0]'],
    [{ allowedHosts: ['user@hooks.example.com'] }, 'allowedHosts[0]'],
    [{ allowedHosts: [''] }, 'allowedHosts[0]'],
    [{ allowedHost: ['typo'] }, 'allowedHost'],
  ])('createUrlPolicy(%j) names %s', (options, field) => {
    const error = refusal(() => createUrlPolicy(options as never));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
  });

  it('createAddressPolicy checks its own options the same way', () => {
    expect(refusal(() => createAddressPolicy({ allowPrivateCidrs: [null] } as never))).toMatchObject({
      details: { field: 'allowPrivateCidrs[0]' },
    });
    expect(refusal(() => createAddressPolicy(null as never))).toMatchObject({
      details: { field: 'options' },
    });
  });

  it('allowedHosts entries are compared in the form URLs give their hosts', () => {
    const policy = createUrlPolicy({
      allowedHosts: ['Hooks.Example.COM', '*.bücher.example', '0:0:0:0:0:0:0:1', '0x7f.1'],
      allowLoopback: true,
    });
    expect(policy.check('https://hooks.example.com/').allowed).toBe(true);
    expect(policy.check('https://shop.xn--bcher-kva.example/').allowed).toBe(true);
    expect(policy.check('https://[::1]/').allowed).toBe(true);
    expect(policy.check('https://127.0.0.1/').allowed).toBe(true);
    expect(policy.check('https://other.example/').allowed).toBe(false);
  });

  it('a check never throws, whatever it is given', () => {
    const policy = createUrlPolicy();
    for (const input of [undefined, null, 42, {}, Symbol('x'), 'https://[::1', '']) {
      expect(policy.check(input as never).allowed).toBe(false);
    }
    expect(createAddressPolicy().check(undefined as never)).toMatchObject({
      allowed: false,
      range: 'invalid',
    });
  });
});

describe('URL verdicts are kept per policy', () => {
  it('answers a repeated URL with the same verdict, allowed or refused, and checks each new one', () => {
    const policy = createUrlPolicy();
    const allowed = policy.check('https://hooks.example.com/a');
    const refused = policy.check('https://127.0.0.1/a');
    expect(allowed.allowed).toBe(true);
    expect(refused.allowed).toBe(false);
    expect(policy.check('https://hooks.example.com/a')).toBe(allowed);
    expect(policy.check('https://127.0.0.1/a')).toBe(refused);
    expect(policy.check('https://10.0.0.1/a').allowed).toBe(false);
    // Far more distinct URLs than are kept: old ones are checked again, with the same answer.
    for (let i = 0; i < 1_500; i++) expect(policy.check(`https://hooks.example.com/${i}`).allowed).toBe(true);
    expect(policy.check('https://127.0.0.1/a').allowed).toBe(false);
  });
});
