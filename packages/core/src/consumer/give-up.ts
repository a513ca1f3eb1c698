import type { Delivery } from '../queue/delivery';
import { fitDelay } from '../queue/message-checks';
import type { Queue } from '../queue/queue';

/** Where the application keeps what it gave up on, when the provider has no dead letters to move to. */
export type DeadLetterSink = (delivery: Delivery, reason: string) => Promise<void>;

export type GiveUpResult =
  /** Moved to the provider's dead letters. */
  | 'dead-lettered'
  /** Handed to the sink, then acked. */
  | 'sunk'
  /** Neither is possible: released with the longest delay, and the caller must report it. */
  | 'kept';

/**
 * The one give-up rule, for the consumer and the webhook worker alike: move the message to the
 * provider's dead letters where it can; else hand it to the application's sink (the worker's
 * sink is its ledger, which already holds the failure) and ack; else keep it, released for
 * `keepDelayMs`, so that nothing is ever dropped silently.
 */
export async function giveUpDelivery(
  queue: Queue,
  delivery: Delivery,
  reason: string,
  options: { sink?: DeadLetterSink | undefined; keepDelayMs: number },
): Promise<GiveUpResult> {
  if (queue.capabilities.deadLetter.move) {
    await delivery.deadLetter(reason);
    return 'dead-lettered';
  }
  if (options.sink) {
    await options.sink(delivery, reason);
    await delivery.ack();
    return 'sunk';
  }
  await delivery.release({ delaySeconds: fitDelay(options.keepDelayMs / 1000, queue.capabilities) });
  return 'kept';
}
