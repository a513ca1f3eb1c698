import type { OutgoingMessage, PublishOutcome, SettleOutcome } from '../driver';

/** One received message the bridge moves on: `hop` is published, then `delivery` settled. */
export interface HopReplacement<D> {
  delivery: D;
  hop: OutgoingMessage;
}

/** The Queue's calls the move is made of, each with the Queue's checks, chunking and retries. */
export interface HopCalls<D> {
  publish(hops: readonly OutgoingMessage[]): Promise<PublishOutcome[]>;
  ack(deliveries: readonly D[]): Promise<SettleOutcome[]>;
  /** Whether each delivery still holds its lease, without settling it. */
  confirmLeases(deliveries: readonly D[]): Promise<SettleOutcome[]>;
}

/**
 * The bridge's move: publish each hop first, and settle the message it replaces only once that
 * worked, so a crash between the two repeats a hop but never loses one. A release
 * (`confirmLease`) first makes sure its lease still holds, so a stale release cannot leave a
 * second copy behind. One outcome per entry, in order.
 */
export async function replaceHops<D>(
  entries: ReadonlyArray<HopReplacement<D>>,
  calls: HopCalls<D>,
  { confirmLease = false }: { confirmLease?: boolean } = {},
): Promise<SettleOutcome[]> {
  const results = new Array<SettleOutcome>(entries.length);
  let live = entries.map((_, index) => index);
  if (confirmLease) {
    const confirmed = await calls.confirmLeases(entries.map((e) => e.delivery));
    live = live.filter((index) => {
      const outcome = confirmed[index]!;
      if (!outcome.ok) results[index] = outcome;
      return outcome.ok;
    });
  }
  const published = await calls.publish(live.map((i) => entries[i]!.hop));
  const sent: number[] = [];
  published.forEach((outcome, position) => {
    const index = live[position]!;
    if (outcome.ok) sent.push(index);
    else results[index] = outcome;
  });
  const acked = await calls.ack(sent.map((i) => entries[i]!.delivery));
  sent.forEach((index, position) => {
    results[index] = acked[position]!;
  });
  return results;
}
