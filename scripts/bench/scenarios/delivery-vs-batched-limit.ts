import type { PairScenario } from '../runner';
import { bareBatchInsert, bareBatchUpdate } from '../shared/bare-batches';
import { bareDeliveryRound } from '../shared/bare-delivery';
import { subjectObservers } from '../shared/bench-telemetry';
import { type EncodedEvent, tempDir } from '../shared/fixtures';
import { deliveryPipeline } from '../shared/pipeline';
import { openBareSqlite, sqliteVersion } from '../shared/sqlite';
import { DELIVERY_CONCURRENCY, deliveryEvents, PIPELINE_REMAINS, PIPELINE_SUBJECT } from './delivery-sizes';

/** Events a bare loop takes at once: what one turn of a grouped store could join at most. */
const BATCH = 16;

/**
 * The physical limit when durable work is grouped, as group commit does it: each loop takes up
 * to 16 events, commits them in one bare multi-row INSERT, POSTs them all, then commits their
 * outcomes in one bare multi-row UPDATE. Nothing else runs: no queue, no lease, no signing.
 */
export const deliveryVsBatchedLimit: PairScenario = {
  kind: 'pair',
  otel: 'subject',
  name: 'delivery-vs-batched-limit',
  description:
    'The whole delivery path beside the physical limit of its durable work when that work is batched: the same POSTs bracketed by one bare multi-row SQLite INSERT and one bare multi-row UPDATE per batch of 16.',
  subject: PIPELINE_SUBJECT,
  baseline: `${DELIVERY_CONCURRENCY} loops, each: take up to ${BATCH} events → one bare multi-row INSERT (autocommit, WAL) → their undici POSTs at once → one bare multi-row UPDATE`,
  targets: [{ metric: 'ratio', atLeast: 0.8 }],
  remains: PIPELINE_REMAINS,
  async open({ quick }) {
    const events = deliveryEvents(quick);
    const temp = tempDir('batched-limit');
    const probe = openBareSqlite(':memory:');
    const version = sqliteVersion(probe);
    probe.close();
    return {
      detail: `${events} events per round, batches of ${BATCH}; SQLite ${version}, WAL, synchronous=NORMAL, better-sqlite3`,
      subject: deliveryPipeline(temp.dir, events, DELIVERY_CONCURRENCY, subjectObservers()),
      baseline: (label) =>
        bareDeliveryRound(
          temp.dir,
          label,
          events,
          DELIVERY_CONCURRENCY,
          async ({ db, poster, url, bodies }) => {
            const begin = bareBatchInsert(db, 'deliveries', ['event_id', 'payload_sha256', 'updated_at']);
            const finish = bareBatchUpdate(db, 'deliveries');
            let next = 0;
            const take = (): readonly EncodedEvent[] => {
              const batch = bodies.slice(next, next + BATCH);
              next += batch.length;
              return batch;
            };
            await Promise.all(
              Array.from({ length: DELIVERY_CONCURRENCY }, async () => {
                for (let batch = take(); batch.length > 0; batch = take()) {
                  const now = Date.now();
                  begin(batch.map((event) => [event.id, event.digest, now]));
                  await Promise.all(batch.map((event) => poster.post(url, event)));
                  finish(
                    batch.map((event) => event.id),
                    'http 200',
                  );
                }
              }),
            );
          },
        ),
      close: async () => temp.remove(),
    };
  },
};
