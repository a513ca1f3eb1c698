import path from 'node:path';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { type PairScenario, timed } from '../runner';
import { concurrently, encodedEvents, tempDir, waitForEffects } from '../shared/fixtures';
import { rawPoster } from '../shared/http';
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
      subject: deliveryPipeline(temp.dir, events, DELIVERY_CONCURRENCY),
      baseline: async (label) => {
        const receiver = await startReferenceReceiver({ mode: 'idempotent' });
        const poster = rawPoster(DELIVERY_CONCURRENCY);
        const db = openBareSqlite(path.join(temp.dir, `limit-${label}.sqlite`));
        db.exec(
          'CREATE TABLE deliveries (event_id TEXT NOT NULL PRIMARY KEY, payload_sha256 TEXT NOT NULL, outcome TEXT, updated_at INTEGER NOT NULL) STRICT, WITHOUT ROWID',
        );
        const begin = db.prepare(
          'INSERT INTO deliveries (event_id, payload_sha256, updated_at) VALUES (?, ?, ?)',
        );
        const finish = db.prepare('UPDATE deliveries SET outcome = ?, updated_at = ? WHERE event_id = ?');
        const bodies = encodedEvents(label, events);
        try {
          return await timed(async () => {
            await concurrently(bodies, DELIVERY_CONCURRENCY, async (event) => {
              begin.run(event.id, event.digest, Date.now());
              await poster.post(receiver.url, event);
              finish.run('http 200', Date.now(), event.id);
            });
            await waitForEffects(receiver, events);
            return events;
          });
        } finally {
          db.close();
          await poster.close();
          await receiver.close();
        }
      },
      close: async () => temp.remove(),
    };
  },
};
