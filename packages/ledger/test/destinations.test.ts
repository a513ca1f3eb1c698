import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isQueueError, payloadDigest } from '@queueport/core';
import { VirtualClock } from '@queueport/core/testing';
import {
  type DestinationStateStore,
  destinationStoreOf,
  type LedgerWithDestinations,
  MAX_PARKED_BODY_BYTES,
} from '@queueport/ledger';
import { openPostgresLedger } from '@queueport/ledger/postgres';
import { openSqliteLedger } from '@queueport/ledger/sqlite';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { type EarlierDatabase, type EarlierRow, postgresAt, sqliteAt } from './support/earlier-database';
import { schemasPerFile } from './support/postgres';

const DIGEST = payloadDigest({ amount: 1 });
const connectionString = inject('queueportServices').postgresUrl;
const schemas = schemasPerFile('ledger_dest', connectionString);
const dir = mkdtempSync(path.join(tmpdir(), 'queueport-ledger-dest-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Open = (clock: VirtualClock) => Promise<LedgerWithDestinations>;
const STORES: [string, Open][] = [
  ['sqlite', (clock) => openSqliteLedger({ filename: path.join(dir, `d-${++files}.db`), clock })],
  ['postgres', (clock) => openPostgresLedger({ connectionString, schema: schemas.next(), clock })],
];

const body = (eventId: string) => JSON.stringify({ event_id: eventId, note: 'ünïcödé ✓' });

describe.each(STORES)('destination state: %s', (_name, open) => {
  let clock: VirtualClock;
  let ledger: LedgerWithDestinations;
  let store: DestinationStateStore;
  const opened: LedgerWithDestinations[] = [];

  beforeEach(async () => {
    clock = new VirtualClock(1_000_000);
    ledger = await open(clock);
    opened.push(ledger);
    store = ledger.destinations;
  });
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
  });

  const claim = (eventId: string, owner = 'w1') =>
    ledger.claim({ eventId, payloadSha256: DIGEST, owner, leaseSeconds: 30 });
  const park = (eventId: string, extra: { owner?: string; attemptMade?: boolean; outcome?: string } = {}) =>
    store.park({ eventId, owner: extra.owner ?? 'w1', destinationId: 'acme', body: body(eventId), ...extra });

  it('is found on the ledger; disable and enable are idempotent and say whether they changed anything', async () => {
    expect(destinationStoreOf(ledger)).toBe(store);
    expect(await store.get('acme')).toBeUndefined();
    expect(await store.enable('acme')).toEqual({ changed: false, state: undefined });
    const first = await store.disable({ destinationId: 'acme', reason: 'http 410' });
    expect(first).toEqual({
      changed: true,
      state: {
        destinationId: 'acme',
        disabled: true,
        reason: 'http 410',
        disabledAt: 1_000_000,
        enabledAt: null,
        updatedAt: 1_000_000,
        parked: 0,
      },
    });
    await clock.advance(5);
    const again = await store.disable({ destinationId: 'acme', reason: 'another reason' });
    expect(again.changed).toBe(false);
    expect(again.state?.reason).toBe('http 410');
    await store.disable({ destinationId: 'beta', reason: 'by hand' });
    expect(await store.disabledIds()).toEqual(['acme', 'beta']);
    const enabled = await store.enable('acme');
    expect(enabled).toMatchObject({ changed: true, state: { disabled: false, enabledAt: 1_000_005 } });
    expect((await store.enable('acme')).changed).toBe(false);
    expect(await store.disabledIds()).toEqual(['beta']);
    expect((await store.list()).map((s) => [s.destinationId, s.disabled])).toEqual([
      ['acme', false],
      ['beta', true],
    ]);
    expect((await store.list({ limit: 1, after: 'acme' })).map((s) => s.destinationId)).toEqual(['beta']);
  });

  it('parks only while the destination is disabled, and then gives the claim back un-counted', async () => {
    await claim('e1');
    expect(await park('e1')).toEqual({ status: 'enabled' });
    // Nothing written: the lease is still the caller's.
    expect(await ledger.get('e1')).toMatchObject({ leaseOwner: 'w1', attempts: 1 });
    expect(await store.listParked({ destinationId: 'acme', limit: 10 })).toEqual([]);

    await store.disable({ destinationId: 'acme', reason: 'by hand' });
    const parked = await park('e1');
    expect(parked).toMatchObject({
      status: 'parked',
      record: {
        state: 'processing',
        attempts: 0,
        leaseOwner: null,
        leaseUntil: null,
        lastOutcome: 'parked: destination acme disabled',
        ambiguous: false,
      },
    });
    expect(await store.get('acme')).toMatchObject({ parked: 1 });
    // The lease was given back: the owner cannot settle it any more, and the next claim is attempt 1 again.
    expect(isQueueError(await park('e1').catch((e) => e), 'LEASE_LOST')).toBe(true);
    const next = await claim('e1', 'w2');
    expect(next).toMatchObject({ status: 'claimed', attempt: 1 });
    expect(next.record.ambiguous).toBe(false);
  });

  it('keeps a made attempt counted, with its outcome, and the ambiguity it had', async () => {
    await store.disable({ destinationId: 'acme', reason: 'failing' });
    await claim('e1');
    const parked = await store.park({
      eventId: 'e1',
      owner: 'w1',
      destinationId: 'acme',
      body: body('e1'),
      attemptMade: true,
      outcome: 'request timeout after 200 ms',
      ambiguous: true,
    });
    expect(parked).toMatchObject({
      status: 'parked',
      record: {
        attempts: 1,
        ambiguous: true,
        lastOutcome: 'request timeout after 200 ms; parked: destination acme disabled',
      },
    });
  });

  it('lists parked events in due order, page by page, with their ledger state; a repeat park keeps its place', async () => {
    await store.disable({ destinationId: 'acme', reason: 'by hand' });
    for (const id of ['c', 'a', 'b']) {
      await claim(id);
      await clock.advance(10);
    }
    // Parked in another order than they came due.
    for (const id of ['b', 'c', 'a']) await park(id);
    await clock.advance(10);
    // A crash between park and ack: redelivered, claimed and parked again.
    await claim('c');
    await park('c');
    const all = await store.listParked({ destinationId: 'acme', limit: 10 });
    expect(all.map((p) => [p.eventId, p.parkCount, p.ledgerState])).toEqual([
      ['c', 2, 'processing'],
      ['a', 1, 'processing'],
      ['b', 1, 'processing'],
    ]);
    expect(all[0]).toMatchObject({ dueAt: 1_000_000, parkedAt: 1_000_040, body: body('c') });
    const [first] = await store.listParked({ destinationId: 'acme', limit: 1 });
    const rest = await store.listParked({
      destinationId: 'acme',
      limit: 10,
      after: { dueAt: first!.dueAt, eventId: first!.eventId },
    });
    expect(rest.map((p) => p.eventId)).toEqual(['a', 'b']);
    expect(await store.listParked({ destinationId: 'other', limit: 10 })).toEqual([]);

    // An unpark listed before a later park leaves the row: the later park is the one that counts.
    const stale = { eventId: 'c', parkCount: 1 };
    expect(await store.unpark([stale, { eventId: 'a', parkCount: 1 }])).toBe(1);
    expect((await store.listParked({ destinationId: 'acme', limit: 10 })).map((p) => p.eventId)).toEqual([
      'c',
      'b',
    ]);
  });

  it('keeps parked events of a disabled destination out of scanPending, and lists them again once it is enabled', async () => {
    await store.disable({ destinationId: 'acme', reason: 'by hand' });
    await claim('parked');
    await park('parked');
    await claim('stuck');
    await clock.advance(3_600_000);
    const ids = async () =>
      (await ledger.scanPending({ olderThanSeconds: 60, limit: 10 })).map((r) => r.eventId);
    expect(await ids()).toEqual(['stuck']);
    expect(
      (await ledger.scanPending({ olderThanSeconds: 60, limit: 10, after: 'stuck' })).map((r) => r.eventId),
    ).toEqual([]);
    await store.enable('acme');
    expect(await ids()).toEqual(['parked', 'stuck']);
  });

  it('never loses a park to a concurrent enable: each one is parked and listed, or left to its owner', async () => {
    await store.disable({ destinationId: 'acme', reason: 'by hand' });
    const ids = Array.from({ length: 12 }, (_, i) => `race-${i}`);
    for (const id of ids) await claim(id);
    const parks = ids.map((id) => park(id));
    const enabling = store.enable('acme');
    const results = await Promise.all(parks);
    await enabling;
    const listed = new Set(
      (await store.listParked({ destinationId: 'acme', limit: 100 })).map((p) => p.eventId),
    );
    ids.forEach((id, i) => {
      if (results[i]!.status === 'parked') expect(listed.has(id), id).toBe(true);
      else expect(listed.has(id), id).toBe(false);
    });
    for (const [i, id] of ids.entries()) {
      const record = await ledger.get(id);
      expect(record?.leaseOwner, id).toBe(results[i]!.status === 'parked' ? null : 'w1');
    }
  });

  it('refuses what it could not keep exactly: an oversized body, bad ids; and answers CLOSED once closed', async () => {
    await store.disable({ destinationId: 'acme', reason: 'by hand' });
    await claim('big');
    const big = await store
      .park({
        eventId: 'big',
        owner: 'w1',
        destinationId: 'acme',
        body: 'x'.repeat(MAX_PARKED_BODY_BYTES + 1),
      })
      .catch((e) => e);
    expect(isQueueError(big, 'INVALID_ARGUMENT')).toBe(true);
    expect(await ledger.get('big')).toMatchObject({ leaseOwner: 'w1' });
    expect(
      isQueueError(
        await store.disable({ destinationId: 'a\nb', reason: '' }).catch((e) => e),
        'INVALID_ARGUMENT',
      ),
    ).toBe(true);
    await ledger.close();
    expect(isQueueError(await store.get('acme').catch((e) => e), 'CLOSED')).toBe(true);
  });
});

describe('destination state: migrating a populated database from the version before it', () => {
  const rows: EarlierRow[] = [
    { eventId: 'open', state: 'processing', attempts: 1, leaseOwner: 'w1', lastOutcome: null },
    { eventId: 'done', state: 'delivered', attempts: 1, leaseOwner: null, lastOutcome: 'http 200' },
  ];
  // [store, the version destination state is, a database of the store's at a version]
  const STORES: [string, number, (version: number) => Promise<EarlierDatabase>][] = [
    ['SQLite', 3, async (version) => sqliteAt(path.join(dir, 'migrate.db'), version, rows)],
    ['PostgreSQL', 4, (version) => postgresAt(schemas, version, rows)],
  ];

  it.each(STORES)(
    '%s: version %i is added beside the rows, which keep their state, and parks work at once',
    async (_store, added, at) => {
      const db = await at(added - 1);
      const ledger = await db.open({ clock: new VirtualClock(1_000) });
      try {
        expect(await db.applied()).toEqual(db.upgradedAt(1_000));
        expect(await ledger.get('done')).toMatchObject({ state: 'delivered', lastOutcome: 'http 200' });
        await ledger.destinations.disable({ destinationId: 'acme', reason: 'by hand' });
        expect(
          await ledger.destinations.park({
            eventId: 'open',
            owner: 'w1',
            destinationId: 'acme',
            body: body('open'),
          }),
        ).toMatchObject({ status: 'parked', record: { attempts: 0 } });
      } finally {
        await ledger.close();
      }
    },
  );
});
