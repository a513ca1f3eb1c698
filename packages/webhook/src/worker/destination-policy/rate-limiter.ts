import type { DestinationRateLimit } from '../../sender-types';

/** Reservations kept for released messages, at most; the oldest past their time go first. */
const MAX_RESERVATIONS = 10_000;
/** A reservation whose message has not come back this long after its time is given up. */
const RESERVATION_GRACE_MS = 10 * 60_000;

/**
 * A token bucket per destination, as GCRA: one theoretical arrival time instead of a count, so
 * the wait for the next send is known at once. A send that has to wait longer than the worker
 * waits in process is released until its turn, and its turn is reserved for it: when it comes
 * back it goes without a second wait, so a backlog is spread over the slots to come instead of
 * all coming back at once and being released again.
 */
export class RateLimiter {
  readonly perSecond: number;
  readonly burst: number;
  #theoretical = Number.NEGATIVE_INFINITY;
  readonly #reserved = new Map<string, number>();

  constructor(limit: DestinationRateLimit) {
    this.perSecond = limit.perSecond;
    this.burst = limit.burst ?? Math.max(1, Math.ceil(limit.perSecond));
  }

  matches(limit: DestinationRateLimit): boolean {
    return (
      limit.perSecond === this.perSecond &&
      (limit.burst ?? Math.max(1, Math.ceil(limit.perSecond))) === this.burst
    );
  }

  /** Takes the event's slot (its reserved one, if it has one) and says how long until it is due. */
  take(eventId: string, now: number): { waitMs: number; dueAt: number } {
    const reserved = this.#reserved.get(eventId);
    if (reserved !== undefined) {
      this.#reserved.delete(eventId);
      return { waitMs: Math.max(0, reserved - now), dueAt: reserved };
    }
    const intervalMs = 1000 / this.perSecond;
    const tolerance = (this.burst - 1) * intervalMs;
    const start = Math.max(this.#theoretical, now);
    this.#theoretical = start + intervalMs;
    const dueAt = start - tolerance;
    return { waitMs: Math.max(0, dueAt - now), dueAt };
  }

  /** Keeps a slot taken for a message released until then. */
  reserve(eventId: string, dueAt: number, now: number): void {
    if (this.#reserved.size >= MAX_RESERVATIONS) {
      for (const [id, at] of this.#reserved) if (at + RESERVATION_GRACE_MS < now) this.#reserved.delete(id);
      if (this.#reserved.size >= MAX_RESERVATIONS) return;
    }
    this.#reserved.set(eventId, dueAt);
  }
}
