import type { Delivery, Queue } from '@queueport/core';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../src';
import {
  handleReconcileMessage,
  RECONCILE_REPUBLISH_TYPE,
  RECONCILE_SCAN_TYPE,
  type ReconcileOptions,
  type ReconcileWork,
  runReconcile,
} from '../src/reconcile-entry';
import { type ReconcileWorld, startReconcileWorld } from './helpers/reconcile-world';

let world: ReconcileWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function seeded(options: { stale?: number } = {}): Promise<ReconcileWorld> {
  world = await startReconcileWorld(options);
  return world;
}

const base = (s: ReconcileWorld): ReconcileOptions => ({
  ledger: s.ledger,
  queue: s.queue,
  loadPayload: s.store.loader(),
  olderThanSeconds: 3_600,
  batch: 2,
  budgetMs: 10_000,
});

/** Everything the queue holds now, acked. */
async function drain(queue: Queue): Promise<Delivery[]> {
  const out: Delivery[] = [];
  for (;;) {
    const batch = await queue.receive({ maxMessages: 10 });
    if (batch.length === 0) return out;
    await queue.ackBatch(batch);
    out.push(...batch);
  }
}

const sorted = (ids: readonly string[]) => [...ids].sort();

/** How late a timer may fire when the whole suite shares two cores. */
const TIMER_SLACK_MS = 250;

describe('runReconcile', () => {
  it('republishes exactly the stuck events, lists the ambiguous ones, and writes nothing to the ledger', async () => {
    const s = await seeded();
    const everyId = Object.values(s.seeded).flat();
    const before = await Promise.all(everyId.map((id) => s.ledger.get(id)));

    const result = await runReconcile(base(s));
    expect(sorted(result.eligible)).toEqual(sorted(s.seeded.stale));
    expect(sorted(result.republished)).toEqual(sorted(s.seeded.stale));
    expect(result.pending).toEqual([]);
    expect(result.missing).toEqual([]);
    expect(result.scanComplete).toBe(true);
    expect(result.scheduled).toBe(s.seeded.scheduled.length);
    expect(result.leased).toBe(0);
    expect(sorted(result.ambiguous.map((r) => r.eventId))).toEqual(
      sorted([...s.seeded.staleAmbiguous, ...s.seeded.deliveredAmbiguous]),
    );
    expect(await Promise.all(everyId.map((id) => s.ledger.get(id)))).toEqual(before);

    const republished = await drain(s.queue);
    expect(sorted(republished.map((d) => d.envelope.event_id))).toEqual(sorted(s.seeded.stale));
    for (const delivery of republished) {
      expect(delivery.envelope.payload_sha256).toBe(s.store.digestOf(delivery.envelope.event_id));
      expect(delivery.envelope.type).toBe('payment.settled');
    }
  });

  it('what it republished, a worker then delivers: nothing stuck is left', async () => {
    const s = await seeded();
    await runReconcile(base(s));
    const worker = new DeliveryWorker({
      queue: s.queue,
      ledger: s.ledger,
      sender: s.sender,
      route: () => s.destination,
    });
    for (;;) {
      const [delivery] = await s.queue.receive({ leaseSeconds: 60 });
      if (!delivery) break;
      expect(await worker.process(delivery)).toBe('delivered');
    }
    for (const id of s.seeded.stale) expect((await s.ledger.get(id))?.state).toBe('delivered');
    const again = await runReconcile(base(s));
    expect(again.eligible).toEqual([]);
    expect(s.receiver.effectTotal()).toBe(s.seeded.stale.length);
  });

  it('never republishes a payload it cannot vouch for: missing, changed, or a loader that throws', async () => {
    const s = await seeded();
    const [missing, changed, throwing] = s.seeded.stale as [string, string, string];
    const load = s.store.loader();
    const result = await runReconcile({
      ...base(s),
      loadPayload: async (eventId) => {
        if (eventId === missing) return undefined;
        if (eventId === changed) return { type: 'payment.settled', payload: { amount: 1 } };
        if (eventId === throwing) throw new Error('store unavailable');
        return load(eventId);
      },
    });
    expect(result.missing).toEqual([missing]);
    expect(result.mismatched).toEqual([changed]);
    expect(result.failed).toEqual([
      { eventId: throwing, error: 'the payload loader threw: store unavailable' },
    ]);
    const published = (await drain(s.queue)).map((d) => d.envelope.event_id);
    expect(published).not.toContain(missing);
    expect(published).not.toContain(changed);
    expect(published).toHaveLength(s.seeded.stale.length - 3);
    expect(result.pending).toEqual([]);
  });

  it('respects its time budget with a slow loader: stops with some still pending', async () => {
    // Without a budget this would take ~31 units × 50 ms, five times the budget.
    const s = await seeded({ stale: 60 });
    const loadMs = 50;
    const budgetMs = 300;
    const started = performance.now();
    const result = await runReconcile({
      ...base(s),
      loadPayload: s.store.loader(loadMs),
      batch: 2,
      budgetMs,
    });
    const elapsed = performance.now() - started;
    // A bound, not a benchmark: the budget plus one unit's work (its loads run side by side), and
    // a little for timers that fire late on a busy machine.
    const unitMs = Math.max(loadMs, result.longestUnitMs);
    expect(elapsed).toBeLessThanOrEqual(budgetMs + unitMs + TIMER_SLACK_MS);
    expect(result.durationMs).toBeLessThanOrEqual(budgetMs + unitMs + TIMER_SLACK_MS);
    expect(result.republished.length).toBeGreaterThan(0);
    expect(result.pending.length).toBeGreaterThan(0);
    expect(result.republished.length + result.pending.length).toBe(result.eligible.length);
    expect(result.eligible).toHaveLength(61);
    expect(await s.depth('queue')).toBe(result.republished.length);
    // Republishing follows the scan's order, so the next run's first unit is where this one stopped.
    expect(result.pending[0]).toBe(result.eligible[result.republished.length]);
  });

  it('does not wait past its budget for a load that never comes back', async () => {
    const s = await seeded();
    const hung = s.seeded.stale[1]!;
    const load = s.store.loader();
    const budgetMs = 300;
    const started = performance.now();
    const result = await runReconcile({
      ...base(s),
      batch: 10,
      budgetMs,
      loadPayload: (eventId) => (eventId === hung ? new Promise(() => {}) : load(eventId)),
    });
    expect(performance.now() - started).toBeLessThanOrEqual(budgetMs + TIMER_SLACK_MS);
    expect(result.pending).toEqual([hung]);
    expect(sorted(result.republished)).toEqual(sorted(s.seeded.stale.filter((id) => id !== hung)));
  });

  describe('with enqueueScan', () => {
    it('hands the scan to workers as units of ids, republishing nothing itself', async () => {
      const s = await seeded();
      const work = s.work;
      const result = await runReconcile({ ...base(s), loadPayload: undefined, enqueueScan: work });
      expect(result.mode).toBe('enqueue');
      expect(sorted(result.enqueued)).toEqual(sorted(s.seeded.stale));
      expect(result.units).toBe(Math.ceil(s.seeded.stale.length / 2));
      expect(result.continuation).toBeUndefined();
      expect(await s.depth('queue')).toBe(0);

      const messages = await drain(work);
      expect(messages).toHaveLength(result.units);
      for (const message of messages) {
        expect(message.envelope.type).toBe(RECONCILE_REPUBLISH_TYPE);
        expect(message.envelope.event_id).toMatch(/^queueport-reconcile:[^:]+:unit:\d+$/);
        const unit = message.envelope.payload as unknown as ReconcileWork;
        expect(unit).toMatchObject({ v: 1, kind: 'republish', run: result.runId });
        if (unit.kind === 'republish') expect(unit.eventIds.length).toBeLessThanOrEqual(2);
        const handled = await handleReconcileMessage(message.envelope, {
          ledger: s.ledger,
          queue: s.queue,
          workQueue: work,
          loadPayload: s.store.loader(),
        });
        expect(handled.pending).toEqual([]);
      }
      expect(sorted((await drain(s.queue)).map((d) => d.envelope.event_id))).toEqual(sorted(s.seeded.stale));
    });

    it('a scan cut short becomes a continuation that a worker carries on, skipping nothing', async () => {
      const s = await seeded({ stale: 7 });
      const work = s.work;
      const first = await runReconcile({
        ...base(s),
        loadPayload: undefined,
        enqueueScan: work,
        maxSurvey: 3,
      });
      expect(first.scanComplete).toBe(false);
      expect(first.continuation).toBeDefined();

      const worker = {
        ledger: s.ledger,
        queue: s.queue,
        workQueue: work,
        loadPayload: s.store.loader(),
      };
      let scans = 0;
      for (;;) {
        const [message] = await work.receive();
        if (!message) break;
        if (message.envelope.type === RECONCILE_SCAN_TYPE) {
          scans++;
          expect(message.envelope.payload).toMatchObject({
            v: 1,
            kind: 'scan',
            olderThanSeconds: 3_600,
            batch: 2,
          });
        }
        await handleReconcileMessage(message.envelope, worker);
        await message.ack();
      }
      expect(scans).toBe(1);
      expect(sorted((await drain(s.queue)).map((d) => d.envelope.event_id))).toEqual(sorted(s.seeded.stale));
    });

    it('a work queue that refuses the units leaves their events pending, and says so', async () => {
      const s = await seeded();
      const work = s.work;
      await work.close();
      const result = await runReconcile({ ...base(s), loadPayload: undefined, enqueueScan: work });
      expect(result.units).toBe(0);
      expect(sorted(result.pending)).toEqual(sorted(s.seeded.stale));
      expect(result.handoffErrors).toHaveLength(2);
      expect(result.handoffErrors[0]).toMatch(/^unit 1: .*closed/);
      expect(result.handoffErrors[1]).toMatch(/^the scan continuation: .*closed/);
    });

    it('a unit whose events were settled meanwhile republishes nothing', async () => {
      const s = await seeded();
      const [id] = s.seeded.stale as [string];
      const unit = { v: 1, kind: 'republish', run: 'r', unit: 1, eventIds: [id, ...s.seeded.delivered] };
      const claimed = await s.ledger.claim({
        eventId: id,
        payloadSha256: s.store.digestOf(id),
        owner: 'someone',
        leaseSeconds: 60,
      });
      expect(claimed.status).toBe('claimed');
      const handled = await handleReconcileMessage(
        { type: RECONCILE_REPUBLISH_TYPE, payload: unit },
        { ledger: s.ledger, queue: s.queue, workQueue: s.queue, loadPayload: s.store.loader() },
      );
      expect(handled.leased).toBe(1);
      expect(handled.republished).toEqual([]);
      expect(await s.depth('queue')).toBe(0);
      await expect(
        handleReconcileMessage(
          { type: 'payment.settled', payload: unit },
          {
            ledger: s.ledger,
            queue: s.queue,
            workQueue: s.queue,
            loadPayload: s.store.loader(),
          },
        ),
      ).rejects.toThrow(/not a reconcile work message/);
    });
  });
});
