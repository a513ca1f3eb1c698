/** Shared by both delivery scenarios, so the pipeline's number means the same in each. */
export const DELIVERY_CONCURRENCY = 16;

export function deliveryEvents(quick: boolean): number {
  return quick ? 300 : 8000;
}

/** What both delivery scenarios run as their subject. */
export const PIPELINE_SUBJECT = `memory queue → DeliveryWorker → SQLite ledger claim → undici POST → ledger commit → ack, concurrency ${DELIVERY_CONCURRENCY}`;

/**
 * Where the pipeline's CPU goes beyond its baselines', from CPU profiles and a ladder of partial
 * pipelines (2026-12-02, 2 cores): per delivery.
 */
export const PIPELINE_REMAINS =
  'The three pipeline targets are above what the pipeline could reach with a ledger and a worker that cost nothing: delivery-floor (the Queue’s consumer and the webhook sender alone, no ledger, no worker) runs at about 1.0 × the physical-limit loop and 0.58 × the raw POST, and the whole pipeline does all of that and more. The same holds by addition on one core: the raw POST (about 118 µs a delivery) plus the grouped ledger’s own claim + complete at its met target (ledger-sqlite, about 40 µs an event) is about 158 µs, about 6,300 deliveries/s, short of 1.5 × the physical limit (about 7,000/s) before any queue work. ' +
  'Within the pipeline, beyond the floor: the SQLite ledger (about 50 µs of file writes a delivery: a turn’s transaction holds about 3 claims and 3 completions, and at 16 deliveries at once a bigger batch could only come from waiting, which costs more than it saves) and the worker’s own steps. Within the floor, beyond the raw POST: the consumer’s receive, decode and ack (about 33 µs a message alone), the handler’s abort signal linked into each request, the sender’s checks and signing. ' +
  'Built in issue 23: group commit (claims and settles of a turn in one transaction), coalesced acks, the sender on a shared deadline wheel, one promise per handler, the scan-based receive check.';
