import type { Capabilities } from '../capabilities';
import type { AnyDelivery, AnyQueue } from '../queue/any-queue';
import type { Delivery } from '../queue/delivery';
import { fitDelay } from '../queue/message-checks';

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
  queue: AnyQueue,
  delivery: AnyDelivery,
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
  await delivery.release({ delaySeconds: keepDelaySeconds(queue.capabilities, options.keepDelayMs) });
  return 'kept';
}

/** The delay a kept delivery is released for: `keepDelayMs`, fitted to what the queue can delay. */
export function keepDelaySeconds(caps: Capabilities, keepDelayMs: number): number {
  return fitDelay(keepDelayMs / 1000, caps);
}
