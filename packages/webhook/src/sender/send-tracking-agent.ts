import { Agent, type Dispatcher } from 'undici';

/**
 * An undici Agent that says whether a request was written to a connection. A failure before
 * that (DNS, a refused connect, a connect timeout) left the receiver untouched, while a failure
 * after it (a timeout waiting for the answer, a reset, an answer cut off before its status) may
 * follow a request the receiver acted on: the two must not be recorded alike.
 *
 * undici calls a dispatch handler's `onRequestSent` once the request line, headers and body are
 * written to the socket. `agent.request` makes that handler and hands it to `dispatch` with the
 * options it was given, so `dispatch` finds the caller's callback by those options and adds the
 * hook to the handler itself (a wrapper would split the handler's own state between two objects).
 */
export class SendTrackingAgent extends Agent {
  readonly #onSent = new WeakMap<object, () => void>();

  /** `request(options)`, calling `onSent` once the whole request has been written. */
  requestTracked(options: Dispatcher.RequestOptions, onSent: () => void): Promise<Dispatcher.ResponseData> {
    this.#onSent.set(options, onSent);
    return this.request(options);
  }

  override dispatch(options: Agent.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const onSent = this.#onSent.get(options);
    if (onSent) {
      this.#onSent.delete(options);
      const legacy = handler as Dispatcher.DispatchHandler & { onRequestSent?: () => void };
      const previous = legacy.onRequestSent;
      legacy.onRequestSent = () => {
        onSent();
        return previous?.call(legacy);
      };
    }
    return super.dispatch(options, handler);
  }
}
