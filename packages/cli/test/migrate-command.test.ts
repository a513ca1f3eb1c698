import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, UsageError } from '../src/errors';
import { migrateCommand } from '../src/migrate';
import { startTestContext, type TestContext, type TestContextOptions } from './support/migrate-context';

let fixture: TestContext | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function started(options: TestContextOptions = {}): Promise<TestContext> {
  fixture = await startTestContext(options);
  return fixture;
}

const canaryFlags = ['--events', '6', '--window-ms', '60', '--drain-ms', '5000'];

describe('queueport migrate', () => {
  it('--from a --to b: passes, with the counts, on scratch queues that leave the configured ones alone', async () => {
    const f = await started();
    const a = await f.openQueue('a');
    await a.publish({ envelope: { event_id: 'app_1:created', type: 'app.created', payload: { n: 1 } } });

    const report = await migrateCommand.run(['--from', 'a', '--to', 'b', ...canaryFlags], f.context);
    expect(report.command).toBe('migrate');
    expect(report.checks.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({
      from: 'a',
      to: 'b',
      events: 6,
      'published.from': 6,
      'published.to': 6,
      'received.from': expect.any(Number),
      delivered: 6,
      suppressed: 6,
      'suppressed.ledger': 6,
      pending: 0,
      duplicates: 0,
      lost: 0,
      effects: 'receiver',
    });
    expect(report.rows).toHaveLength(2);
    expect(f.receiver.effectTotal()).toBe(6);
    // The application's message is still where it was, untaken.
    expect(await f.depth('a')).toBe(1);
    expect(f.progress.some((line) => line.includes('publishing 6 canary events'))).toBe(true);
  });

  it('--from a --to infrai: memory to the Infrai simulator', async () => {
    const f = await started({ infrai: true });
    const report = await migrateCommand.run(['--from', 'a', '--to', 'infrai', ...canaryFlags], f.context);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({ to: 'infrai', delivered: 6, duplicates: 0, lost: 0 });
  });

  it('counts effects from the ledger when the receiver is not the reference receiver', async () => {
    const f = await started({ exposeReceiver: false, signed: false });
    const report = await migrateCommand.run(['--from', 'a', '--to', 'b', ...canaryFlags], f.context);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({ effects: 'ledger', delivered: 6, duplicates: 0 });
    expect(report.notes?.some((note) => note.includes('read from the ledger'))).toBe(true);
  });

  it('--to b --rollback: drains b, counting it, and says which drained events the ledger has not delivered', async () => {
    const f = await started();
    const b = await f.openQueue('b');
    for (const id of ['order_1:paid', 'order_2:paid', 'order_3:paid']) {
      await b.publish({ envelope: { event_id: id, type: 'order.paid', payload: { id } } });
    }
    const report = await migrateCommand.run(['--to', 'b', '--rollback', '--drain-ms', '3000'], f.context);
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({
      to: 'b',
      drained: 3,
      'drained.events': 3,
      undelivered: 3,
      remaining: 0,
    });
    expect(report.notes?.some((note) => note.includes('order_1:paid'))).toBe(true);
    expect(await f.depth('b')).toBe(0);
    expect(f.receiver.requests()).toBe(0);
  });

  it('--rollback says what it dead-lettered, and tells the operator which command shows it', async () => {
    const f = await started();
    const b = await f.openQueue('b');
    await b.publish({ envelope: { event_id: 'order_1:paid', type: 'order.paid', payload: { id: 1 } } });
    // Written by something else: not a queueport envelope.
    await b.driver.publish([
      { eventId: 'foreign', dedupeKey: 'foreign', body: 'not an envelope', attributes: {}, delaySeconds: 0 },
    ]);
    const report = await migrateCommand.run(['--to', 'b', '--rollback', '--drain-ms', '3000'], f.context);
    expect(report.summary).toMatchObject({ drained: 1, 'dead-lettered': 1, remaining: 0 });
    expect(report.checks[0]?.detail).toContain('1 not queueport envelopes, moved to the dead letters');
    const note = report.notes?.find((each) => each.includes('dead letters')) ?? '';
    expect(note).toContain('queueport dlq list --provider b');
    expect(note).not.toContain(".on('invalid-message'");
  });

  it('refuses what it cannot run: a UsageError for flags, a ConfigError naming the receiver', async () => {
    const f = await started();
    await expect(migrateCommand.run(['--from', 'a'], f.context)).rejects.toThrow(UsageError);
    await expect(migrateCommand.run(['--to', 'b'], f.context)).rejects.toThrow(/--from is required/);
    await expect(migrateCommand.run(['--to', 'b', '--rollback', '--events', '3'], f.context)).rejects.toThrow(
      UsageError,
    );
    await expect(migrateCommand.run(['--from', 'a', '--to', 'b', '--event', '3'], f.context)).rejects.toThrow(
      UsageError,
    );
    await expect(
      migrateCommand.run(['--from', 'a', '--to', 'b', '--events', '0'], f.context),
    ).rejects.toThrow(/--events/);
    await expect(migrateCommand.run(['--from', 'a', '--to', 'nowhere'], f.context)).rejects.toThrow(
      /no provider named "nowhere"/,
    );

    delete f.loaded.config.receiver;
    const error = await migrateCommand.run(['--from', 'a', '--to', 'b'], f.context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('receiver');
  });
});
