import { describe, expect, it } from 'vitest';
import { DedupeIndex } from '../src/dedupe-index';

// The index's size must follow the last window's traffic (or what is still held), never every
// id ever seen: a long-running process would otherwise grow without bound.
describe('DedupeIndex keeps no history past what dedupe needs', () => {
  it('window: entries whose window has passed are swept as new ids arrive', () => {
    const index = new DedupeIndex({ kind: 'window', windowSeconds: 300 });
    for (let i = 0; i < 10_000; i++) index.remember(`e${i}`, `m${i}`, i);
    expect(index.size).toBe(10_000);
    // One publish after every window has ended leaves only itself.
    index.remember('late', 'm-late', 10_000 + 300_000);
    expect(index.size).toBe(1);
  });

  it('window: a sweep keeps the entries still inside their window, and repeats stay absorbed', () => {
    const index = new DedupeIndex({ kind: 'window', windowSeconds: 10 });
    index.remember('old', 'm1', 0);
    index.remember('young', 'm2', 5_000);
    index.sweep(10_000);
    expect(index.size).toBe(1);
    expect(index.holder('young', 10_000, () => true)).toBe('m2');
    expect(index.holder('old', 10_000, () => true)).toBeUndefined();
  });

  it('window: an id remembered again moves to the back, so the sweep does not stop early at it', () => {
    const index = new DedupeIndex({ kind: 'window', windowSeconds: 10 });
    index.remember('a', 'm1', 0);
    index.remember('b', 'm2', 1_000);
    index.remember('a', 'm3', 9_000); // now ends at 19 s, after b
    index.sweep(11_000);
    expect(index.holder('b', 11_000, () => true)).toBeUndefined();
    expect(index.holder('a', 11_000, () => true)).toBe('m3');
    expect(index.size).toBe(1);
  });

  it('while-retained: an id is forgotten when its message leaves, not when another message does', () => {
    const index = new DedupeIndex({ kind: 'while-retained' });
    for (let i = 0; i < 1_000; i++) index.remember(`e${i}`, `m${i}`, i);
    for (let i = 0; i < 1_000; i++) index.forget(`e${i}`, `m${i}`);
    expect(index.size).toBe(0);
    index.remember('e', 'm-new', 0);
    index.forget('e', 'm-old');
    expect(index.holder('e', 0, () => true)).toBe('m-new');
  });

  it('none: remembers nothing', () => {
    const index = new DedupeIndex({ kind: 'none' });
    index.remember('e', 'm', 0);
    expect(index.size).toBe(0);
  });
});
