import type { PairScenario, Side } from '../runner';
import { bareDeliveryRound } from '../shared/bare-delivery';
import { subjectObservers } from '../shared/bench-telemetry';
import { concurrently, tempDir } from '../shared/fixtures';
import { deliveryPipeline } from '../shared/pipeline';
import { openBareSqlite, sqliteVersion } from '../shared/sqlite';
import { DELIVERY_CONCURRENCY, deliveryEvents, PIPELINE_REMAINS, PIPELINE_SUBJECT } from './delivery-sizes';

/**
 * The least any at-least-once webhook delivery with a durable record must do: commit before the
 * side effect (so a crash leaves a trace), POST, commit the outcome. Two bare autocommit
 * statements bracket the same POST; nothing else runs.
 */
export const deliveryVsPhysicalLimit: PairScenario = {
  kind: 'pair',
  otel: 'subject',
  name: 'delivery-vs-physical-limit',
  description:
    'The whole delivery path beside the physical limit of its durable work: the same POST bracketed by two bare SQLite commits, with no queue, no lease and no retry bookkeeping.',
  subject: PIPELINE_SUBJECT,
  baseline: `${DELIVERY_CONCURRENCY} loops: bare SQLite INSERT (autocommit, WAL) → the same undici POST → bare SQLite UPDATE`,
  targets: [{ metric: 'ratio', atLeast: 1.5 }],
  remains: PIPELINE_REMAINS,
  async open({ quick }) {
    const events = deliveryEvents(quick);
    const temp = tempDir('limit');
    const probe = openBareSqlite(':memory:');
    const version = sqliteVersion(probe);
    probe.close();
    return {
      detail: `${events} events per round; SQLite ${version}, WAL, synchronous=NORMAL, better-sqlite3`,
      subject: deliveryPipeline(temp.dir, events, DELIVERY_CONCURRENCY, subjectObservers()),
      baseline: physicalLimitLoop(temp.dir, events),
      close: async () => temp.remove(),
    };
  },
};

/**
 * The baseline: 16 loops of a bare SQLite INSERT (autocommit, WAL), the undici POST, a bare
 * UPDATE. The delivery-floor scenario runs it too.
 */
export function physicalLimitLoop(dir: string, events: number): Side {
  return (label) =>
    bareDeliveryRound(dir, label, events, DELIVERY_CONCURRENCY, async ({ db, poster, url, bodies }) => {
      const begin = db.prepare(
        'INSERT INTO deliveries (event_id, payload_sha256, updated_at) VALUES (?, ?, ?)',
      );
      const finish = db.prepare('UPDATE deliveries SET outcome = ?, updated_at = ? WHERE event_id = ?');
      await concurrently(bodies, DELIVERY_CONCURRENCY, async (event) => {
        begin.run(event.id, event.digest, Date.now());
        await poster.post(url, event);
        finish.run('http 200', Date.now(), event.id);
      });
    });
}
