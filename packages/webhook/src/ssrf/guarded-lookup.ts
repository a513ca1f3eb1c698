import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy, AddressVerdict } from './address-policy';
import { DestinationRefusedError } from './destination-refused-error';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injected in tests; `dns.lookup` by default. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    // verbatim: keep the resolver's order, so what we check is what node:net would try.
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })));
    });
  });

/**
 * A `lookup` for `new undici.Agent({ connect: { lookup } })`. node:net calls it before it opens
 * the socket, so a refusal here means no connection is ever attempted. Every resolved address
 * must pass, not just one: a name that answers one public and one private address is the
 * classic DNS-rebinding setup, and node:net may try any of them (happy eyeballs).
 */
export function createGuardedLookup(
  policy: AddressPolicy,
  resolver: Resolver = systemResolver,
): LookupFunction {
  const guarded = (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: Callback,
  ) => {
    resolveChecked(hostname, policy, resolver).then(
      (addresses) => {
        const wanted = familyOf(options.family);
        const usable = wanted === 0 ? addresses : addresses.filter((a) => a.family === wanted);
        if (usable.length === 0) {
          callback(noAddress(hostname), options.all ? [] : '', 0);
        } else if (options.all) {
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : '', 0),
    );
  };
  return guarded as unknown as LookupFunction;
}

type Callback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

async function resolveChecked(
  hostname: string,
  policy: AddressPolicy,
  resolver: Resolver,
): Promise<readonly ResolvedAddress[]> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const literal = isIP(bare);
  const resolved: readonly ResolvedAddress[] =
    literal !== 0 ? [{ address: bare, family: literal === 6 ? 6 : 4 }] : await resolver(bare);
  if (!Array.isArray(resolved) || resolved.length === 0) throw noAddress(hostname);
  const checked: ResolvedAddress[] = [];
  for (const entry of resolved) {
    const address = (entry as Partial<ResolvedAddress> | null)?.address;
    // What node:net connects to is this exact string, parsed strictly; the policy's parser is
    // more lenient (`0x7f.1`, `010.0.0.1`), so anything but a canonical literal could be judged
    // as one address and reached as another. The family is taken from the string, too.
    const family = typeof address === 'string' ? isIP(address) : 0;
    const verdict: AddressVerdict =
      family === 0
        ? { allowed: false, address: '', range: 'invalid', message: 'an address that is not an IP literal' }
        : policy.check(address as string);
    if (!verdict.allowed) {
      throw new DestinationRefusedError(`destination refused: ${hostname} resolves to ${verdict.message}`, {
        reason: 'address',
        host: hostname,
        ...(verdict.address === '' ? {} : { address: verdict.address }),
        range: verdict.range,
      });
    }
    checked.push({ address: address as string, family: family === 6 ? 6 : 4 });
  }
  return checked;
}

function familyOf(family: number | string | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

function noAddress(hostname: string): NodeJS.ErrnoException {
  // Same shape as getaddrinfo's failure, so it is classified as a transient network error.
  const error: NodeJS.ErrnoException = new Error(`no usable address for ${hostname}`);
  error.code = 'ENOTFOUND';
  return error;
}
