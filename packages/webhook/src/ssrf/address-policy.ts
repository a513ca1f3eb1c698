import { QueueError } from '@queueport/core';
import ipaddr from 'ipaddr.js';

export interface AddressPolicyOptions {
  /** Allow 127.0.0.0/8 and ::1. For tests and local examples only: an explicit opt-in. */
  allowLoopback?: boolean;
  /**
   * CIDRs that are allowed although not public unicast (`10.20.0.0/16`, `fd00:1::/32`): the
   * explicit allow-list for deployments that really deliver to an internal network.
   */
  allowPrivateCidrs?: readonly string[];
}

export type AddressVerdict =
  | { allowed: true; address: string }
  | { allowed: false; address: string; range: string; message: string };

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

// Prefixes whose traffic really goes to an IPv4 address embedded in the IPv6 one. The embedded
// address decides: ipaddr.js names these ranges `rfc6052` and `6to4` (never `unicast`), so
// judging the wrapper alone would refuse every NAT64 destination on an IPv6-only network while
// telling us nothing about where the packets end up.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96') as Cidr;
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16') as Cidr;
// IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291): ipaddr.js calls them unicast,
// yet some stacks still route them to the IPv4 address. Nothing legitimate uses them.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as Cidr;

const CIDR_HINT = ' (list its CIDR in allowPrivateCidrs to allow it explicitly)';
// Only ranges an operator may legitimately want get a hint; multicast or 0.0.0.0 get none.
const HINTS: Readonly<Record<string, string>> = {
  loopback: ' (set allowLoopback to allow it explicitly)',
  private: CIDR_HINT,
  uniqueLocal: CIDR_HINT,
  carrierGradeNat: CIDR_HINT,
};

export interface AddressPolicy {
  check(ip: string): AddressVerdict;
}

/**
 * Parses the options once (a bad CIDR is a configuration error, reported at construction) and
 * returns the checker every resolved or literal address goes through.
 */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowLoopback = options.allowLoopback === true;
  const allowed = (options.allowPrivateCidrs ?? []).map(parseAllowedCidr);
  return { check: (ip) => checkParsed(ip, allowLoopback, allowed) };
}

/** One-off check; prefer `createAddressPolicy` on hot paths. */
export function checkAddress(ip: string, options: AddressPolicyOptions = {}): AddressVerdict {
  return createAddressPolicy(options).check(ip);
}

function parseAllowedCidr(cidr: string): Cidr {
  try {
    return ipaddr.parseCIDR(cidr) as Cidr;
  } catch {
    throw new QueueError('INVALID_ARGUMENT', `allowPrivateCidrs: "${cidr}" is not a CIDR (e.g. 10.0.0.0/8)`, {
      details: { cidr },
    });
  }
}

function checkParsed(raw: string, allowLoopback: boolean, allowedCidrs: readonly Cidr[]): AddressVerdict {
  const text = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  let parsed: Address;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1, ::ffff:7f00:1) into the IPv4 address.
    parsed = ipaddr.process(text);
  } catch {
    return { allowed: false, address: raw, range: 'invalid', message: `"${raw}" is not an IP address` };
  }
  const target = embeddedIpv4(parsed) ?? parsed;
  const address = target.toString();

  // The explicit allow-list wins over every range, loopback included: the operator wrote it.
  if (allowedCidrs.some((cidr) => inCidr(target, cidr) || inCidr(parsed, cidr))) {
    return { allowed: true, address };
  }
  const range = rangeOf(target);
  if (range === 'unicast') return { allowed: true, address };
  if (range === 'loopback' && allowLoopback) return { allowed: true, address };
  const shown = target === parsed ? address : `${address} (embedded in ${parsed.toString()})`;
  return { allowed: false, address, range, message: `${shown} is ${range}${HINTS[range] ?? ''}` };
}

function rangeOf(target: Address): string {
  const range = target.range();
  // :: and ::1 keep their own names; the rest of ::/96 is the deprecated compatible form.
  if (range === 'unicast' && target.kind() === 'ipv6' && inCidr(target, IPV4_COMPATIBLE))
    return 'ipv4Compatible';
  return range;
}

function embeddedIpv4(address: Address): ipaddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const v6 = address as ipaddr.IPv6;
  const p = v6.parts;
  if (inCidr(v6, NAT64_WELL_KNOWN)) return ipv4From(p[6]!, p[7]!);
  if (inCidr(v6, SIX_TO_FOUR)) return ipv4From(p[1]!, p[2]!);
  return undefined;
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function inCidr(address: Address, [network, bits]: Cidr): boolean {
  // ipaddr.js throws when the kinds differ; an IPv4 CIDR simply does not contain an IPv6 address.
  if (address.kind() !== network.kind()) return false;
  return (address as ipaddr.IPv4).match(network as ipaddr.IPv4, bits);
}
