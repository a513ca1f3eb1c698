import type { Ledger } from '@queueport/ledger';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Decoration, decorate } from '../src/migrate/forwarding-decorator';

/** Every Ledger method forwarded: what a decorator that changes nothing must still spell out. */
const forwardAll = {
  claim: 'forward',
  complete: 'forward',
  fail: 'forward',
  release: 'forward',
  claimMany: 'forward',
  settleMany: 'forward',
  get: 'forward',
  scanPending: 'forward',
  scanAmbiguous: 'forward',
  list: 'forward',
  prune: 'forward',
  close: 'forward',
} as const satisfies Decoration<Ledger>;

/** The Ledger as it might grow: one method more. */
interface GrownLedger extends Ledger {
  audit(eventId: string): Promise<void>;
}

describe('a decorator over Ledger', () => {
  it('must decide every method: one the interface gains is a compile error until it does', () => {
    expectTypeOf<keyof Decoration<Ledger>>().toEqualTypeOf<keyof Ledger>();
    expectTypeOf(forwardAll).toExtend<Decoration<Ledger>>();
    expectTypeOf(forwardAll).not.toExtend<Decoration<GrownLedger>>();
    const compileOnly = (grown: GrownLedger) => {
      // @ts-expect-error: `audit` is neither forwarded nor implemented
      decorate<GrownLedger>(grown, forwardAll);
      // Decided, it compiles.
      decorate<GrownLedger>(grown, { ...forwardAll, audit: 'forward' });
      // @ts-expect-error: a method Ledger does not have is not a decision either
      decorate<Ledger>(grown, { ...forwardAll, bogus: 'forward' });
    };
    expect(compileOnly).toBeTypeOf('function');
  });

  it('forwards what it is told to, bound to the wrapped object, and keeps its own', async () => {
    const calls: string[] = [];
    class Store {
      readonly name = 'store';
      get(id: string) {
        calls.push(`${this.name}.get(${id})`);
        return id;
      }
      close() {
        calls.push(`${this.name}.close`);
      }
      optional?(): void;
    }
    const inner = new Store();
    const decorated = decorate<Store>(inner, {
      name: 'forward',
      get: 'forward',
      close: () => calls.push('kept open'),
      optional: 'forward',
    });
    const { get } = decorated;
    expect(get('evt_1')).toBe('evt_1');
    decorated.close();
    expect(calls).toEqual(['store.get(evt_1)', 'kept open']);
    expect(decorated.name).toBe('store');
    expect(decorated.optional).toBeUndefined();
  });
});
