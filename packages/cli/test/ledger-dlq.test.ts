import { payloadDigest, Queue } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { memoryAdapter } from '@queueport/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes';
import { main } from '../src/main';
import type { CommandReport } from '../src/report/report-types';
import { tempDir, testIo, uniqueQueue } from './support/test-io';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanup) await clean();
  cleanup = [];
});

async function project(config: object) {
  const dir = await tempDir({ 'queueport.config.json': config });
  cleanup.push(dir.remove);
  return dir;
}

async function run(argv: string[], cwd: string) {
  const io = testIo({ cwd });
  const code = await main([...argv, '--json'], io);
  return { code, report: JSON.parse(io.out()) as CommandReport };
}

describe('queueport ledger show', () => {
  it("shows the event's row from the configured SQLite ledger", async () => {
    const dir = await project({ providers: {}, ledger: { sqlite: 'data/../ledger.db' } });
    const ledger = await openSqliteLedger({ filename: dir.file('ledger.db') });
    await ledger.claim({
      eventId: 'pay_1:settled',
      payloadSha256: payloadDigest({ n: 1 }),
      owner: 'w1',
      leaseSeconds: 30,
    });
    await ledger.complete({ eventId: 'pay_1:settled', owner: 'w1', outcome: 'http 200' });
    await ledger.close();

    const { code, report } = await run(['ledger', 'show', 'pay_1:settled'], dir.dir);
    expect(code).toBe(EXIT.ok);
    expect(report.checks).toEqual([
      expect.objectContaining({ id: 'ledger.show', status: 'passed', detail: 'delivered, 1 attempt(s)' }),
    ]);
    expect(report.rows).toEqual([
      expect.objectContaining({
        eventId: 'pay_1:settled',
        state: 'delivered',
        attempts: 1,
        lastOutcome: 'http 200',
        ambiguous: false,
      }),
    ]);

    const human = testIo({ cwd: dir.dir });
    expect(await main(['ledger', 'show', 'pay_1:settled'], human)).toBe(EXIT.ok);
    expect(human.out()).toMatch(/state\s+delivered/);
  });

  it("lists the event's attempts by claim number: a table for people, whole in --json", async () => {
    const dir = await project({ providers: {}, ledger: { sqlite: 'ledger.db' } });
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const ledger = await openSqliteLedger({ filename: dir.file('ledger.db'), clock });
    const claim = (owner: string) =>
      ledger.claim({
        eventId: 'pay_2:settled',
        payloadSha256: payloadDigest({ n: 2 }),
        owner,
        leaseSeconds: 30,
      });
    const longAnswer = `line one\nline two ${'x'.repeat(300)}`;
    await claim('w1');
    await ledger.release({
      eventId: 'pay_2:settled',
      owner: 'w1',
      outcome: 'http 503',
      attempt: {
        startedAt: clock.now() - 250,
        durationMs: 250,
        statusCode: 503,
        errorClass: 'http',
        responseSample: { body: longAnswer },
        destinationId: 'dest-1',
      },
    });
    await clock.advance(60_000);
    await claim('w2');
    await ledger.complete({
      eventId: 'pay_2:settled',
      owner: 'w2',
      outcome: 'http 200',
      attempt: { startedAt: clock.now() - 40, durationMs: 40, statusCode: 200, destinationId: 'dest-1' },
    });
    await ledger.close();

    const { code, report } = await run(['ledger', 'show', 'pay_2:settled'], dir.dir);
    expect(code).toBe(EXIT.ok);
    expect(report.rows).toEqual([expect.objectContaining({ state: 'delivered', attempts: 2 })]);
    expect(report.tables).toEqual({
      attempts: [
        {
          attempt: 1,
          startedAt: '2025-12-31T23:59:59.750Z',
          durationMs: 250,
          outcome: 'retry',
          statusCode: 503,
          errorClass: 'http',
          ambiguous: false,
          destinationId: 'dest-1',
          response: longAnswer,
          responseTruncated: false,
        },
        {
          attempt: 2,
          startedAt: '2026-01-01T00:00:59.960Z',
          durationMs: 40,
          outcome: 'delivered',
          statusCode: 200,
          errorClass: null,
          ambiguous: false,
          destinationId: 'dest-1',
          response: null,
          responseTruncated: null,
        },
      ],
    });

    const human = testIo({ cwd: dir.dir });
    expect(await main(['ledger', 'show', 'pay_2:settled'], human)).toBe(EXIT.ok);
    const lines = human.out().split('\n');
    expect(lines).toContain('  attempts: 2');
    const first = lines.find((line) =>
      /^\s+1\s+2025-12-31T23:59:59\.750Z\s+250\s+retry\s+503\s+http/.test(line),
    );
    // The sample on its one line, cut: the whole of it is in --json.
    expect(first).toContain('line one⏎line two xxx');
    expect(first).toMatch(/x…\s+false$/);
    expect(lines.some((line) => /^\s+2\s+\S+\s+40\s+delivered\s+200\s+-/.test(line))).toBe(true);
  });

  it('fails the check with "not found" for an unknown event id', async () => {
    const dir = await project({ providers: {}, ledger: { sqlite: 'ledger.db' } });
    const { code, report } = await run(['ledger', 'show', 'nobody'], dir.dir);
    expect(code).toBe(EXIT.failed);
    expect(report.checks[0]).toMatchObject({
      status: 'failed',
      detail: 'not found: the ledger has no row for nobody',
    });
  });

  it('is a configuration error without a ledger, and a usage error without an id', async () => {
    const dir = await project({ providers: {} });
    const io = testIo({ cwd: dir.dir });
    expect(await main(['ledger', 'show', 'e'], io)).toBe(EXIT.usage);
    expect(io.err()).toContain('(ledger): no ledger is configured');
    expect(await main(['ledger', 'show'], testIo({ cwd: dir.dir }))).toBe(EXIT.usage);
    expect(await main(['ledger', 'drop', 'e'], testIo({ cwd: dir.dir }))).toBe(EXIT.usage);
  });
});

describe('queueport dlq', () => {
  it('lists and redrives the dead letters of a memory:// provider through its admin surface', async () => {
    const url = `memory://${uniqueQueue('dlq')}`;
    const dir = await project({ providers: { orders: { url } } });
    const queue = new Queue(await memoryAdapter.open(new URL(url), {}));
    for (const id of ['order_1:placed', 'order_2:placed']) {
      await queue.publish({ envelope: { event_id: id, type: 'order.placed', payload: {} } });
    }
    for (const delivery of await queue.receive({ maxMessages: 2 }))
      await delivery.deadLetter('refused by the test');

    const listed = await run(['dlq', 'list', '--provider', 'orders'], dir.dir);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.report.summary).toEqual({ provider: 'orders', listed: 2 });
    expect(listed.report.rows).toEqual([
      expect.objectContaining({
        eventId: 'order_1:placed',
        type: 'order.placed',
        reason: 'refused by the test',
        receiveCount: 1,
      }),
      expect.objectContaining({ eventId: 'order_2:placed' }),
    ]);
    expect(
      (await run(['dlq', 'list', '--provider', 'orders', '--limit', '1'], dir.dir)).report.rows,
    ).toHaveLength(1);

    const redriven = await run(['dlq', 'redrive', '--provider', 'orders', '--limit', '1'], dir.dir);
    expect(redriven.code).toBe(EXIT.ok);
    expect(redriven.report.summary).toEqual({ provider: 'orders', redriven: 1 });
    expect((await run(['dlq', 'list', '--provider', 'orders'], dir.dir)).report.rows).toHaveLength(1);
    const [back] = await queue.receive();
    expect(back?.envelope.event_id).toBe('order_1:placed');
    await queue.close();
    await (await memoryAdapter.admin!(new URL('memory://'), {})).deleteQueue(url);
  });

  it('lists the dead letters of the embedded Infrai simulator', async () => {
    const dir = await tempDir();
    cleanup.push(dir.remove);
    const { code, report } = await run(['dlq', 'list', '--provider', 'infrai'], dir.dir);
    expect(code).toBe(EXIT.ok);
    expect(report.summary).toEqual({ provider: 'infrai', listed: 0 });
  });
});
