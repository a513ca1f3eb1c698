import { virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { BRIDGE_ATTRIBUTE, type DriverMessage, QueueError, type SettleOutcome } from '@queueport/core/driver';
import type { VirtualClock } from '@queueport/core/testing';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';
import { crashWindowProperties, runCrashScenario } from '@queueport/webhook/conformance';
import { describe, expect, it } from 'vitest';

describeConformance(
  'memory + SQLite ledger + reference receiver',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
  { properties: crashWindowProperties(temporarySqliteLedger) },
);

/**
 * The delay bridge's crash window: the next hop is re-sent, then the process dies before the
 * old hop is settled. Here the first settle of every hop fails, so each hop is left behind
 * once and comes back when its lease ends, with its re-send already queued.
 */
class DiesBetweenHops extends MemoryDriver {
  readonly #hops = new Set<string>();
  /** Hops whose settle was made to fail: a run that killed none proved nothing. */
  static died = 0;
  readonly #diedOnce = new Set<string>();
  readonly #clock: VirtualClock;

  constructor(options: MemoryDriverOptions & { clock: VirtualClock }) {
    super(options);
    this.#clock = options.clock;
  }

  /** Only hops the bridge settles (not yet due); a due one is the application's to ack. */
  override async receive(request: Parameters<MemoryDriver['receive']>[0]): Promise<DriverMessage[]> {
    const messages = await super.receive(request);
    for (const message of messages) {
      const dueAt = Number(message.attributes[BRIDGE_ATTRIBUTE]?.split(':')[1]);
      if (dueAt > this.#clock.now()) this.#hops.add(message.receipt);
    }
    return messages;
  }

  override async ack(receipts: readonly string[]): Promise<SettleOutcome[]> {
    const dying = receipts.filter((r) => this.#hops.has(r) && !this.#diedOnce.has(r));
    for (const receipt of dying) this.#diedOnce.add(receipt);
    DiesBetweenHops.died += dying.length;
    const rest = receipts.filter((r) => !dying.includes(r));
    const settled = await super.ack(rest);
    return receipts.map((receipt) =>
      dying.includes(receipt)
        ? { ok: false, error: new QueueError('INTERNAL', 'simulated crash between two hops') }
        : settled[rest.indexOf(receipt)]!,
    );
  }
}

describeConformance(
  'memory with delays bridged past 900 s, dying between hops, + SQLite ledger',
  virtualTimeHarness('memory-bridged', (clock) => new DiesBetweenHops({ clock, nativeMaxDelaySeconds: 900 })),
  { properties: crashWindowProperties(temporarySqliteLedger) },
);

describe('dying between hops', () => {
  it('really happens in a scenario with a bridged delay, and the event still takes effect once', async () => {
    const harness = virtualTimeHarness(
      'memory-bridged',
      (clock) => new DiesBetweenHops({ clock, nativeMaxDelaySeconds: 900 }),
    );
    const before = DiesBetweenHops.died;
    const outcome = await runCrashScenario(
      harness,
      temporarySqliteLedger,
      {
        events: 1,
        publishes: [{ event: 0, gapSeconds: 0, delaySeconds: 2000 }],
        crashes: [],
        workers: 1,
        rounds: [1],
        flaky: [],
      },
      'idempotent',
    );
    expect(DiesBetweenHops.died - before).toBeGreaterThanOrEqual(2);
    expect([...outcome.verdicts.values()]).toEqual(['delivered-once']);
    expect(outcome.histories[0]?.effects).toBe(1);
  });
});
