import type { QueueError } from '../errors';
import type { CappedEvent } from '../queue/capped-option';
import type { QueueHooks } from '../queue/queue';
import { eventNames, type ListenerErrorEvent, type TypedEmitter } from './emitter';

/** The Queue's events: `queue.on(name, listener)`. */
export interface QueueEvents {
  /** A retryable driver failure is about to be retried (the `onRetry` hook is a listener of this). */
  retry: { operation: string; attempt: number; delayMs: number; error: QueueError };
  /**
   * A received body was not a valid envelope, or its payload failed its schema. It never reaches
   * a handler: `deadLetter` says it is being moved to the dead letters, else it comes back when
   * its lease ends. A problem: logged (once) when nothing listens.
   */
  'invalid-message': { messageId: string; receiveCount: number; error: QueueError; deadLetter: boolean };
  /**
   * The delay bridge could not re-send or settle a hop; the hop comes back when its lease ends,
   * so it is repeated, never lost. A problem: logged (once) when nothing listens.
   */
  'bridge-error': { eventId: string; messageId: string; error: QueueError };
  /**
   * The driver answered what it should not have: more messages than a receive asked for (the
   * surplus is given back at once with a release of delay 0) or one receipt twice in an answer
   * (the repeat is dropped). The application got no more than it asked for; the driver has a
   * bug worth reporting. A problem: logged (once) when nothing listens.
   */
  'driver-fault': {
    operation: 'receive';
    fault: 'too-many-messages' | 'duplicate-receipts';
    count: number;
    error: QueueError;
  };
  /**
   * An option that exists only as a provider maximum was asked for past it, and the maximum was
   * used: `waitSeconds` past `longPollMaxSeconds` (including providers that cannot wait, whose
   * maximum is 0), `maxMessages` past `batch.receive`. Informational; nothing was refused.
   */
  capped: CappedEvent;
  /** `close()` began: receives are refused from now on, and consumers drain. */
  closing: { timeoutMs: number | undefined };
  /** Every consumer has stopped and the driver is closed. */
  closed: Record<string, never>;
  /** A listener of another event failed. */
  error: ListenerErrorEvent;
}

export const QUEUE_EVENT_NAMES = eventNames<QueueEvents>({
  retry: true,
  'invalid-message': true,
  'bridge-error': true,
  'driver-fault': true,
  capped: true,
  closing: true,
  closed: true,
  error: true,
});

/**
 * The Queue's `hooks` are listeners of its events, each called with the fields it always had.
 * Like any listener, a hook that throws no longer breaks the receive that called it.
 */
export function listenWithHooks(events: TypedEmitter<QueueEvents>, hooks: QueueHooks | undefined): void {
  if (hooks?.onRetry) events.on('retry', (info) => hooks.onRetry?.(info));
  if (hooks?.onInvalidMessage) {
    events.on('invalid-message', ({ messageId, receiveCount, error }) =>
      hooks.onInvalidMessage?.({ messageId, receiveCount, error }),
    );
  }
  if (hooks?.onBridgeError) events.on('bridge-error', (info) => hooks.onBridgeError?.(info));
}
