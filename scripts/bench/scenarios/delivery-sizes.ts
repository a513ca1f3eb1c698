/** Shared by both delivery scenarios, so the pipeline's number means the same in each. */
export const DELIVERY_CONCURRENCY = 16;

export function deliveryEvents(quick: boolean): number {
  return quick ? 300 : 8000;
}

/** What both delivery scenarios run as their subject. */
export const PIPELINE_SUBJECT = `memory queue → DeliveryWorker → SQLite ledger claim → undici POST → ledger commit → ack, concurrency ${DELIVERY_CONCURRENCY}`;

/**
 * Where the pipeline's CPU goes beyond its baselines', from a CPU profile of the subject
 * (2026-12-02, 2 cores, after coalesced settles and the cheap receive path): per delivery.
 */
export const PIPELINE_REMAINS =
  'SQLite is about 17 % of the pipeline’s CPU: deliveries reach the ledger a few at a time, so one turn’s transaction holds about 3 claims and 3 completions, and on this disk a transaction of 3 + 3 costs about 160 µs (100 µs with synchronous=OFF: the WAL page writes themselves, four b-trees a row), against about 20 µs a delivery at 16 a transaction. ' +
  'Socket writes are about 12 % (both ends of each POST), garbage collection 7 %, abort signals about 4 % (the handler’s signal, which the worker passes to each send, and the Queue’s call deadlines), the sender’s per-request checks (destination, secrets, signing) about 5 %. ' +
  'Built in issue 23: group commit (claims and settles of a turn in one transaction), coalesced acks, the sender on a shared deadline wheel, one promise per handler, the scan-based receive check. ' +
  'What would remove more: fewer b-trees per ledger row (a WITHOUT ROWID table, or a narrow hot table beside the history), a worker that lingers to fill bigger ledger batches when it is CPU-bound, and the Queue’s call deadlines on a wheel of the Queue’s clock.';
