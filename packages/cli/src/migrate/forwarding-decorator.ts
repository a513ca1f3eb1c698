/**
 * A decorator's decision for every member of `T`: `'forward'` to the wrapped object, or its own
 * implementation. Every key is required, so a member added to `T` is a compile error in each
 * decorator until it decides; a Proxy or a spread would forward (or drop) it without a word.
 */
export type Decoration<T> = { readonly [K in keyof T]-?: T[K] | 'forward' };

/** `inner` with the decoration's own members; every member marked `'forward'` bound to `inner`. */
export function decorate<T extends object>(inner: T, decoration: Decoration<T>): T {
  const decorated: Partial<Record<keyof T, unknown>> = {};
  for (const key of Object.keys(decoration) as (keyof T)[]) {
    const own = decoration[key];
    if (own !== 'forward') {
      decorated[key] = own;
      continue;
    }
    const member: unknown = inner[key];
    decorated[key] = typeof member === 'function' ? member.bind(inner) : member;
  }
  return decorated as T;
}
