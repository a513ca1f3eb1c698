import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { createAddressPolicy, createGuardedLookup, DestinationRefusedError, type Resolver } from '../src';

// Ranges whose IPv4 addresses must never be reached without an opt-in of their own.
const REFUSED_V4 = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '100.64.0.0/10',
  '0.0.0.0/8',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/** An address inside one of REFUSED_V4, built by ipaddr.js from random host bits. */
const refusedV4 = fc
  .tuple(fc.constantFrom(...REFUSED_V4), fc.integer({ min: 0, max: 2 ** 32 - 1 }))
  .map(([cidr, bits]) => {
    const [network, length] = ipaddr.IPv4.parseCIDR(cidr);
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
    const value = ((toInt(network) & mask) | (bits & ~mask)) >>> 0;
    return { cidr, address: fromInt(value) };
  });

function toInt(v4: ipaddr.IPv4): number {
  return v4.octets.reduce((acc, octet) => acc * 256 + octet, 0);
}

function fromInt(value: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}

/** 128-bit arithmetic, independent of the byte positions the implementation uses. */
function v6(value: bigint): ipaddr.IPv6 {
  const parts: number[] = [];
  for (let i = 7; i >= 0; i--) parts.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  return new ipaddr.IPv6(parts);
}

const big = (v4: ipaddr.IPv4) => BigInt(toInt(v4));
const prefix = (text: string) =>
  ipaddr.IPv6.parse(text).parts.reduce((acc, part) => (acc << 16n) | BigInt(part), 0n);

/** RFC 6052 §2.2 by bit arithmetic: the 32 IPv4 bits after the prefix, skipping bits 64-71. */
function nat64(prefixText: string, length: number, v4: ipaddr.IPv4): ipaddr.IPv6 {
  const ip = big(v4);
  const base = prefix(prefixText);
  if (length === 96) return v6(base | ip);
  if (length === 64) return v6(base | (ip << 24n));
  const before = BigInt(64 - length); // IPv4 bits that fit between the prefix and bit 64
  const high = ip >> (32n - before);
  const low = ip & ((1n << (32n - before)) - 1n);
  return v6(base | (high << 64n) | (low << (56n - (32n - before))));
}

interface Wrapped {
  kind: string;
  wrapper: ipaddr.IPv6;
  /** The CIDR an operator would list to let this kind of wrapper through. */
  wrapperCidr: string;
}

const wrapped = (v4: ipaddr.IPv4): fc.Arbitrary<Wrapped> =>
  fc.oneof(
    fc.constant({
      kind: 'ipv4-mapped',
      wrapper: v6((0xffffn << 32n) | big(v4)),
      wrapperCidr: '::ffff:0:0/96',
    }),
    fc.constant({ kind: 'nat64', wrapper: nat64('64:ff9b::', 96, v4), wrapperCidr: '64:ff9b::/96' }),
    fc.bigInt({ min: 0n, max: (1n << 80n) - 1n }).map((rest) => ({
      kind: '6to4',
      wrapper: v6((0x2002n << 112n) | (big(v4) << 80n) | rest),
      wrapperCidr: '2002::/16',
    })),
    fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((middle) => ({
      kind: 'teredo',
      wrapper: v6((0x20010000n << 96n) | (middle << 32n) | (big(v4) ^ 0xffffffffn)),
      wrapperCidr: '2001::/32',
    })),
    fc.constant({ kind: 'rfc6145', wrapper: v6((0xffffn << 48n) | big(v4)), wrapperCidr: '::ffff:0:0:0/96' }),
    fc.constant({ kind: 'ipv4-compatible', wrapper: v6(big(v4)), wrapperCidr: '::/96' }),
    fc.constantFrom(48, 56, 64, 96).map((length) => {
      const site = length === 48 ? '64:ff9b:1::' : length === 56 ? '64:ff9b:1:ab00::' : '64:ff9b:1:abcd::';
      return {
        kind: `nat64-local/${length}`,
        wrapper: nat64(site, length, v4),
        wrapperCidr: `${site}/${length}`,
      };
    }),
  );

const scenario = refusedV4.chain(({ cidr, address }) =>
  fc.record({
    cidr: fc.constant(cidr),
    v4: fc.constant(address),
    wrapped: wrapped(address),
    broad: fc.subarray(['::/0', '2000::/3', '::/8'], { minLength: 0 }),
    textForm: fc.constantFrom('compressed', 'normalized'),
  }),
);

const text = (address: ipaddr.IPv6, form: string) =>
  form === 'normalized' ? address.toNormalizedString() : address.toString();

describe('an IPv6 range that carries IPv4 in the opt-in list (property)', () => {
  it('never lets through the private IPv4 it carries', () => {
    fc.assert(
      fc.property(scenario, ({ v4, wrapped: w, broad, textForm }) => {
        // ::0.0.0.1 is ::1 itself, which carries nothing: the list's ::/96 names it directly.
        fc.pre(w.kind !== 'ipv4-compatible' || toInt(v4) !== 1);
        const policy = createAddressPolicy({ allowPrivateCidrs: [w.wrapperCidr, ...broad] });
        const verdict = policy.check(text(w.wrapper, textForm));
        expect(verdict.allowed).toBe(false);
        // The refusal names what would have been reached, when it got that far.
        if (!verdict.allowed && verdict.address !== w.wrapper.toString()) {
          expect(verdict.address).toBe(v4.toString());
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('lets it through once the IPv4 range itself is allowed, and reports the IPv4 reached', () => {
    fc.assert(
      fc.property(scenario, ({ cidr, v4, wrapped: w, textForm }) => {
        // 0.0.0.0/8 reaches this host itself: no opt-in allows it (below).
        fc.pre(cidr !== '0.0.0.0/8');
        const policy = createAddressPolicy({ allowPrivateCidrs: [w.wrapperCidr, cidr] });
        expect(policy.check(text(w.wrapper, textForm))).toEqual({ allowed: true, address: v4.toString() });
      }),
      { numRuns: 2000 },
    );
  });

  it('the IPv4 range alone does not open the wrappers that need their own opt-in', () => {
    fc.assert(
      fc.property(scenario, ({ cidr, wrapped: w }) => {
        fc.pre(cidr !== '0.0.0.0/8');
        const verdict = createAddressPolicy({ allowPrivateCidrs: [cidr] }).check(w.wrapper.toString());
        const transparent = ['ipv4-mapped', 'nat64', '6to4'].includes(w.kind);
        expect(verdict.allowed).toBe(transparent);
      }),
      { numRuns: 1000 },
    );
  });

  it('0.0.0.0/8 and :: are never allowed, whatever the list says: they reach this host', () => {
    const everything = createAddressPolicy({ allowPrivateCidrs: ['0.0.0.0/0', '::/0'], allowLoopback: true });
    for (const ip of ['0.0.0.0', '0.1.2.3', '::', '::ffff:0.0.0.0', '64:ff9b::', '2002::']) {
      expect(everything.check(ip)).toMatchObject({ allowed: false, range: 'unspecified' });
    }
  });

  it('examples: the forms named in the issue', () => {
    const open = (cidrs: string[], ip: string) => createAddressPolicy({ allowPrivateCidrs: cidrs }).check(ip);
    expect(open(['::ffff:0:0/96'], '::ffff:10.0.0.1')).toMatchObject({ allowed: false, range: 'private' });
    expect(open(['64:ff9b::/96'], '64:ff9b::a00:1')).toMatchObject({ allowed: false, address: '10.0.0.1' });
    expect(open(['2002::/16'], '2002:a9fe:a9fe::')).toMatchObject({ allowed: false, range: 'linkLocal' });
    expect(open(['::/0'], '64:ff9b::7f00:1')).toMatchObject({ allowed: false, range: 'loopback' });
    expect(open(['64:ff9b::/96', '10.0.0.0/8'], '64:ff9b::a00:1')).toEqual({
      allowed: true,
      address: '10.0.0.1',
    });
    // A local-use NAT64 prefix listed without a valid RFC 6052 length cannot say where the IPv4 sits.
    expect(open(['64:ff9b::/32', '0.0.0.0/0'], '64:ff9b:1::a00:1')).toMatchObject({
      allowed: false,
      range: 'rfc6052',
    });
  });
});

describe('the guarded lookup hands node:net only what the policy judged', () => {
  const run = (resolver: Resolver) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) => {
      const lookup = createGuardedLookup(createAddressPolicy(), resolver) as unknown as (
        h: string,
        o: object,
        cb: (e: Error | null, a: unknown) => void,
      ) => void;
      lookup('hooks.example', { all: true }, (error, address) => resolve({ error, address }));
    });

  it.each([
    ['a lenient IPv4 form the policy parser reads differently', '010.0.0.1'],
    ['a hex IPv4 form', '0x5db8d822'],
    ['a bracketed literal', '[2606:2800:220:1:248:1893:25c8:1946]'],
    ['not an address', 'hooks.example'],
    ['a number', 93],
  ])('refuses %s', async (_name, address) => {
    const result = await run(async () => [{ address, family: 4 } as never]);
    expect(result.error).toBeInstanceOf(DestinationRefusedError);
    expect(result.address).toEqual([]);
  });

  it('takes the family from the address, not from what the resolver claims', async () => {
    const result = await run(async () => [{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 4 }]);
    expect(result.address).toEqual([{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }]);
  });
});
