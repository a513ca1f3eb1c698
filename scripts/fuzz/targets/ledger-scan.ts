/**
 * scanPending / scanAmbiguous / prune on one temporary SQLite ledger with odd limits, ages and
 * cursors, between claims and settles that fill it. Every call ends in success or a typed
 * QueueError (never INTERNAL), and what a scan returns keeps its promises: at most `limit`
 * rows, the right states, after the cursor, in order.
 */
import type { LedgerRecord } from '@queueport/ledger';
import fc from 'fast-check';
import { check, outcomeOf } from '../context';
import { ledgerPerTarget } from '../ledger-per-target';
import type { FuzzTarget } from './fuzz-target';
import {
  afterArb,
  checkRecord,
  compareIds,
  DIGESTS,
  GOOD_IDS,
  limitArb,
  OWNERS,
  secondsArb,
} from './ledger-inputs';

type Op =
  | {
      kind: 'fill';
      id: number;
      owner: number;
      settle: 'none' | 'complete' | 'fail' | 'release';
      lease: number;
    }
  | { kind: 'scanPending'; olderThanSeconds: unknown; limit: unknown; after: unknown; junk: boolean }
  | { kind: 'scanAmbiguous'; limit: unknown; after: unknown }
  | { kind: 'prune'; olderThanSeconds: unknown }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fill' as const),
      id: fc.nat({ max: GOOD_IDS.length - 1 }),
      owner: fc.nat({ max: OWNERS.length - 1 }),
      settle: fc.constantFrom('none' as const, 'complete' as const, 'fail' as const, 'release' as const),
      lease: fc.integer({ min: 1, max: 120 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('scanPending' as const),
      olderThanSeconds: secondsArb,
      limit: limitArb,
      after: afterArb,
      junk: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('scanAmbiguous' as const), limit: limitArb, after: afterArb }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prune' as const), olderThanSeconds: secondsArb }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 600_000 }) }),
  },
);

/** One ledger for the whole run, opened in the first case and removed after the last. */
const ledgerOnce = ledgerPerTarget();

function checkPage(
  records: LedgerRecord[],
  limit: unknown,
  after: unknown,
  order: (a: LedgerRecord, b: LedgerRecord) => number,
) {
  check(records.length <= (limit as number), `${records.length} rows for a limit of ${String(limit)}`);
  for (const record of records) checkRecord(record);
  for (let i = 1; i < records.length; i++)
    check(order(records[i - 1]!, records[i]!) < 0, 'a page out of order');
  return typeof after === 'string';
}

export const targets: FuzzTarget[] = [
  {
    name: 'ledger-scan',
    minCases: 2_000,
    property: () =>
      fc.asyncProperty(opArb, async (op) => {
        const { ledger, clock } = await ledgerOnce();
        switch (op.kind) {
          case 'fill': {
            const eventId = GOOD_IDS[op.id]!;
            const owner = OWNERS[op.owner]!;
            const claim = await outcomeOf(
              () => ledger.claim({ eventId, payloadSha256: DIGESTS[0]!, owner, leaseSeconds: op.lease }),
              'claim',
            );
            if (claim.ok && claim.value.status === 'claimed' && op.settle !== 'none') {
              await outcomeOf(
                () => ledger[op.settle as 'complete']({ eventId, owner, outcome: 'http 503' }),
                op.settle,
              );
            }
            return;
          }
          case 'scanPending': {
            const request =
              op.junk && op.limit === undefined
                ? null
                : { olderThanSeconds: op.olderThanSeconds, limit: op.limit, after: op.after };
            const now = clock.now();
            const outcome = await outcomeOf(() => ledger.scanPending(request as never), 'scanPending');
            if (!outcome.ok) {
              check(
                outcome.error.code === 'INVALID_ARGUMENT',
                `scanPending refused with ${outcome.error.code}`,
              );
              return;
            }
            const cutoff = now - Math.ceil((op.olderThanSeconds as number) * 1000);
            const records = outcome.value;
            checkPage(
              records,
              op.limit,
              op.after,
              (a, b) => a.createdAt - b.createdAt || compareIds(a.eventId, b.eventId),
            );
            for (const record of records) {
              check(record.state === 'processing', 'scanPending returned a settled row');
              check(record.updatedAt < cutoff, 'scanPending returned a row updated after the cutoff');
            }
            return;
          }
          case 'scanAmbiguous': {
            const outcome = await outcomeOf(
              () => ledger.scanAmbiguous({ limit: op.limit, after: op.after } as never),
              'scanAmbiguous',
            );
            if (!outcome.ok) {
              check(
                outcome.error.code === 'INVALID_ARGUMENT',
                `scanAmbiguous refused with ${outcome.error.code}`,
              );
              return;
            }
            const records = outcome.value;
            checkPage(records, op.limit, op.after, (a, b) => compareIds(a.eventId, b.eventId));
            for (const record of records) {
              check(record.ambiguous, 'scanAmbiguous returned a row that is not ambiguous');
              if (typeof op.after === 'string')
                check(compareIds(record.eventId, op.after) > 0, 'a row not after the cursor');
            }
            return;
          }
          case 'prune': {
            const outcome = await outcomeOf(
              () => ledger.prune({ olderThanSeconds: op.olderThanSeconds } as never),
              'prune',
            );
            if (!outcome.ok)
              check(outcome.error.code === 'INVALID_ARGUMENT', `prune refused with ${outcome.error.code}`);
            else check(Number.isSafeInteger(outcome.value) && outcome.value >= 0, 'prune counted oddly');
            return;
          }
          case 'advance':
            await clock.advance(op.ms);
        }
      }),
  },
];
