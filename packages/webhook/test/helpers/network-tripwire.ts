import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { vi } from 'vitest';

type AnyFn = (...args: unknown[]) => unknown;
type LookupCallback = (error: Error | null, address?: unknown, family?: number) => void;

/**
 * A safety net for SSRF tests: wraps node:net and node:tls `connect` (which undici calls) so
 * that no socket can ever be opened to a non-loopback address, even if the guard under test
 * were broken. A literal non-loopback host throws before any socket exists; a name's lookup
 * result is filtered the same way. `violations` lists what the guard let through.
 */
export function installNetworkTripwire() {
  const connects: string[] = [];
  const violations: string[] = [];
  const resolved: string[] = [];

  const wrap = (real: AnyFn): AnyFn =>
    function (this: unknown, ...args: unknown[]) {
      const options = args[0];
      if (typeof options !== 'object' || options === null) {
        violations.push('connect called without an options object');
        throw new Error('tripwire: unexpected connect signature');
      }
      const opts = options as { host?: string; lookup?: AnyFn };
      const host = opts.host ?? 'localhost';
      connects.push(host);
      if (net.isIP(host) !== 0 && !isLoopback(host)) {
        violations.push(host);
        throw new Error(`tripwire: refused to connect to ${host}`);
      }
      const inner = (opts.lookup ?? dns.lookup) as AnyFn;
      const lookup = (hostname: string, lookupOptions: unknown, callback: LookupCallback) => {
        inner(hostname, lookupOptions, (error: Error | null, address: unknown, family?: number) => {
          if (error) return callback(error, address, family);
          const list = Array.isArray(address)
            ? (address as { address: string }[]).map((a) => a.address)
            : [String(address)];
          resolved.push(...list);
          const bad = list.filter((a) => !isLoopback(a));
          if (bad.length > 0) {
            violations.push(...bad);
            return callback(
              Object.assign(new Error('tripwire: non-loopback address'), { code: 'ETRIPWIRE' }),
            );
          }
          callback(null, address, family);
        });
      };
      return real.call(this, { ...opts, lookup }, ...args.slice(1));
    };

  // The originals are taken before spying: the spy must call the real connect, not itself.
  const wrappedNet = wrap(net.connect as AnyFn) as typeof net.connect;
  const wrappedTls = wrap(tls.connect as AnyFn) as typeof tls.connect;
  const netSpy = vi.spyOn(net, 'connect').mockImplementation(wrappedNet);
  const tlsSpy = vi.spyOn(tls, 'connect').mockImplementation(wrappedTls);
  return {
    /** Hosts undici asked node to connect to (a name here means only its lookup ran). */
    connects,
    /** Addresses a lookup handed to node:net (i.e. approved by the guard). */
    resolved,
    violations,
    restore() {
      netSpy.mockRestore();
      tlsSpy.mockRestore();
    },
  };
}

function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}
