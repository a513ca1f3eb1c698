import type { VirtualClock } from '@queueport/core/testing';
import { scratchLedgers } from '@queueport/ledger/testing';

// The root vitest global setup provides the URL (a local server, or QUEUEPORT_POSTGRES_URL).
const postgresUrl = process.env.QUEUEPORT_POSTGRES_URL ?? '';

/** The ledger stores to run the worker over: a fresh SQLite file, a fresh PostgreSQL schema. */
export const LEDGER_STORES = scratchLedgers({ tag: 'otel', postgresUrl });

/** Moves the virtual clock in small steps, with real time for HTTP and the database between, until `check` holds. */
export async function until(
  clock: VirtualClock,
  check: () => boolean,
  what: string,
  stepMs = 100,
): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`gave up waiting for ${what}`);
}
