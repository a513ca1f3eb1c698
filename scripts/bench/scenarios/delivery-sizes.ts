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
  'in the profile after group commit (issue 23), SQLite is about 18 % of the pipeline’s CPU: deliveries reach the ledger a few at a time, so its batches are small and each still pays a commit. ' +
  'Socket writes are about 10 %, garbage collection 8 %, the Queue’s receive side (JSON.parse, ajv with its date-time format, canonical JSON + SHA-256) about 10 %, abort signals about 8 % before the fix that gave timers a reason (a DOMException per driver call). ' +
  'What would remove most of it: settles coalesced into driver batches and one lease timer wheel in the consumer (no per-delivery controller or Promise.race), the Queue’s call deadlines on a shared wheel, and a receive path that checks the digest over the canonical bytes it received; none of these is built yet.';
