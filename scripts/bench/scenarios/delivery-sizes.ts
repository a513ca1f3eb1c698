/** Shared by both delivery scenarios, so the pipeline's number means the same in each. */
export const DELIVERY_CONCURRENCY = 16;

export function deliveryEvents(quick: boolean): number {
  return quick ? 300 : 8000;
}

/** What both delivery scenarios run as their subject. */
export const PIPELINE_SUBJECT = `memory queue → DeliveryWorker → SQLite ledger claim → undici POST → ledger commit → ack, concurrency ${DELIVERY_CONCURRENCY}`;

/**
 * Where the pipeline's CPU goes beyond the physical-limit loop's, from a CPU profile of both
 * delivery scenarios (2026-12-01, 2 cores): the numbers are per delivery.
 */
export const PIPELINE_REMAINS =
  'about 185 µs of CPU per delivery beyond the physical-limit loop (406 against 219 µs in the profiled run). ' +
  'The ledger takes about 130 µs where the loop’s two bare commits take about 40: see ledger-sqlite for why. ' +
  'The Queue’s receive side takes about 100 µs: JSON.parse, the envelope schema (ajv, its date-time format included) and the canonical JSON + SHA-256 digest check. ' +
  'That is where stored bytes come back in from outside, so it stays; hashing a substring of the body instead would be unsafe against duplicate keys. ' +
  'The sender adds 10–20 µs: the request-shape check, and a timeout controller and timer for each request. ' +
  'To go further, the ledger needs a narrower hot row (see ledger-sqlite), and the Queue must skip re-proving the bytes where the provider itself guarantees they are the ones published, which needs a per-provider integrity flag in the manifest.';
