import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMemoryUrl, memoryUrls, parseMemoryUrl } from '../src/memory-url';

const parse = (url: string) => parseMemoryUrl(new URL(url));

describe('parseMemoryUrl', () => {
  it('names the queue by the host (and any path), and reads the options it gives', () => {
    expect(parse('memory://orders?dedupe=window:60&ordering=none&fractionalDelay=true&batchMax=4')).toEqual({
      name: 'orders',
      options: {
        dedupe: { kind: 'window', windowSeconds: 60 },
        ordering: 'none',
        fractionalDelay: true,
        batchMax: 4,
      },
    });
    expect(parse('memory://orders/eu/').name).toBe('orders/eu');
    expect(parse('memory://').name).toBe('');
  });

  it('round-trips any name through formatMemoryUrl, options kept', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (name) => {
        const url = formatMemoryUrl(name, new URLSearchParams('maxReceives=5'));
        expect(parse(url)).toEqual({ name, options: { maxReceives: 5 } });
      }),
      { numRuns: 300 },
    );
  });

  it('is the provider URL without the queue, and the queue URL of a provider plus a name', () => {
    const queue = new URL('memory://orders?maxReceives=5');
    expect(memoryUrls.providerUrl(queue)).toBe('memory://?maxReceives=5');
    expect(memoryUrls.queueUrl(new URL('memory://?maxReceives=5'), 'invoices eu')).toBe(
      'memory://invoices%20eu?maxReceives=5',
    );
    expect(memoryUrls.envNames(queue)).toEqual([]);
  });

  it('refuses 0 where the option is a count or a duration, by its bounds', () => {
    for (const option of ['batchMax', 'maxReceives', 'retentionSeconds', 'nativeMaxDelaySeconds']) {
      expect(() => parse(`memory://q?${option}=0`), option).toThrow(`memory:// option ${option} is invalid`);
    }
    expect(() => parse('memory://q?dedupe=window:0')).toThrow(
      'expected none, while-retained or window:<seconds>',
    );
  });
});
