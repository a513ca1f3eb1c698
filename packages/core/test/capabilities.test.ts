import { Queue } from '@queueport/core';
import {
  assertCapabilities,
  BRIDGE_RESERVED_BYTES,
  type Capabilities,
  effectiveCapabilities,
  MAX_LONG_POLL_SECONDS,
  MAX_RETENTION_SECONDS,
  QueueError,
} from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';
import { batchOf, RecordingDriver, testCapabilities } from './helpers/recording-driver';

function problemsOf(caps: Capabilities): string {
  try {
    assertCapabilities(caps, 'broken');
  } catch (error) {
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).code).toBe('INVALID_ARGUMENT');
    return (error as QueueError).message;
  }
  throw new Error('expected assertCapabilities to throw');
}

describe('assertCapabilities', () => {
  it('accepts a consistent manifest', () => {
    expect(() => assertCapabilities(testCapabilities(), 'ok')).not.toThrow();
    expect(() =>
      assertCapabilities(testCapabilities({ dedupe: { kind: 'window', windowSeconds: 300 } }), 'ok'),
    ).not.toThrow();
    // reportsDuplicates is optional: manifests written before it still pass, with it too.
    for (const reportsDuplicates of [true, false]) {
      expect(() =>
        assertCapabilities(testCapabilities({ dedupe: { kind: 'while-retained', reportsDuplicates } }), 'ok'),
      ).not.toThrow();
    }
  });

  it.each<[string, Partial<Capabilities>, string]>([
    ['maxBodyBytes 0', { maxBodyBytes: 0 }, 'maxBodyBytes must be a positive number'],
    ['maxBodyBytes NaN', { maxBodyBytes: Number.NaN }, 'maxBodyBytes must be a positive number'],
    ['batch.publish 0', { batch: { ...batchOf(10), publish: 0 } }, 'batch.publish must be an integer >= 1'],
    [
      'batch.receive 1.5',
      { batch: { ...batchOf(10), receive: 1.5 } },
      'batch.receive must be an integer >= 1',
    ],
    [
      'batch.settle NaN',
      { batch: { ...batchOf(10), settle: Number.NaN } },
      'batch.settle must be an integer >= 1',
    ],
    ['no batch limits', { batch: undefined as never }, 'batch.publish must be an integer >= 1'],
    ['negative longPollMaxSeconds', { longPollMaxSeconds: -1 }, 'longPollMaxSeconds must be >= 0'],
    [
      'an unknown staleReceipt',
      { staleReceipt: 'maybe' as never },
      "staleReceipt must be 'rejected' or 'ignored'",
    ],
    [
      'a zero redriveAfterReceives',
      { deadLetter: { move: true, redriveAfterReceives: 0 } },
      'deadLetter.redriveAfterReceives must be an integer >= 1',
    ],
    [
      'a missing redriveAfterReceives',
      { deadLetter: { move: true } as never },
      'deadLetter.redriveAfterReceives must be a number or null',
    ],
    [
      'a bridge with a native delay under a second',
      { delay: { maxSeconds: 900, nativeMaxSeconds: 0, fractional: false } },
      'nativeMaxSeconds must be at least 1 s',
    ],
    [
      'retention Infinity',
      { retentionSeconds: Number.POSITIVE_INFINITY },
      'retentionSeconds must be a positive number',
    ],
    [
      'negative delay max',
      { delay: { maxSeconds: -1, nativeMaxSeconds: -1, fractional: false } },
      'delay.maxSeconds must be >= 0',
    ],
    [
      'native delay above the max',
      { delay: { maxSeconds: 900, nativeMaxSeconds: 901, fractional: false } },
      'nativeMaxSeconds exceeds',
    ],
    ['lease min above max', { leaseSeconds: { min: 10, max: 5 } }, 'leaseSeconds must satisfy'],
    ['negative lease min', { leaseSeconds: { min: -1, max: 5 } }, 'leaseSeconds must satisfy'],
    [
      'a zero dedupe window',
      { dedupe: { kind: 'window', windowSeconds: 0 } },
      'dedupe.windowSeconds must be a positive number',
    ],
    ['a dedupe without a kind', { dedupe: {} as never }, 'dedupe.kind must be one of'],
    [
      'a reportsDuplicates that is not a boolean',
      { dedupe: { kind: 'window', windowSeconds: 60, reportsDuplicates: 'yes' } as never },
      'dedupe.reportsDuplicates must be a boolean',
    ],
    [
      'reportsDuplicates on a dedupe of none',
      { dedupe: { kind: 'none', reportsDuplicates: true } as never },
      "cannot be true where dedupe.kind is 'none'",
    ],
    ['an unknown dedupe kind', { dedupe: { kind: '' } as never }, 'dedupe.kind must be one of'],
    ['no ordering', { ordering: undefined as never }, 'ordering must be one of'],
    ['an unknown ordering', { ordering: 'fifo' as never }, 'ordering must be one of'],
  ])('rejects %s', (_name, overrides, problem) => {
    const message = problemsOf(testCapabilities(overrides));
    expect(message).toContain('broken');
    expect(message).toContain(problem);
  });

  it('names every problem at once', () => {
    const message = problemsOf(testCapabilities({ batch: batchOf(0), maxBodyBytes: -5 }));
    expect(message).toContain('batch.settle');
    expect(message).toContain('maxBodyBytes');
  });

  it('is enforced when a Queue wraps the driver', () => {
    expect(() => new Queue(new RecordingDriver({ capabilities: { batch: batchOf(0) } }))).toThrow(
      /batch.publish must be an integer >= 1/,
    );
  });

  it('refuses a default lease outside the manifest', () => {
    const driver = new RecordingDriver({ capabilities: { leaseSeconds: { min: 1, max: 60 } } });
    expect(() => new Queue(driver, { defaultLeaseSeconds: 61 })).toThrow(QueueError);
    expect(new Queue(driver).capabilities.leaseSeconds.max).toBe(60);
  });
});

describe('effectiveCapabilities', () => {
  it('narrows only the body and delay limits and copies the rest', () => {
    const driver = testCapabilities({
      maxBodyBytes: 2_000_000,
      delay: { maxSeconds: 10_000_000, nativeMaxSeconds: 900, fractional: true },
      ordering: 'fifo-per-group',
    });
    const effective = effectiveCapabilities(driver);
    expect(effective).toEqual({
      ...driver,
      maxBodyBytes: 262_144,
      delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: true },
    });
    expect(driver.maxBodyBytes).toBe(2_000_000);
  });

  it('narrows retention to the portable 14 days, and keeps a shorter one', () => {
    const tenYears = 10 * 365 * 86_400;
    expect(effectiveCapabilities(testCapabilities({ retentionSeconds: tenYears })).retentionSeconds).toBe(
      MAX_RETENTION_SECONDS,
    );
    expect(effectiveCapabilities(testCapabilities({ retentionSeconds: 3 * 86_400 })).retentionSeconds).toBe(
      3 * 86_400,
    );
    // What the Queue reports, while the driver's own declaration stays as it is.
    const driver = new RecordingDriver({ capabilities: { retentionSeconds: tenYears } });
    expect(new Queue(driver).capabilities.retentionSeconds).toBe(14 * 86_400);
    expect(driver.capabilities.retentionSeconds).toBe(tenYears);
  });

  it('caps the long poll at the portable 20 s', () => {
    expect(effectiveCapabilities(testCapabilities({ longPollMaxSeconds: 60 })).longPollMaxSeconds).toBe(
      MAX_LONG_POLL_SECONDS,
    );
    expect(effectiveCapabilities(testCapabilities({ longPollMaxSeconds: 0 })).longPollMaxSeconds).toBe(0);
  });

  it("reserves the bridge's bytes off the driver's body limit only when it bridges", () => {
    const bridged = testCapabilities({
      delay: { maxSeconds: 604_800, nativeMaxSeconds: 900, fractional: false },
    });
    expect(effectiveCapabilities(bridged, {}, BRIDGE_RESERVED_BYTES).maxBodyBytes).toBe(262_144 - 64);
    expect(effectiveCapabilities(testCapabilities(), {}, BRIDGE_RESERVED_BYTES).maxBodyBytes).toBe(262_144);
    // A roomy provider keeps the portable limit: the reserve comes off its own, larger one.
    const roomy = { ...bridged, maxBodyBytes: 1_048_576 };
    expect(effectiveCapabilities(roomy, {}, BRIDGE_RESERVED_BYTES).maxBodyBytes).toBe(262_144);
    // Narrowing the delay limit to the native one switches the bridge, and its reserve, off.
    expect(effectiveCapabilities(bridged, { maxDelaySeconds: 900 }, BRIDGE_RESERVED_BYTES).maxBodyBytes).toBe(
      262_144,
    );
  });

  it('applies tighter application limits', () => {
    const effective = effectiveCapabilities(testCapabilities(), { maxBodyBytes: 1_024, maxDelaySeconds: 0 });
    expect(effective.maxBodyBytes).toBe(1_024);
    expect(effective.delay.maxSeconds).toBe(0);
  });
});
