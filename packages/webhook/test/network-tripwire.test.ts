import { once } from 'node:events';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { installNetworkTripwire } from './helpers/network-tripwire';

// The SSRF tests lean on this safety net; prove it would catch a guard that let an address through.
describe('network tripwire (test helper)', () => {
  it('throws before a socket exists for a non-loopback literal', () => {
    const tripwire = installNetworkTripwire();
    try {
      expect(() => net.connect({ host: '10.0.0.1', port: 9 })).toThrow(/tripwire/);
      expect(tripwire.violations).toEqual(['10.0.0.1']);
    } finally {
      tripwire.restore();
    }
  });

  it('fails the connect when a lookup yields a non-loopback address', async () => {
    const tripwire = installNetworkTripwire();
    try {
      const socket = net.connect({
        host: 'leaky.test',
        port: 9,
        lookup: ((_host: string, _options: unknown, callback: (e: null, a: unknown, f?: number) => void) =>
          callback(null, [{ address: '10.0.0.1', family: 4 }])) as unknown as net.LookupFunction,
      });
      const [error] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
      expect(error.code).toBe('ETRIPWIRE');
      expect(tripwire.violations).toEqual(['10.0.0.1']);
    } finally {
      tripwire.restore();
    }
  });
});
