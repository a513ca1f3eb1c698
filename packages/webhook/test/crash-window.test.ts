import { randomBytes } from 'node:crypto';
import { virtualTimeHarness } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import { BRIDGE_ATTRIBUTE, type DriverMessage, QueueError, type SettleOutcome } from '@queueport/core/driver';
import type { VirtualClock } from '@queueport/core/testing';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { temporarySqliteLedger } from '@queueport/ledger/sqlite';
import { MemoryDriver, type MemoryDriverOptions } from '@queueport/memory';
import { crashWindowProperties, type LedgerFactory, runCrashScenario } from '@queueport/webhook/conformance';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

describeConformance(
  'memory + SQLite ledger + reference receiver',
  virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
  { properties: crashWindowProperties(temporarySqliteLedger) },
);

/**
 * One PostgreSQL ledger per run, each in a fresh schema of its own on one pool this file owns
 * (a ledger leaves a pool it was given open), the schema dropped when the run is disposed.
 */
function postgresLedgers(connectionString: string): { open: LedgerFactory; close(): Promise<void> } {
  const prefix = `crash_window_${process.pid}_${randomBytes(3).toString('hex')}`;
  let runs = 0;
  let pool: pg.Pool | undefined;
  const connect = (): pg.Pool => {
    if (!pool) {
      pool = new pg.Pool({ connectionString, max: 8 });
      // An idle client dying (server restart) must fail the next query, not the process.
      pool.on('error', () => undefined);
    }
    return pool;
  };
  return {
    open: async (clock) => {
      const schema = `${prefix}_${++runs}`;
      const shared = connect();
      const ledger = await openPostgresLedger({ pool: shared, schema, clock });
      return {
        ledger,
        dispose: async () => {
          await ledger.close();
          await shared.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    },
    close: async () => {
      if (!pool) return;
      // Schemas a run failed to dispose of (an interrupted run) go too.
      const { rows } = await pool.query<{ nspname: string }>(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 || '\\_%'",
        [prefix],
      );
      for (const { nspname } of rows) await pool.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
      await pool.end();
    },
  };
}

// The root vitest global setup provides the URL (a local server, or QUEUEPORT_POSTGRES_URL).
// Both properties run their default 40 runs here too: a schema per run costs a migration, yet
// the pair takes about 5 s, so fewer runs would buy little.
const postgresUrl = process.env.QUEUEPORT_POSTGRES_URL || undefined;
if (postgresUrl) {
  const ledgers = postgresLedgers(postgresUrl);
  afterAll(() => ledgers.close());
  describeConformance(
    'memory + PostgreSQL ledger + reference receiver',
    virtualTimeHarness('memory', (clock) => new MemoryDriver({ clock })),
    { properties: crashWindowProperties(ledgers.open) },
  );
} else {
  describe('conformance: memory + PostgreSQL ledger + reference receiver', () => {
    it.skip('crash window on PostgreSQL: skipped, no PostgreSQL URL was provided (set QUEUEPORT_POSTGRES_URL)', () => {});
  });
}

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
  virtualTimeHarness(
    'memory-bridged',
    (clock) => new DiesBetweenHops({ clock, nativeMaxDelaySeconds: 900 }),
    {
      injectsFaults: true,
    },
  ),
  { properties: crashWindowProperties(temporarySqliteLedger) },
);

describe('dying between hops', () => {
  it('really happens in a scenario with a bridged delay, and the event still takes effect once', async () => {
    const harness = virtualTimeHarness(
      'memory-bridged',
      (clock) => new DiesBetweenHops({ clock, nativeMaxDelaySeconds: 900 }),
      { injectsFaults: true },
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
