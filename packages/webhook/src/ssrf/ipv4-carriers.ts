import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

/** An IPv6 range whose packets really go to an IPv4 address written inside the IPv6 one. */
export interface Ipv4Carrier {
  /** ipaddr.js's name for the range, or ours where it has none. */
  range: string;
  cidr: Cidr;
  /**
   * The range needs no opt-in of its own: only the IPv4 address decides. True where refusing
   * the wrapper would break ordinary networks (NAT64 on IPv6-only hosts) and say nothing about
   * where the packets end up.
   */
  transparent: boolean;
  /** The IPv4 address reached, or undefined when it cannot be known. */
  carried(address: ipaddr.IPv6, allowed: readonly Cidr[]): ipaddr.IPv4 | undefined;
}

const cidr = (text: string) => ipaddr.parseCIDR(text) as Cidr;
// RFC 6052 §2.2: the prefix lengths a NAT64 prefix may have; each puts the IPv4 elsewhere.
const NAT64_PREFIX_LENGTHS = new Set([32, 40, 48, 56, 64, 96]);

const CARRIERS: readonly Ipv4Carrier[] = [
  // RFC 6052 well-known prefix: always a /96, the IPv4 address in the last 32 bits.
  { range: 'rfc6052', cidr: cidr('64:ff9b::/96'), transparent: true, carried: (v6) => rfc6052(v6, 96) },
  {
    // RFC 8215 local-use prefix: the operator picks the NAT64 prefix and its length, and the
    // length decides where the IPv4 address sits, so it is read from the allow-list entry.
    range: 'rfc6052',
    cidr: cidr('64:ff9b:1::/48'),
    transparent: false,
    carried: (v6, allowed) => {
      const bits = longestNat64Prefix(v6, allowed);
      return bits === undefined ? undefined : rfc6052(v6, bits);
    },
  },
  // RFC 3056 6to4: 2002:AABB:CCDD::/48 is routed to AA.BB.CC.DD.
  { range: '6to4', cidr: cidr('2002::/16'), transparent: true, carried: (v6) => ipv4At(v6, [2, 3, 4, 5]) },
  // RFC 4380 Teredo: the client's IPv4 address is the last 32 bits, inverted.
  {
    range: 'teredo',
    cidr: cidr('2001::/32'),
    transparent: false,
    carried: (v6) => new ipaddr.IPv4(bytesAt(v6, [12, 13, 14, 15]).map((b) => b ^ 0xff)),
  },
  // RFC 6145 IPv4-translated addresses, ::ffff:0:a.b.c.d.
  {
    range: 'rfc6145',
    cidr: cidr('::ffff:0:0:0/96'),
    transparent: false,
    carried: (v6) => ipv4At(v6, [12, 13, 14, 15]),
  },
  // RFC 4291 IPv4-compatible addresses (::a.b.c.d, deprecated): ipaddr.js calls them unicast,
  // yet some stacks still route them to the IPv4 address. Nothing legitimate uses them.
  {
    range: 'ipv4Compatible',
    cidr: cidr('::/96'),
    transparent: false,
    carried: (v6) => ipv4At(v6, [12, 13, 14, 15]),
  },
];

/** IPv4-mapped addresses are not here: `ipaddr.process` has already turned them into IPv4. */
export function wrapperOf(address: Address): Ipv4Carrier | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const range = address.range();
  // :: and ::1 lie in ::/96 but keep their own meaning.
  if (range === 'unspecified' || range === 'loopback') return undefined;
  return CARRIERS.find((carrier) => inCidr(address, carrier.cidr));
}

export function inCidr(address: Address, [network, bits]: Cidr): boolean {
  // ipaddr.js throws when the kinds differ; an IPv4 CIDR simply does not contain an IPv6 address.
  if (address.kind() !== network.kind()) return false;
  return (address as ipaddr.IPv4).match(network as ipaddr.IPv4, bits);
}

/** RFC 6052 §2.2: the IPv4 octets follow the prefix, skipping the reserved octet (bits 64-71). */
function rfc6052(v6: ipaddr.IPv6, prefixLength: number): ipaddr.IPv4 {
  const positions: number[] = [];
  for (let i = prefixLength / 8; positions.length < 4; i++) if (i !== 8) positions.push(i);
  return ipv4At(v6, positions);
}

function longestNat64Prefix(v6: ipaddr.IPv6, allowed: readonly Cidr[]): number | undefined {
  let longest: number | undefined;
  for (const entry of allowed) {
    const bits = entry[1];
    if (NAT64_PREFIX_LENGTHS.has(bits) && bits >= 48 && inCidr(v6, entry) && bits > (longest ?? -1)) {
      longest = bits;
    }
  }
  return longest;
}

function ipv4At(v6: ipaddr.IPv6, positions: readonly number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytesAt(v6, positions));
}

function bytesAt(v6: ipaddr.IPv6, positions: readonly number[]): number[] {
  const bytes = v6.toByteArray();
  return positions.map((i) => bytes[i]!);
}
