import { type AnyDelivery, type Clock, isQueueError } from '@queueport/core';
import type { DestinationStateStore, Ledger, ParkRequest } from '@queueport/ledger';
import type { DestinationRegistry } from '../../destinations';
import type { DeliveryOutcome, Destination } from '../../sender-types';
import { attemptOf } from '../attempt-record';
import { ConcurrencyGate } from './concurrency-gate';
import { FailureTracker } from './failure-tracker';
import { RateLimiter } from './rate-limiter';
import { DestinationStateCache } from './state-cache';

export const DEFAULT_DESTINATION_REFRESH_MS = 1_000;
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;

export interface DestinationDisabledEvent {
  destinationId: string;
  /** Why, for people: `http 410…`, `5 consecutive failed sends…`. Never a URL or a secret. */
  reason: string;
  /** Epoch ms, as the ledger recorded it. */
  at: number;
}

export interface DestinationPolicyOptions {
  /** Undefined: no durable state, so nothing is parked (a ledger of your own without one). */
  store: DestinationStateStore | undefined;
  ledger: Ledger;
  registry: DestinationRegistry | undefined;
  clock: Clock;
  refreshMs: number;
  rateLimitWaitMs: number;
  onDisabled: (event: DestinationDisabledEvent) => void;
}

/** May the send go now? If not, release the message for `delayMs`; nothing was claimed. */
export type Admission = { admitted: true; done: () => void } | { admitted: false; delayMs: number };

/**
 * What became of an event the policy took over: `parked` (ack it), `lease-lost` (the ledger
 * lease was lost before the park: release it), `failed` (it could not be parked and was failed
 * in the ledger instead: give the message up).
 */
export type Taken =
  | { kind: 'parked' }
  | { kind: 'lease-lost'; error: unknown }
  | { kind: 'failed'; reason: string };

export interface ClaimedEvent {
  delivery: AnyDelivery;
  destination: Destination;
  owner: string;
}

const NOTHING_HELD = () => {};

/**
 * The per-destination rules of one worker: concurrency and rate limits before the claim (so a
 * held-back send costs no attempt), and after it the durable disabled state: an event for a
 * disabled destination is parked in the ledger, not sent and not failed, and a destination whose
 * sends keep failing past its `disableAfter` bound (or that answered 410) is disabled.
 */
export class DestinationPolicy {
  readonly #options: DestinationPolicyOptions;
  readonly #cache: DestinationStateCache | undefined;
  readonly #failures = new FailureTracker();
  readonly #gates = new Map<string, ConcurrencyGate>();
  readonly #limiters = new Map<string, RateLimiter>();

  constructor(options: DestinationPolicyOptions) {
    this.#options = options;
    this.#cache =
      options.store &&
      new DestinationStateCache(options.store, options.clock, options.refreshMs, (disabled) =>
        this.#mirrorEnabled(disabled),
      );
  }

  /** Whether events are parked (there is durable state) rather than failed when a destination is off. */
  get parks(): boolean {
    return this.#cache !== undefined;
  }

  /** Without durable state, the registry's disabled set is all there is: such events fail, as before. */
  disabledWithoutStore(destination: Destination): boolean {
    return !this.#cache && this.#options.registry?.isDisabled(destination.id) === true;
  }

  /**
   * Before the claim: the state is refreshed when due, then a slot (concurrency) and a token
   * (rate limit) are taken. Concurrency waits for a slot; a token further off than
   * `rateLimitWaitMs` is not waited for: the message is released until then, its turn reserved.
   */
  async admit(
    destination: Destination | undefined,
    eventId: string,
    signal?: AbortSignal,
  ): Promise<Admission> {
    await this.#cache?.refresh();
    if (!destination || this.#cache?.isDisabled(destination.id))
      return { admitted: true, done: NOTHING_HELD };
    const gate = this.#gateOf(destination);
    if (gate) await gate.acquire(signal);
    const done = gate ? once(() => gate.release()) : NOTHING_HELD;
    const limiter = this.#limiterOf(destination);
    if (!limiter) return { admitted: true, done };
    const { clock, rateLimitWaitMs } = this.#options;
    const now = clock.now();
    const { waitMs, dueAt } = limiter.take(eventId, now);
    if (waitMs > rateLimitWaitMs) {
      limiter.reserve(eventId, dueAt, now);
      done();
      return { admitted: false, delayMs: waitMs };
    }
    if (waitMs > 0) {
      try {
        await clock.sleep(waitMs, signal);
      } catch (error) {
        done();
        throw error;
      }
    }
    return { admitted: true, done };
  }

  /** After the claim: parks the event if its destination is disabled; undefined to go on and send. */
  async parkIfDisabled(event: ClaimedEvent): Promise<Taken | undefined> {
    if (!this.#cache?.isDisabled(event.destination.id)) return undefined;
    return this.#park(event, {});
  }

  /**
   * After the send: counts the outcome against `disableAfter`, disables the destination when it
   * crosses the bound or answered 410, and parks a failed event whose destination is now
   * disabled (this one or one before it), its attempt counted. A terminal refusal stays terminal.
   */
  async parkAfterSend(event: ClaimedEvent, outcome: DeliveryOutcome): Promise<Taken | undefined> {
    if (!this.#cache) return undefined;
    const { destination } = event;
    const now = this.#options.clock.now();
    const tripped =
      outcome.kind === 'disable'
        ? outcome.reason
        : this.#failures.record(destination.id, destination.disableAfter, outcome, now);
    if (tripped !== undefined) await this.#disable(destination, tripped);
    if (outcome.kind !== 'retry' && outcome.kind !== 'disable') return undefined;
    if (!this.#cache.isDisabled(destination.id)) return undefined;
    return this.#park(event, {
      attemptMade: true,
      outcome: outcome.reason,
      ...(outcome.kind === 'retry' && outcome.ambiguous ? { ambiguous: true } : {}),
      // The park ends this claim as a settle would, so it records the send in the attempt log.
      attempt: attemptOf(outcome, destination, now),
    });
  }

  async #park(
    { delivery, destination, owner }: ClaimedEvent,
    send: Pick<ParkRequest, 'attemptMade' | 'outcome' | 'ambiguous' | 'attempt'>,
  ): Promise<Taken | undefined> {
    const { store, ledger } = this.#options;
    const eventId = delivery.envelope.event_id;
    try {
      const result = await store!.park({
        eventId,
        owner,
        destinationId: destination.id,
        body: delivery.body,
        ...send,
      });
      if (result.status === 'parked') return { kind: 'parked' };
      // Enabled since this worker last read the state: send it.
      this.#cache!.mark(destination.id, false);
      return undefined;
    } catch (error) {
      if (isQueueError(error, 'LEASE_LOST')) return { kind: 'lease-lost', error };
      if (!isQueueError(error, 'INVALID_ARGUMENT') || error.details.field !== 'body') throw error;
      // Past what the ledger keeps: failed, and given up to the dead letters where the provider
      // has them (a redrive brings it back once the destination is enabled).
      const reason = `destination ${destination.id} is disabled and the event is too large to park`;
      // The send, if one was made, is still this claim's attempt: the fail records it instead.
      const { ambiguous, attempt } = send;
      await ledger.fail({
        eventId,
        owner,
        outcome: reason,
        ...(ambiguous ? { ambiguous } : {}),
        ...(attempt ? { attempt } : {}),
      });
      return { kind: 'failed', reason };
    }
  }

  async #disable(destination: Destination, reason: string): Promise<void> {
    const { store, registry, clock, onDisabled } = this.#options;
    const change = await store!.disable({ destinationId: destination.id, reason });
    this.#cache!.mark(destination.id, true);
    if (!change.changed) return;
    onDisabled({ destinationId: destination.id, reason, at: change.state?.disabledAt ?? clock.now() });
    registry?.disable(destination.id, reason);
  }

  /** The registry follows the ledger: a destination enabled there is enabled in the registry too. */
  #mirrorEnabled(disabled: ReadonlySet<string>): void {
    const { registry } = this.#options;
    if (!registry) return;
    for (const destination of registry.list()) {
      if (registry.isDisabled(destination.id) && !disabled.has(destination.id))
        registry.enable(destination.id);
    }
  }

  #gateOf(destination: Destination): ConcurrencyGate | undefined {
    const limit = destination.concurrency;
    const gate = this.#gates.get(destination.id);
    if (limit === undefined) {
      // Sends still holding a slot release it through their own reference to the gate.
      if (gate && gate.inFlight === 0) this.#gates.delete(destination.id);
      return undefined;
    }
    if (!gate) {
      const made = new ConcurrencyGate(limit);
      this.#gates.set(destination.id, made);
      return made;
    }
    gate.setLimit(limit);
    return gate;
  }

  #limiterOf(destination: Destination): RateLimiter | undefined {
    const limit = destination.rateLimit;
    if (!limit) {
      this.#limiters.delete(destination.id);
      return undefined;
    }
    const limiter = this.#limiters.get(destination.id);
    if (limiter?.matches(limit)) return limiter;
    const made = new RateLimiter(limit);
    this.#limiters.set(destination.id, made);
    return made;
  }
}

function once(run: () => void): () => void {
  let ran = false;
  return () => {
    if (ran) return;
    ran = true;
    run();
  };
}
