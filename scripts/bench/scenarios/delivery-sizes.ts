/** Shared by both delivery scenarios, so the pipeline's number means the same in each. */
export const DELIVERY_CONCURRENCY = 16;

export function deliveryEvents(quick: boolean): number {
  return quick ? 300 : 8000;
}

/** What both delivery scenarios run as their subject. */
export const PIPELINE_SUBJECT = `memory queue → DeliveryWorker → SQLite ledger claim → undici POST → ledger commit → ack, concurrency ${DELIVERY_CONCURRENCY}`;
