import { runConformance, virtualTimeHarness } from '@queueport/conformance';
import { type Clock, payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import type { Ledger } from '@queueport/ledger';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver } from '@queueport/memory';
import type { WebhookSender } from '@queueport/webhook';
import {
  type CrashScenario,
  type CrashWindowOptions,
  crashScenarioArb,
  crashWindowProperties,
  type LedgerFactory,
  runCrashScenario,
} from '@queueport/webhook/conformance';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const harness = virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock }));

/** Wraps each run's ledger so one of its promises is broken. */
function breakLedger(change: (ledger: Ledger, clock: Clock) => Partial<Ledger>): LedgerFactory {
  return async (clock) => {
    const { ledger, dispose } = await temporarySqliteLedger(clock);
    const broken: Ledger = Object.assign(Object.create(null), {
      claim: ledger.claim.bind(ledger),
      complete: ledger.complete.bind(ledger),
      fail: ledger.fail.bind(ledger),
      release: ledger.release.bind(ledger),
      get: ledger.get.bind(ledger),
      scanPending: ledger.scanPending.bind(ledger),
      scanAmbiguous: ledger.scanAmbiguous.bind(ledger),
      prune: ledger.prune.bind(ledger),
      close: ledger.close.bind(ledger),
      ...change(ledger, clock),
    });
    return { ledger: broken, dispose };
  };
}

/**
 * Check-then-act: `claim` reads the row, yields to the event loop (where a second claim of the
 * same event reads it too), then acts on what it read. A row it read as free it takes, even if
 * another worker took it meanwhile: that lease is overwritten, as by an UPDATE outside the read's
 * transaction. A new row still goes through the real claim, whose INSERT is one statement anyway.
 */
const nonAtomicClaimLedger = breakLedger((ledger, clock) => ({
  claim: async (request) => {
    const current = await ledger.get(request.eventId);
    await new Promise((resolve) => setImmediate(resolve));
    const readAsFree =
      current !== undefined &&
      current.payloadSha256 === request.payloadSha256 &&
      current.state === 'processing' &&
      !(current.leaseOwner !== null && current.leaseUntil !== null && current.leaseUntil > clock.now());
    const result = await ledger.claim(request);
    if (!readAsFree || result.status !== 'busy') return result;
    await ledger.release({
      eventId: request.eventId,
      owner: result.record.leaseOwner!,
      outcome: 'overwritten',
    });
    return ledger.claim(request);
  },
}));

/** A ledger that never refuses a changed payload: it answers for the stored one instead. */
const digestBlindLedger = breakLedger((ledger) => ({
  claim: async (request) => {
    const stored = (await ledger.get(request.eventId))?.payloadSha256;
    return ledger.claim(stored === undefined ? request : { ...request, payloadSha256: stored });
  },
}));

/**
 * A broken worker: its sender appends the attempt number to the event id it is given, so every
 * attempt carries another Idempotency-Key (and webhook-id, signed as such), while the body, the
 * business event, stays the same.
 */
function keyPerAttempt(sender: WebhookSender): WebhookSender {
  const sends = new Map<string, number>();
  return {
    requestTimeoutMs: sender.requestTimeoutMs,
    close: () => sender.close(),
    send: (request, signal) => {
      const attempt = (sends.get(request.eventId) ?? 0) + 1;
      sends.set(request.eventId, attempt);
      return sender.send({ ...request, eventId: `${request.eventId}#${attempt}` }, signal);
    },
  };
}

/** The property's own run count (40 on virtual time): no numRuns is passed. */
async function failureOf(id: string, factory: LedgerFactory, seed = 7, options: CrashWindowOptions = {}) {
  const properties = crashWindowProperties(factory, options).filter((p) => p.id === id);
  const report = await runConformance(harness, { properties, seed });
  return report.results[0];
}

const oneEvent = (extra: Partial<CrashScenario>): CrashScenario => ({
  events: 1,
  publishes: [{ event: 0, gapSeconds: 0, delaySeconds: 0 }],
  crashes: [],
  workers: 1,
  rounds: [1],
  flaky: [],
  ...extra,
});

describe('the crash-window checker catches broken delivery', () => {
  it('finds lost events when the ledger gives up on every retry', async () => {
    const result = await failureOf(
      'crash-window',
      breakLedger((ledger) => ({ release: (request) => ledger.fail(request) })),
    );
    expect(result?.status).toBe('failed');
    expect(result?.error).toMatch(/[1-9]\d* lost/);
  });

  it('finds duplicates the reconciliation report does not flag when ambiguity is never recorded', async () => {
    const result = await failureOf(
      'crash-window-ambiguity',
      breakLedger(() => ({ scanAmbiguous: async () => [] })),
    );
    expect(result?.status).toBe('failed');
    expect(result?.error).toMatch(/does not flag/);
  });

  it('generates scenarios that really duplicate effects at a receiver that ignores the key', async () => {
    // Coverage, not correctness: without crashes in the window the properties above would pass
    // vacuously. A fixed seed keeps this deterministic.
    const scenarios = fc.sample(crashScenarioArb, { numRuns: 40, seed: 11 });
    let duplicated = 0;
    for (const scenario of scenarios) {
      const outcome = await runCrashScenario(harness, temporarySqliteLedger, scenario, 'ignores-key');
      duplicated += [...outcome.verdicts.values()].filter((v) => v === 'duplicated').length;
    }
    expect(duplicated).toBeGreaterThan(0);
  });
});

describe('effects are counted by the business identity in the body, not by the key', () => {
  it.each([false, true])(
    'a worker that changes the key per attempt takes effect twice: duplicated (signed: %s)',
    async (signed) => {
      const scenario = oneEvent({ crashes: [{ event: 0, point: 'after-send', nth: 1 }], signed });
      const honest = await runCrashScenario(harness, temporarySqliteLedger, scenario, 'idempotent');
      expect([...honest.verdicts.values()]).toEqual(['recovered']);
      expect(honest.histories[0]).toMatchObject({ effects: 1, dedupeKeys: [honest.histories[0]?.eventId] });

      const broken = await runCrashScenario(harness, temporarySqliteLedger, scenario, 'idempotent', {
        decorateSender: keyPerAttempt,
      });
      const [history] = broken.histories;
      // Two keys, so the receiver deduplicated nothing; both effects name the one business event.
      expect(history?.dedupeKeys).toEqual([`${history?.eventId}#1`, `${history?.eventId}#2`]);
      expect(history?.effects).toBe(2);
      expect([...broken.verdicts.values()]).toEqual(['duplicated']);
    },
  );

  it('the crash-window property catches that worker as duplicated, not as lost', async () => {
    const result = await failureOf('crash-window', temporarySqliteLedger, 7, {
      decorateSender: keyPerAttempt,
    });
    expect(result?.status).toBe('failed');
    expect(result?.error).toMatch(/^0 lost, [1-9]\d* duplicated/);
    expect(result?.error).toContain("verdict: 'duplicated'");
  });
});

describe('an event id reused with a different payload', () => {
  const reused = oneEvent({
    publishes: [
      { event: 0, gapSeconds: 0, delaySeconds: 0 },
      // Past the 5-minute dedupe window, so the queue keeps it and the ledger must refuse it.
      { event: 0, gapSeconds: 301, delaySeconds: 0, variant: 1 },
    ],
    workers: 2,
    rounds: [2],
  });
  const first = payloadDigest({ event: 0, amount: 4200 });
  const second = payloadDigest({ event: 0, amount: 4200, variant: 1 });

  it('is refused by the ledger, dead-lettered, and never takes effect: conflict-refused', async () => {
    let driver!: MemoryDriver;
    const watched = virtualTimeHarness('memory', (clock) => {
      driver = new MemoryDriver({ clock });
      return driver;
    });
    const outcome = await runCrashScenario(watched, temporarySqliteLedger, reused, 'idempotent');
    expect([...outcome.verdicts.values()]).toEqual(['conflict-refused']);
    expect(outcome.histories[0]).toMatchObject({
      effects: 1,
      effectDigests: [first],
      enqueuedDigests: [first, second],
      refusedDigests: [second],
      leftoverDigests: [],
      record: { state: 'delivered', payloadSha256: first },
    });
    expect(driver.deadLetters().map((d) => JSON.parse(d.body).payload_sha256)).toEqual([second]);
  });

  it('a ledger that answers for the stored payload instead of refusing is caught: conflict-accepted', async () => {
    // One worker: two claims racing would both read "no row", and the second be refused after all.
    const oneWorker = { ...reused, workers: 1, rounds: [1] };
    const outcome = await runCrashScenario(harness, digestBlindLedger, oneWorker, 'idempotent');
    expect([...outcome.verdicts.values()]).toEqual(['conflict-accepted']);
    const result = await failureOf('crash-window', digestBlindLedger);
    expect(result?.status).toBe('failed');
    expect(result?.error).toMatch(/[1-9]\d* conflict-accepted/);
  });

  it('is generated often enough that the properties see refusals', async () => {
    const scenarios = fc.sample(crashScenarioArb, { numRuns: 40, seed: 11 });
    let refused = 0;
    for (const scenario of scenarios) {
      const outcome = await runCrashScenario(harness, temporarySqliteLedger, scenario, 'idempotent');
      refused += [...outcome.verdicts.values()].filter((v) => v === 'conflict-refused').length;
    }
    expect(refused).toBeGreaterThan(0);
  });
});

describe('a non-atomic claim on an existing row', () => {
  it('really is non-atomic: two concurrent claims of a released row are both granted', async () => {
    const clock = new VirtualClock();
    const { ledger, dispose } = await nonAtomicClaimLedger(clock);
    try {
      const claim = (owner: string) =>
        ledger.claim({ eventId: 'evt', payloadSha256: 'a'.repeat(64), owner, leaseSeconds: 30 });
      await claim('first');
      await ledger.release({ eventId: 'evt', owner: 'first', outcome: 'http 503' });
      const results = await Promise.all([claim('w0'), claim('w1')]);
      expect(results.map((r) => r.status)).toEqual(['claimed', 'claimed']);
    } finally {
      await dispose();
    }
  });

  // Two workers both sending is masked by an idempotent receiver (one 409s or is replayed), so
  // the property catches it where it happens: the ledger granted a live lease a second time.
  it.each([7, 1, 2, 3])('is caught by crash-window at its default 40 runs (seed %i)', async (seed) => {
    const result = await failureOf('crash-window', nonAtomicClaimLedger, seed);
    expect(result?.status).toBe('failed');
    expect(result?.runs).toBeLessThanOrEqual(40);
    expect(result?.error).toMatch(/[1-9]\d* double-claimed/);
  });
});
