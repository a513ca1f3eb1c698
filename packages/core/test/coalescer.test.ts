import { QueueError } from '@queueport/core';
import { Coalescer, type EntryOutcome } from '@queueport/core/driver';
import { describe, expect, it } from 'vitest';

/** A writer that records each batch and answers entry by entry; odd numbers fail. */
function recordingWriter(hold?: Promise<void>) {
  const batches: number[][] = [];
  const write = async (batch: number[]): Promise<EntryOutcome<number>[]> => {
    batches.push(batch);
    await hold;
    return batch.map((n) =>
      n % 2 === 0
        ? { ok: true, value: n * 10 }
        : { ok: false, error: new QueueError('LEASE_LOST', `odd ${n}`) },
    );
  };
  return { batches, write };
}

describe('Coalescer', () => {
  it('sends the calls of one turn as one batch, and each caller gets its own entry’s outcome', async () => {
    const { batches, write } = recordingWriter();
    const group = new Coalescer(write, { maxEntries: 64, maxInFlight: 1 });
    const results = await Promise.allSettled([0, 1, 2, 3].map((n) => group.submit(n)));
    expect(batches).toEqual([[0, 1, 2, 3]]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as QueueError).code))).toEqual([
      0,
      'LEASE_LOST',
      20,
      'LEASE_LOST',
    ]);
  });

  it('splits at maxEntries, and what arrives while batches are in flight forms the next one', async () => {
    let open!: () => void;
    const hold = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { batches, write } = recordingWriter(hold);
    const group = new Coalescer(write, { maxEntries: 2, maxInFlight: 1 });
    const first = [0, 2, 4].map((n) => group.submit(n));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [6, 8].map((n) => group.submit(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[0, 2]]);
    open();
    expect(await Promise.all([...first, ...later])).toEqual([0, 20, 40, 60, 80]);
    expect(batches).toEqual([[0, 2], [4, 6], [8]]);
  });

  it('fails every entry of a batch whose write fails, and drained() waits for what was accepted', async () => {
    const group = new Coalescer<number, number>(
      async () => {
        throw new QueueError('UNAVAILABLE', 'down');
      },
      { maxEntries: 8, maxInFlight: 2 },
    );
    const calls = [1, 2].map((n) => group.submit(n).catch((error: QueueError) => error.code));
    await group.drained();
    expect(await Promise.all(calls)).toEqual(['UNAVAILABLE', 'UNAVAILABLE']);
  });

  it('sends a full batch at once, without waiting for the turn to end', () => {
    const { batches, write } = recordingWriter();
    const group = new Coalescer(write, { maxEntries: 2, maxInFlight: 4 });
    for (const n of [0, 2, 4]) void group.submit(n);
    // Nothing has waited yet: the first two filled a batch; the third waits for the turn.
    expect(batches).toEqual([[0, 2]]);
  });
});
