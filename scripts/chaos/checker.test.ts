import { describe, expect, it } from 'vitest';
import { type ChaosRecords, checkRecords, type LedgerEntry, type ReceivedRequest } from './checker';

const ids = ['evt-1', 'evt-2', 'evt-3', 'evt-4'];

/** A clean run: every event delivered once, its key its id, its ledger row delivered. */
function cleanRun(): ChaosRecords {
  return {
    published: ids.map((eventId, index) => ({ eventId, publishes: index === 0 ? 2 : 1 })),
    requests: ids.map((eventId) => ({ eventId, idempotencyKey: eventId, status: 200 })),
    ledger: ids.map((eventId) => ({ eventId, state: 'delivered', ambiguous: false })),
    deadLetters: [],
    reconciled: [],
  };
}

const replace = <T extends { eventId: string }>(list: readonly T[], eventId: string, next: T[]): T[] => [
  ...list.filter((item) => item.eventId !== eventId),
  ...next,
];

describe('the chaos checker', () => {
  it('holds a clean run, a retried event and a dead-lettered one', () => {
    const run = cleanRun();
    // evt-2 failed once (503), then went through with the same key.
    run.requests = replace(run.requests, 'evt-2', [
      { eventId: 'evt-2', idempotencyKey: 'evt-2', status: 503 },
      { eventId: 'evt-2', idempotencyKey: 'evt-2', status: 200 },
    ]);
    // evt-3 was refused for good (410) and parked with its reason.
    run.requests = replace(run.requests, 'evt-3', [
      { eventId: 'evt-3', idempotencyKey: 'evt-3', status: 410 },
    ]);
    run.ledger = replace(run.ledger, 'evt-3', [{ eventId: 'evt-3', state: 'failed', ambiguous: false }]);
    run.deadLetters = [{ eventId: 'evt-3', reason: 'http 410' }];
    const verdict = checkRecords(run);
    expect(verdict).toMatchObject({
      events: 4,
      held: true,
      classes: { 'delivered-once': 2, 'delivered-after-retries': 1, 'dead-lettered': 1, lost: 0 },
      lost: 0,
      duplicated: 0,
      unflagged: 0,
      disagreements: 0,
      unknown: 0,
    });
  });

  it('allows a second effect on the non-idempotent path only where the ledger flagged it', () => {
    const twice: ReceivedRequest[] = [
      { eventId: 'evt-1', idempotencyKey: 'evt-1', status: 200 },
      { eventId: 'evt-1', idempotencyKey: 'evt-1', status: 200 },
    ];
    const run = { ...cleanRun(), requests: replace(cleanRun().requests, 'evt-1', twice) };
    const flagged: LedgerEntry = { eventId: 'evt-1', state: 'delivered', ambiguous: true };
    expect(checkRecords({ ...run, ledger: replace(run.ledger, 'evt-1', [flagged]) })).toMatchObject({
      held: true,
      ambiguous: 1,
    });
    expect(checkRecords({ ...run, reconciled: ['evt-1'] })).toMatchObject({ held: true, unflagged: 0 });
    expect(checkRecords(run)).toMatchObject({
      held: false,
      unflagged: 1,
      examples: { unflagged: ['evt-1'] },
    });
  });

  // The three faults the campaign plants, each as the records it leaves behind.
  it('reports an ack before the send: the worker killed between them, the event is lost', () => {
    const run = cleanRun();
    run.requests = run.requests.filter((request) => request.eventId !== 'evt-4');
    // The queue forgot it (acked); the ledger still holds the claim of the killed worker.
    run.ledger = replace(run.ledger, 'evt-4', [{ eventId: 'evt-4', state: 'processing', ambiguous: false }]);
    const verdict = checkRecords(run);
    expect(verdict).toMatchObject({
      held: false,
      lost: 1,
      classes: { lost: 1 },
      examples: { lost: ['evt-4'] },
    });
  });

  it('reports a fresh key per attempt: two effects on the idempotent path', () => {
    const run = cleanRun();
    run.requests = replace(run.requests, 'evt-2', [
      { eventId: 'evt-2', idempotencyKey: 'evt-2#1', status: 200 },
      { eventId: 'evt-2', idempotencyKey: 'evt-2#2', status: 200 },
    ]);
    run.ledger = replace(run.ledger, 'evt-2', [{ eventId: 'evt-2', state: 'delivered', ambiguous: true }]);
    expect(checkRecords(run)).toMatchObject({ held: false, duplicated: 1, unflagged: 0 });
  });

  it('reports a ledger that forgets a commit: delivered again, unflagged', () => {
    const run = cleanRun();
    // The completion was lost, so a second worker claimed the event afresh (attempt 1, not
    // ambiguous) and posted it again.
    run.requests = replace(run.requests, 'evt-3', [
      { eventId: 'evt-3', idempotencyKey: 'evt-3', status: 200 },
      { eventId: 'evt-3', idempotencyKey: 'evt-3', status: 200 },
    ]);
    expect(checkRecords(run)).toMatchObject({ held: false, unflagged: 1, duplicated: 0 });
    // A ledger that forgot the completion for good says processing beside an effect.
    const stuck = { ...cleanRun() };
    stuck.ledger = replace(stuck.ledger, 'evt-3', [
      { eventId: 'evt-3', state: 'processing', ambiguous: false },
    ]);
    expect(checkRecords(stuck)).toMatchObject({ held: false, disagreements: 1 });
  });

  it('reports a ledger that says delivered without an effect, and requests for events never published', () => {
    const run = cleanRun();
    run.requests = [
      ...run.requests.filter((request) => request.eventId !== 'evt-1'),
      { eventId: 'ghost', idempotencyKey: 'ghost', status: 200 },
    ];
    const verdict = checkRecords(run);
    expect(verdict).toMatchObject({ held: false, lost: 1, disagreements: 1, unknown: 1 });
    expect(verdict.examples.unknown).toEqual(['ghost']);
  });
});
