import { MAX_RETRY_AFTER_MS, parseRetryAfterMs } from '@queueport/core';
import * as driver from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';

const NOW = Date.UTC(2030, 5, 1, 12, 0, 0);
const at = (value: string | readonly string[] | undefined, maxMs?: number) =>
  parseRetryAfterMs(value, { nowMs: NOW, ...(maxMs === undefined ? {} : { maxMs }) });

describe('parseRetryAfterMs', () => {
  it.each([
    ['7', 7000],
    ['0', 0],
    [' 120 ', 120_000],
    ['86400', 86_400_000],
  ])('delta-seconds %j → %i ms', (value, ms) => {
    expect(at(value)).toBe(ms);
  });

  it('reads the three HTTP-date forms relative to the injected now', () => {
    expect(at(new Date(NOW + 90_000).toUTCString())).toBe(90_000);
    expect(at('Sat, 01 Jun 2030 12:01:30 GMT')).toBe(90_000);
    expect(at('Saturday, 01-Jun-30 12:01:30 GMT')).toBe(90_000);
    // asctime() names no zone; HTTP says GMT, whatever the machine's TZ.
    expect(at('Sat Jun  1 12:01:30 2030')).toBe(90_000);
  });

  it('a date in the past means now', () => {
    expect(at(new Date(NOW - 60_000).toUTCString())).toBe(0);
  });

  it('is bounded: by a day unless told, by maxMs when told', () => {
    expect(at('999999999999999999999')).toBe(MAX_RETRY_AFTER_MS);
    expect(at('Sun, 01 Jun 2031 12:00:00 GMT')).toBe(MAX_RETRY_AFTER_MS);
    expect(at('7200', 3_600_000)).toBe(3_600_000);
    expect(at('Sat, 01 Jun 2030 14:00:00 GMT', 3_600_000)).toBe(3_600_000);
    expect(at('30', 3_600_000)).toBe(30_000);
  });

  it.each([['-5'], ['1.5'], ['soon'], [''], ['   '], ['2030-06-01'], ['7s'], ['+7'], [`${'1'.repeat(65)}`]])(
    'ignores %j',
    (value) => {
      expect(at(value)).toBeUndefined();
    },
  );

  it('takes the first of repeated headers and ignores an absent one', () => {
    expect(at(['3', '9'])).toBe(3000);
    expect(at(undefined)).toBeUndefined();
  });

  it('is the same function from /driver', () => {
    expect(driver.parseRetryAfterMs).toBe(parseRetryAfterMs);
  });
});
