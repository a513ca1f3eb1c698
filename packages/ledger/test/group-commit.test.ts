import { describe, expect, it } from 'vitest';
import { groupCommitSettings } from '../src/group-commit/group-commit';

// The grouping itself is core's Coalescer, tested in core (coalescer.test.ts).
describe('group commit settings', () => {
  it('refuses settings out of range with INVALID_ARGUMENT; false turns grouping off', () => {
    const defaults = { maxEntries: 64, maxInFlight: 1 };
    expect(groupCommitSettings(false, defaults)).toBeUndefined();
    expect(groupCommitSettings(undefined, defaults)).toEqual(defaults);
    expect(groupCommitSettings({ maxEntries: 8 }, defaults)).toEqual({ maxEntries: 8, maxInFlight: 1 });
    for (const bad of [
      { maxEntries: 0 },
      { maxEntries: 1.5 },
      { maxInFlight: 0 },
      { maxEntries: 10_000 },
      'on',
    ]) {
      expect(() => groupCommitSettings(bad as never, defaults)).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
  });
});
