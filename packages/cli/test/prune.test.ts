import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { FilePayloadStore, isQueueError, type PayloadReference, payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, Interrupted } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { CONFIGURED_LEDGERS, type LedgerSetup, SQLITE_LEDGER } from './support/configured-ledgers';
import { tempDir, testIo } from './support/test-io';

const DAY_MS = 86_400_000;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup.reverse()) await clean();
  cleanup = [];
});

/**
 * A project with a ledger and a payload folder, both written on a clock set back so that now (the
 * CLI's system clock) is 60 days after day 0: rows and attempts from day 0, day 40 and day 59, a
 * row still pending from day 0, and a payload from day 0 and one from day 59.
 */
async function project(setup: LedgerSetup = SQLITE_LEDGER) {
  const dir = await tempDir();
  cleanup.push(dir.remove);
  const store = await setup(dir.file);
  cleanup.push(store.drop);
  await dir.write('queueport.config.json', { providers: {}, ledger: store.config });
  const clock = new VirtualClock(Date.now() - 60 * DAY_MS);
  const ledger = await store.open(clock);
  const payloads = new FilePayloadStore({ root: dir.file('payloads') });
  const settle = async (eventId: string, how: 'complete' | 'release') => {
    await ledger.claim({ eventId, payloadSha256: payloadDigest({ eventId }), owner: 'w', leaseSeconds: 30 });
    await ledger[how]({
      eventId,
      owner: 'w',
      outcome: how,
      attempt: { startedAt: clock.now(), durationMs: 5 },
    });
  };
  const storePayload = async (text: string): Promise<PayloadReference> => {
    const reference = await payloads.put(new TextEncoder().encode(text));
    const at = clock.now() / 1000;
    await utimes(path.join(payloads.root, reference.sha256.slice(0, 2), reference.sha256), at, at);
    return reference;
  };
  await settle('day-0', 'complete');
  await settle('day-0-pending', 'release');
  const oldPayload = await storePayload('day 0');
  await clock.advance(40 * DAY_MS);
  await settle('day-40', 'complete');
  await clock.advance(19 * DAY_MS);
  await settle('day-59', 'complete');
  const newPayload = await storePayload('day 59');
  await ledger.close();

  /** Each row left, with how many attempts it still has. */
  const rows = async () => {
    const reopened = await store.open();
    try {
      const attempts = async (eventId: string) =>
        (await reopened.listAttempts({ eventId, limit: 10 })).length;
      const left: [string, number][] = [];
      for (const row of await reopened.list({ limit: 100 }))
        left.push([row.eventId, await attempts(row.eventId)]);
      return left;
    } finally {
      await reopened.close();
    }
  };
  const stored = (reference: PayloadReference) =>
    payloads.get(reference).then(
      () => true,
      (error) => (isQueueError(error, 'NOT_FOUND') ? false : Promise.reject(error)),
    );
  const io = () => testIo({ cwd: dir.dir, env: store.env });
  const run = async (argv: string[]) => {
    const captured = io();
    const code = await main([...argv, '--json'], captured);
    return { code, report: JSON.parse(captured.out()) as CommandReport, stderr: captured.err() };
  };
  return { dir, rows, stored, oldPayload, newPayload, io, run };
}

describe.each(CONFIGURED_LEDGERS)('queueport prune on %s', (_name, setup) => {
  it('deletes the settled rows, the attempts and the payloads past their ages, and reports it as JSON', async () => {
    const world = await project(setup);
    const { code, report, stderr } = await world.run([
      'prune',
      '--history',
      '30d',
      '--attempts',
      '14d',
      '--payloads',
      '30d',
      '--payload-dir',
      'payloads',
    ]);

    expect(code).toBe(EXIT.ok);
    expect(stderr).toBe('');
    expect(report).toMatchObject({
      command: 'prune',
      ok: true,
      summary: { historyRows: 1, attempts: 3, payloads: 1 },
    });
    expect(report.checks.map(({ id, status, title, detail }) => ({ id, status, title, detail }))).toEqual([
      {
        id: 'prune.attempts',
        status: 'passed',
        title: 'attempts started more than 14d ago',
        detail: '3 deleted',
      },
      {
        id: 'prune.history',
        status: 'passed',
        title: 'delivered and failed rows settled more than 30d ago, with their attempts',
        detail: '1 deleted',
      },
      {
        id: 'prune.payloads',
        status: 'passed',
        title: 'stored payloads written more than 30d ago',
        detail: '1 deleted',
      },
    ]);
    // The pending row of day 0 stays, without its attempt; day 40's row stays without its attempt.
    expect(await world.rows()).toEqual([
      ['day-0-pending', 0],
      ['day-40', 0],
      ['day-59', 1],
    ]);
    expect(await world.stored(world.oldPayload)).toBe(false);
    expect(await world.stored(world.newPayload)).toBe(true);
  });

  it('takes a shorter message lifetime, stated, and then a shorter history', async () => {
    const world = await project(setup);
    const { code, report } = await world.run([
      'prune',
      '--history',
      '7d',
      '--message-lifetime',
      '7d',
      '--attempts',
      '0s',
    ]);
    expect(code).toBe(EXIT.ok);
    expect(report.summary).toEqual({ historyRows: 2, attempts: 4, payloads: 0 });
    expect(await world.rows()).toEqual([
      ['day-0-pending', 0],
      ['day-59', 0],
    ]);
  });

  it('fails with exit 1 when a step fails, naming it; the steps before it stay done', async () => {
    const world = await project(setup);
    // A file where the store keeps a folder of payloads: listing it fails (ENOTDIR).
    await world.dir.write('payloads/ab', 'not a folder');
    const { code, report } = await world.run([
      'prune',
      '--history',
      '30d',
      '--payloads',
      '30d',
      '--payload-dir',
      'payloads',
    ]);
    expect(code).toBe(EXIT.failed);
    expect(report.ok).toBe(false);
    expect(report.checks.map(({ id, status }) => [id, status])).toEqual([
      ['prune.attempts', 'passed'],
      ['prune.history', 'passed'],
      ['prune.payloads', 'failed'],
    ]);
    expect(report.checks[2]!.detail).toMatch(/^INTERNAL: the file payload store failed to prune \(ENOTDIR\)/);
    expect(report.summary).toEqual({ historyRows: 1, attempts: 2, payloads: 0 });
    expect(await world.rows()).toHaveLength(3);
  });
});

describe('queueport prune: the command line', () => {
  it('prints for people, with a line of progress per step on stderr', async () => {
    const world = await project();
    const io = world.io();
    expect(await main(['prune', '--history', '30d'], io)).toBe(EXIT.ok);
    expect(io.err().split('\n')).toEqual([
      'prune: attempts started more than 30d ago …',
      'prune: attempts: 2 deleted',
      'prune: delivered and failed rows settled more than 30d ago, with their attempts …',
      'prune: history: 1 deleted',
      '',
    ]);
    expect(io.out()).toMatch(/queueport prune: OK \(2 passed, 0 failed, 0 skipped\)/);
    expect(io.out()).toMatch(/historyRows\s+1/);
    expect(io.out()).toContain('No stored payload was deleted: give --payloads with --payload-dir.');
    expect(await world.stored(world.oldPayload)).toBe(true);
  });

  it.each([
    [
      ['--history', '30'],
      '--history takes an age: a whole number and s, m, h or d, such as 30d or 12h, not "30"',
    ],
    [['--history', '30d', '--attempts', '2w'], '--attempts takes an age'],
    [['--history', '1.5d'], '--history takes an age'],
    [['--history=-3d'], '--history takes an age'],
    [['--attempts', '1d'], '--history is required'],
    [['--history', '30d', '--payloads', '30d'], '--payloads and --payload-dir go together'],
    [['--history', '30d', '--payload-dir', 'payloads'], '--payloads and --payload-dir go together'],
    [
      ['--history', '30d', '--payloads', '30d', '--payload-dir', 'nowhere'],
      '--payload-dir: no such folder: nowhere',
    ],
    [['--history', '7d'], '--history (7d) is shorter than --message-lifetime (21d)'],
    [['--history', '30d', '--attempts', '31d'], '--attempts (31d) is longer than --history (30d)'],
    [
      ['--history', '30d', '--payloads', '3d', '--payload-dir', 'payloads'],
      '--payloads (3d) is shorter than',
    ],
  ])('refuses %j with exit 2 and deletes nothing', async (flags, message) => {
    const world = await project();
    const io = world.io();
    expect(await main(['prune', ...flags, '--json'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain(message);
    expect(JSON.parse(io.out())).toMatchObject({ command: 'prune', ok: false, error: { kind: 'usage' } });
    expect(await world.rows()).toHaveLength(4);
    expect(await world.stored(world.oldPayload)).toBe(true);
  });

  it('starts no step once stopped by SIGINT: exit 130, the steps reported as skipped', async () => {
    const world = await project();
    const stop = new AbortController();
    stop.abort(new Interrupted('SIGINT'));
    const io = world.io();
    expect(await main(['prune', '--history', '30d', '--json'], io, { signal: stop.signal })).toBe(
      EXIT.interrupted,
    );
    const report = JSON.parse(io.out()) as CommandReport;
    expect(report.checks.map(({ id, status, detail }) => [id, status, detail])).toEqual([
      ['prune.attempts', 'skipped', 'stopped before it began'],
      ['prune.history', 'skipped', 'stopped before it began'],
    ]);
    expect(await world.rows()).toHaveLength(4);
  });

  it('opens nothing with a ledger that is not configured: exit 2', async () => {
    const world = await project();
    await world.dir.write('queueport.config.json', { providers: {} });
    const io = world.io();
    expect(await main(['prune', '--history', '30d'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('no ledger is configured');
  });
});
