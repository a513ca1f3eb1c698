import { adapterHarness, dedupeWindow } from '@queueport/conformance';
import { describeConformance } from '@queueport/conformance/vitest';
import type { Driver } from '@queueport/core/driver';
import { PostgresDriver, postgresQueueAdapter } from '../src';
import { schemasPerFile, terminateBackends } from './support/postgres';

const schemas = schemasPerFile('conformance');

/** The suite's connection drop: every backend of the driver, pooled and listening, is ended. */
async function dropConnection(driver: Driver): Promise<void> {
  if (!(driver instanceof PostgresDriver)) throw new Error('not a pgqueue driver');
  await terminateBackends(driver.applicationName);
}

// The whole suite on the shared PostgreSQL, on real time (leases and delays follow now()).
// Skipped, by the suite's own reasons:
// - long-delay, retention: need a virtual clock; the database's now() is real time.
// - ordering: the manifest declares none (SKIP LOCKED keeps no per-group order; see the README).
// - dedupe-window: the default 300 s window is past the real-time budget; run below with 2 s.
describeConformance(
  'pgqueue',
  adapterHarness(postgresQueueAdapter, schemas.next().providerUrl, { dropConnection }),
  { numRuns: 2 },
);

// A queue made with a 2 s window proves the window's edges on the database itself.
describeConformance(
  'pgqueue, 2 s dedupe window',
  adapterHarness(postgresQueueAdapter, schemas.next().providerUrl, {
    createQueue: { settings: { dedupeWindowSeconds: 2 } },
  }),
  { numRuns: 2, properties: [dedupeWindow] },
);
