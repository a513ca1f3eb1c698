import { QueueError } from '@queueport/core';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';
import { describe, expect, it } from 'vitest';

function refusal(options: MemoryDriverOptions): QueueError {
  try {
    new MemoryDriver(options);
  } catch (error) {
    return error as QueueError;
  }
  throw new Error('expected the options to be refused');
}

describe('MemoryDriver checks its options as its memory:// URL does', () => {
  it.each([
    ['batchMax', { batchMax: 0 }],
    ['batchMax', { batchMax: 2.5 }],
    ['maxReceives', { maxReceives: 0 }],
    ['retentionSeconds', { retentionSeconds: -1 }],
    ['nativeMaxDelaySeconds', { nativeMaxDelaySeconds: 0 }],
    ['nativeMaxDelaySeconds', { nativeMaxDelaySeconds: Number.NaN }],
    ['fractionalDelay', { fractionalDelay: 'yes' as unknown as boolean }],
    ['ordering', { ordering: 'fifo' as MemoryDriverOptions['ordering'] }],
    ['name', { name: 42 as unknown as string }],
    ['dedupe', { dedupe: { kind: 'window', windowSeconds: 0 } }],
    ['dedupe', { dedupe: { kind: 'window' } as MemoryDriverOptions['dedupe'] }],
    ['dedupe', { dedupe: { kind: 'forever' } as unknown as MemoryDriverOptions['dedupe'] }],
  ] as const)('refuses %s in %o', (field, options) => {
    const error = refusal(options as MemoryDriverOptions);
    expect(error).toBeInstanceOf(QueueError);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.details?.field).toMatch(new RegExp(`^${field}`));
    expect(error.message).toContain('memory driver options');
  });

  it('accepts the smallest values and every dedupe kind', () => {
    const driver = new MemoryDriver({
      batchMax: 1,
      maxReceives: 1,
      retentionSeconds: 1,
      nativeMaxDelaySeconds: 1,
    });
    expect(driver.capabilities.batch).toEqual({ publish: 1, receive: 1, settle: 1 });
    for (const dedupe of [
      { kind: 'none' },
      { kind: 'while-retained' },
      { kind: 'window', windowSeconds: 1 },
    ] as const) {
      expect(new MemoryDriver({ dedupe }).capabilities.dedupe).toMatchObject(dedupe);
    }
  });

  it('refuses an option that cannot be read with a typed error', () => {
    const options = Object.defineProperty({}, 'batchMax', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(() => new MemoryDriver(options)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
