import { checkDelay, fitDelay } from '@queueport/core';
import { describe, expect, it } from 'vitest';
import { testCapabilities } from './helpers/recording-driver';

const wholeSeconds = testCapabilities();
const fractional = testCapabilities({
  delay: { maxSeconds: 604_800, nativeMaxSeconds: 604_800, fractional: true },
});

describe('fitDelay', () => {
  it('rounds computed waits up to whole seconds unless fractional delays are declared', () => {
    expect(fitDelay(1.2, wholeSeconds)).toBe(2);
    expect(fitDelay(1.2, fractional)).toBe(1.2);
  });

  it('clamps to [0, max] and treats NaN as no wait', () => {
    expect(fitDelay(-5, wholeSeconds)).toBe(0);
    expect(fitDelay(Number.NaN, wholeSeconds)).toBe(0);
    expect(fitDelay(10 ** 9, wholeSeconds)).toBe(wholeSeconds.delay.maxSeconds);
    expect(fitDelay(Number.POSITIVE_INFINITY, fractional)).toBe(fractional.delay.maxSeconds);
  });

  it('always yields a delay the strict check accepts', () => {
    for (const wanted of [-1, 0, 0.001, 59.5, 604_799.2, 604_800.4, 1e12]) {
      for (const caps of [wholeSeconds, fractional]) {
        expect(checkDelay(fitDelay(wanted, caps), caps)).toBe(fitDelay(wanted, caps));
      }
    }
  });
});
