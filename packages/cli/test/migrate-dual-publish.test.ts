import { rm } from 'node:fs/promises';
import { payloadDigest, Queue } from '@queueport/core';
import type { Ledger } from '@queueport/ledger';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { memoryAdapter } from '@queueport/memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CanaryPath,
  type DualPublishOptions,
  type DualPublishResult,
  runRollback,
} from '../src/migrate';
import type { CanarySeams } from '../src/migrate/canary-seams';
import { runDualPublishWith } from '../src/migrate/dual-publish';
import { startTestContext, type TestContext, type TestContextOptions } from './support/migrate-context';
import { droppingDriver, duplicatingDriver } from './support/migrate-drivers';
import { uniqueQueue } from './support/test-io';

let fixture: TestContext | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function started(options: TestContextOptions = {}): Promise<TestContext> {
  fixture = await startTestContext(options);
  return fixture;
}

async function pathOf(f: TestContext, name: string): Promise<CanaryPath> {
  return { name, queue: await f.openQueue(name), depth: () => f.depth(name) };
}

const EVENTS = 8;

async function canary(
  f: TestContext,
  from: string,
  to: string,
  extra: Partial<DualPublishOptions> = {},
  seams: CanarySeams = {},
): Promise<DualPublishResult> {
  return runDualPublishWith(
    {
      from: await pathOf(f, from),
      to: await pathOf(f, to),
      ledger: await f.openLedger(),
      sender: f.sender(),
      destination: f.destination,
      events: EVENTS,
      windowMs: 100,
      drainMs: 5_000,
      effects: f.receiver,
      ...extra,
    },
    seams,
  );
}

const check = (result: { checks: { id: string; status: string; detail?: string }[] }, id: string) =>
  result.checks.find((c) => c.id === id);

describe('runDualPublish', () => {
  it('memory → memory: every event once, the second path suppressed by the shared ledger', async () => {
    const f = await started();
    const result = await canary(f, 'a', 'b');
    expect(check(result, 'migrate.no-duplicates')?.status).toBe('passed');
    expect(check(result, 'migrate.no-losses')?.status).toBe('passed');
    expect(result.checks.every((c) => c.status === 'passed')).toBe(true);
    expect(result.from.published).toBe(EVENTS);
    expect(result.to.published).toBe(EVENTS);
    expect(result.from.received + result.to.received).toBe(2 * EVENTS);
    expect(result.delivered).toBe(EVENTS);
    // One path sends each event; the other finds it delivered in the ledger.
    expect(result.suppressedByLedger).toBe(EVENTS);
    expect(result.pending).toEqual([]);
    expect(result.from.drained && result.to.drained).toBe(true);
    for (const id of result.eventIds) expect(f.receiver.effectCount(id)).toBe(1);
    expect(f.receiver.effectTotal()).toBe(EVENTS);
    const ledger = await f.openLedger();
    for (const id of result.eventIds) expect((await ledger.get(id))?.state).toBe('delivered');
  });

  it('memory → Infrai simulator: the same, over HTTP', async () => {
    const f = await started({ infrai: true });
    const result = await canary(f, 'a', 'infrai');
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['migrate.publish', 'passed'],
      ['migrate.publish', 'passed'],
      ['migrate.no-duplicates', 'passed'],
      ['migrate.no-losses', 'passed'],
    ]);
    expect(result.to.name).toBe('infrai');
    expect(result.to.received).toBeGreaterThanOrEqual(EVENTS);
    expect(result.delivered).toBe(EVENTS);
    expect(f.receiver.effectTotal()).toBe(EVENTS);
    expect(await f.depth('infrai')).toBe(0);
  });

  it('absorbs a provider that delivers everything twice: suppressed, never a second effect', async () => {
    const f = await started();
    const result = await canary(
      f,
      'a',
      'b',
      {},
      { wrapDriver: (driver, path) => (path === 'to' ? duplicatingDriver(driver) : driver) },
    );
    expect(result.to.received).toBe(2 * EVENTS);
    expect(result.suppressedByLedger).toBe(2 * EVENTS);
    expect(check(result, 'migrate.no-duplicates')?.status).toBe('passed');
    expect(check(result, 'migrate.no-losses')?.status).toBe('passed');
    expect(f.receiver.effectTotal()).toBe(EVENTS);
  });

  describe('with one path bypassing the shared ledger', () => {
    let separate: { ledger: Ledger; file: string } | undefined;
    afterEach(async () => {
      if (!separate) return;
      await separate.ledger.close();
      await Promise.all(['', '-wal', '-shm'].map((s) => rm(`${separate!.file}${s}`, { force: true })));
      separate = undefined;
    });
    const bypassing = async (f: TestContext): Promise<CanarySeams> => {
      const file = `${f.ledgerFile}.bypass`;
      separate = { ledger: await openSqliteLedger({ filename: file }), file };
      const own = separate.ledger;
      return { wrapLedger: (ledger, path) => (path === 'to' ? own : ledger) };
    };

    it('fails no-duplicates when the receiver ignores the idempotency key: each event took effect twice', async () => {
      const f = await started({ receiverMode: 'ignores-key' });
      const result = await canary(f, 'a', 'b', {}, await bypassing(f));
      const duplicates = check(result, 'migrate.no-duplicates');
      expect(duplicates?.status).toBe('failed');
      expect(result.duplicates.map((d) => d.eventId)).toEqual(result.eventIds);
      expect(result.duplicates.every((d) => d.effects === 2)).toBe(true);
      expect(duplicates?.detail).toContain(`${result.eventIds[0]} ×2`);
      expect(check(result, 'migrate.no-losses')?.status).toBe('passed');
    });

    it('is still caught without the receiver’s count: two 2xx answers for one event', async () => {
      const f = await started({ receiverMode: 'ignores-key' });
      const result = await canary(f, 'a', 'b', { effects: undefined }, await bypassing(f));
      expect(result.effectSource).toBe('ledger');
      expect(check(result, 'migrate.no-duplicates')?.status).toBe('failed');
      expect(result.duplicates).toHaveLength(EVENTS);
    });

    it('passes when the receiver honours the key: its replays are counted as suppressed', async () => {
      const f = await started();
      const result = await canary(f, 'a', 'b', {}, await bypassing(f));
      expect(check(result, 'migrate.no-duplicates')?.status).toBe('passed');
      expect(result.suppressedByReceiver).toBe(EVENTS);
      expect(f.receiver.effectTotal()).toBe(EVENTS);
    });
  });

  it('fails no-losses for a provider that drops a message, naming the event', async () => {
    const f = await started();
    let dropped: string[] = [];
    const result = await canary(
      f,
      'a',
      'b',
      {},
      {
        wrapDriver: (driver, path) => {
          if (path !== 'to') return driver;
          const dropping = droppingDriver(driver);
          dropped = dropping.dropped;
          return dropping.driver;
        },
      },
    );
    expect(dropped).toHaveLength(1);
    const losses = check(result, 'migrate.no-losses');
    expect(losses?.status).toBe('failed');
    expect(result.to.lost).toEqual(dropped);
    expect(result.from.lost).toEqual([]);
    expect(losses?.detail).toContain(`lost by b (to): ${dropped[0]}`);
    // The other provider carried it: delivered once, so it is the provider that failed, not the event.
    expect(result.undelivered).toEqual([]);
    expect(check(result, 'migrate.no-duplicates')?.status).toBe('passed');
  });

  it('fails no-losses naming events that never took effect, when both paths lose them', async () => {
    const f = await started();
    const first = 'queueport-canary:lost:0001';
    const result = await canary(
      f,
      'a',
      'b',
      { runId: 'lost' },
      { wrapDriver: (driver) => droppingDriver(driver, { eventId: first }).driver },
    );
    expect(result.undelivered).toEqual([first]);
    expect(check(result, 'migrate.no-losses')?.detail).toContain(`never delivered: ${first}`);
    expect(result.pending).toEqual([first]);
  });
});

describe('runRollback', () => {
  it('drains what B holds, acking without a claim or a send, and leaves the ledger rows as they were', async () => {
    const f = await started();
    const b = await f.openQueue('b');
    const ledger = await f.openLedger();
    const ids = Array.from({ length: 6 }, (_, i) => `order_${i}:paid`);
    const payload = (id: string) => ({ order: id });
    for (const id of ids)
      await b.publish({ envelope: { event_id: id, type: 'order.paid', payload: payload(id) } });
    // As A's workers left it: two delivered, one in progress, the rest never seen.
    for (const [i, id] of ids.slice(0, 3).entries()) {
      const owner = `worker-a-${i}`;
      await ledger.claim({ eventId: id, payloadSha256: payloadDigest(payload(id)), owner, leaseSeconds: 60 });
      if (i < 2) await ledger.complete({ eventId: id, owner, outcome: 'http 200' });
    }
    const before = await Promise.all(ids.map((id) => ledger.get(id)));

    const result = await runRollback({
      to: { name: 'b', queue: b, depth: () => f.depth('b') },
      ledger,
      drainMs: 5_000,
    });
    expect(result.drained).toBe(ids.length);
    expect([...result.eventIds].sort()).toEqual([...ids].sort());
    expect(result.remaining).toBe(0);
    expect(await f.depth('b')).toBe(0);
    expect(result.deliveredElsewhere).toBe(2);
    expect([...result.undelivered].sort()).toEqual(ids.slice(2).sort());
    expect(result.checks[0]).toMatchObject({
      id: 'migrate.rollback-drained',
      status: 'passed',
      provider: 'b',
    });
    expect(await Promise.all(ids.map((id) => ledger.get(id)))).toEqual(before);
    expect(f.receiver.requests()).toBe(0);
  });

  it('counts the bodies that are not envelopes it dead-lettered, and leaves no advice for developers in the log', async () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    const queue = new Queue(await memoryAdapter.open(new URL(`memory://${uniqueQueue('rollback')}`), {}), {
      logger,
    });
    await queue.driver.publish([
      {
        eventId: 'foreign',
        dedupeKey: 'foreign',
        body: '{"not":"an envelope"}',
        attributes: {},
        delaySeconds: 0,
      },
    ]);
    const result = await runRollback({ to: { name: 'b', queue }, drainMs: 2_000 });
    expect(result.invalid).toMatchObject({ deadLettered: 1, leftInQueue: 0 });
    expect(result.invalid.firstReason).toBeTruthy();
    expect(result.drained).toBe(0);
    expect(warnings).toEqual([]);
    await queue.close();
  });
});
