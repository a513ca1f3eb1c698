import { QueueError } from '@queueport/core';
import { compileOptionValidator, withoutUndefined } from '../sender/option-validator';
import type { DeliveryOutcome, Destination } from '../sender-types';
import { checkedDestination } from './validate-destination';

export interface DisabledNotice {
  destination: Destination;
  reason: string;
  /** Unix ms. */
  at: number;
}

export interface DestinationRegistryOptions {
  /**
   * Told once each time a destination goes from enabled to disabled, e.g. to email its owner:
   * users asked for automatic disabling *with a notice*. A throwing callback is reported via
   * onError and does not undo the disabling.
   */
  onDisabled?: (notice: DisabledNotice) => void | Promise<void>;
  onError?: (error: unknown) => void;
  now?: () => number;
  /**
   * The sender's `requestTimeoutMs`: `register` refuses a destination whose `timeoutMs` is
   * longer (the sender would refuse each of its sends otherwise).
   */
  requestTimeoutMs?: number;
}

const checkOptions = compileOptionValidator(
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      onDisabled: { isFunction: true },
      onError: { isFunction: true },
      now: { isFunction: true },
      requestTimeoutMs: {
        type: 'integer',
        minimum: 1,
        refusal: 'must be a whole number of milliseconds ≥ 1',
      },
    },
  },
  { subject: 'destination registry options', prepare: withoutUndefined },
);

/**
 * The in-memory set of destinations and which of them are switched off. A 410 disables a
 * destination so one dead endpoint stops consuming attempts; re-enabling is a human decision.
 */
export class DestinationRegistry {
  readonly #destinations = new Map<string, Destination>();
  readonly #disabled = new Map<string, { reason: string; at: number }>();
  readonly #options: DestinationRegistryOptions;

  constructor(options: DestinationRegistryOptions = {}) {
    this.#options = checkOptions(options) as DestinationRegistryOptions;
  }

  /**
   * Adds or replaces a destination (validated first, kept as a frozen copy). Replacing keeps
   * its disabled state.
   */
  register(destination: Destination): void {
    const checked = checkedDestination(destination);
    const { requestTimeoutMs } = this.#options;
    if (
      checked.timeoutMs !== undefined &&
      requestTimeoutMs !== undefined &&
      checked.timeoutMs > requestTimeoutMs
    ) {
      throw new QueueError(
        'INVALID_ARGUMENT',
        `destination ${checked.id}: timeoutMs ${checked.timeoutMs} is longer than the sender's requestTimeoutMs ${requestTimeoutMs}; a destination's timeout can only shorten it, since the worker's ledger lease is sized from the sender's`,
        { details: { destinationId: checked.id, field: 'timeoutMs' } },
      );
    }
    this.#destinations.set(checked.id, checked);
  }

  remove(id: string): boolean {
    this.#disabled.delete(id);
    return this.#destinations.delete(id);
  }

  get(id: string): Destination | undefined {
    return this.#destinations.get(id);
  }

  /** Throws NOT_FOUND for an unknown id: a worker should not guess a URL. */
  require(id: string): Destination {
    const destination = this.#destinations.get(id);
    if (!destination) {
      throw new QueueError('NOT_FOUND', `destination ${id} is not registered`, {
        details: { destinationId: id },
      });
    }
    return destination;
  }

  list(): Destination[] {
    return [...this.#destinations.values()];
  }

  isDisabled(id: string): boolean {
    return this.#disabled.has(id);
  }

  disabledReason(id: string): string | undefined {
    return this.#disabled.get(id)?.reason;
  }

  /** Returns true when this call disabled it (false when it already was, or is unknown). */
  disable(id: string, reason: string): boolean {
    const destination = this.#destinations.get(id);
    if (!destination || this.#disabled.has(id)) return false;
    const at = (this.#options.now ?? Date.now)();
    this.#disabled.set(id, { reason, at });
    this.#notify({ destination, reason, at });
    return true;
  }

  enable(id: string): boolean {
    return this.#disabled.delete(id);
  }

  /** Applies what an outcome says about the destination: a `disable` outcome disables it. */
  recordOutcome(id: string, outcome: DeliveryOutcome): void {
    if (outcome.kind === 'disable') this.disable(id, outcome.reason);
  }

  #notify(notice: DisabledNotice): void {
    const report = (error: unknown) => this.#options.onError?.(error);
    try {
      const result = this.#options.onDisabled?.(notice);
      if (result && typeof result.then === 'function') result.then(undefined, report);
    } catch (error) {
      report(error);
    }
  }
}
