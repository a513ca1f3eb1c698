/**
 * One round of a delivery baseline: the reference receiver, the raw poster and a fresh bare
 * SQLite file with a deliveries table, all torn down after. `deliver` does the round's work; the
 * clock stops once the receiver has every effect.
 */
import path from 'node:path';
import { startReferenceReceiver } from '@queueport/webhook/reference-receiver';
import { type Sample, timed } from '../runner';
import { type EncodedEvent, encodedEvents, waitForEffects } from './fixtures';
import { type RawPoster, rawPoster } from './http';
import { openBareSqlite, type SqliteHandle } from './sqlite';

export interface BareDeliveryRound {
  db: SqliteHandle;
  poster: RawPoster;
  url: string;
  bodies: readonly EncodedEvent[];
}

export async function bareDeliveryRound(
  dir: string,
  label: string,
  events: number,
  connections: number,
  deliver: (round: BareDeliveryRound) => Promise<void>,
): Promise<Sample> {
  const receiver = await startReferenceReceiver({ mode: 'idempotent' });
  const poster = rawPoster(connections);
  const db = openBareSqlite(path.join(dir, `bare-${label}.sqlite`));
  db.exec(
    'CREATE TABLE deliveries (event_id TEXT NOT NULL PRIMARY KEY, payload_sha256 TEXT NOT NULL, outcome TEXT, updated_at INTEGER NOT NULL) STRICT, WITHOUT ROWID',
  );
  const bodies = encodedEvents(label, events);
  try {
    return await timed(async () => {
      await deliver({ db, poster, url: receiver.url, bodies });
      await waitForEffects(receiver, events);
      return events;
    });
  } finally {
    db.close();
    await poster.close();
    await receiver.close();
  }
}
