import ipaddr from 'ipaddr.js';
import { compileOptionValidator, withoutUndefined } from '../sender/option-validator';
import { type Address, type Cidr, inCidr, wrapperOf } from './ipv4-carriers';
import { addressPolicyOptionsSchema } from './ssrf-options-schema';

export interface AddressPolicyOptions {
  /** Allow 127.0.0.0/8 and ::1. For tests and local examples only: an explicit opt-in. */
  allowLoopback?: boolean;
  /**
   * CIDRs that are allowed although not public unicast (`10.20.0.0/16`, `fd00:1::/32`): the
   * explicit allow-list for deployments that really deliver to an internal network. An IPv6
   * range that carries IPv4 (NAT64, 6to4, Teredo...) lets the IPv6 form through, never the
   * IPv4 address it carries: that one must be public or allowed here in its own right.
   */
  allowPrivateCidrs?: readonly string[];
}

export type AddressVerdict =
  | { allowed: true; address: string }
  | { allowed: false; address: string; range: string; message: string };

const CIDR_HINT = ' (list its CIDR in allowPrivateCidrs to allow it explicitly)';
// Only ranges an operator may legitimately want get a hint; multicast or 0.0.0.0 get none.
const HINTS: Readonly<Record<string, string>> = {
  loopback: ' (set allowLoopback to allow it explicitly)',
  private: CIDR_HINT,
  uniqueLocal: CIDR_HINT,
  carrierGradeNat: CIDR_HINT,
  rfc6052:
    ' (list your NAT64 prefix, with its length /48, /56, /64 or /96, in allowPrivateCidrs; the IPv4 address it carries is checked too)',
};

export interface AddressPolicy {
  check(ip: string): AddressVerdict;
}

const checkOptions = compileOptionValidator(addressPolicyOptionsSchema, {
  subject: 'SSRF options',
  prepare: withoutUndefined,
});

/**
 * Parses the options once (a bad CIDR is a configuration error, reported at construction) and
 * returns the checker every resolved or literal address goes through.
 */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const checked = checkOptions(options) as AddressPolicyOptions;
  const allowLoopback = checked.allowLoopback === true;
  const allowed = (checked.allowPrivateCidrs ?? []).map((cidr) => ipaddr.parseCIDR(cidr) as Cidr);
  return { check: (ip) => checkParsed(ip, allowLoopback, allowed) };
}

/** One-off check; prefer `createAddressPolicy` on hot paths. */
export function checkAddress(ip: string, options: AddressPolicyOptions = {}): AddressVerdict {
  return createAddressPolicy(options).check(ip);
}

/**
 * Every layer of the address must pass: the IPv6 wrapper (when there is one) and the IPv4
 * address it carries, which is where the packets end up. The allow-list wins over every
 * range, loopback included (the operator wrote it), but only for the layer it names.
 */
function checkParsed(raw: unknown, allowLoopback: boolean, allowedCidrs: readonly Cidr[]): AddressVerdict {
  const input = typeof raw === 'string' ? raw : '';
  const text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  let parsed: Address;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1, ::ffff:7f00:1) into the IPv4 address.
    parsed = ipaddr.process(text);
  } catch {
    // Quoted and cut short: the text came from a resolver and ends up in log lines.
    const quoted = JSON.stringify(input.length > 64 ? `${input.slice(0, 64)}…` : input);
    return { allowed: false, address: input, range: 'invalid', message: `${quoted} is not an IP address` };
  }
  const passes = (address: Address, range: string) =>
    // A connection to 0.0.0.0 or :: reaches this host itself: no allow-list entry means that.
    range !== 'unspecified' &&
    (allowedCidrs.some((cidr) => inCidr(address, cidr)) ||
      range === 'unicast' ||
      (range === 'loopback' && allowLoopback));
  const wrapper = wrapperOf(parsed);
  if (!wrapper) {
    const range = parsed.range();
    return passes(parsed, range) ? { allowed: true, address: parsed.toString() } : refused(parsed, range);
  }
  const v6 = parsed as ipaddr.IPv6;
  if (!wrapper.transparent && !passes(v6, wrapper.range)) return refused(v6, wrapper.range);
  const carried = wrapper.carried(v6, allowedCidrs);
  if (!carried) return refused(v6, wrapper.range);
  const range = carried.range();
  return passes(carried, range)
    ? { allowed: true, address: carried.toString() }
    : refused(carried, range, v6);
}

function refused(address: Address, range: string, wrapper?: ipaddr.IPv6): AddressVerdict {
  const shown = wrapper ? `${address.toString()} (embedded in ${wrapper.toString()})` : address.toString();
  return {
    allowed: false,
    address: address.toString(),
    range,
    message: `${shown} is ${range}${HINTS[range] ?? ''}`,
  };
}
