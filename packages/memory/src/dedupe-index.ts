import type { DedupeCapability } from '@queueport/core';

/**
 * Remembers event ids for as long as the declared dedupe capability says a repeat is absorbed,
 * and not a moment longer: its size follows the traffic of the last window (or the messages
 * still held), never the number of ids ever seen.
 */
export class DedupeIndex {
  readonly #mode: DedupeCapability;
  /**
   * In window mode, kept in expiry order: an id is re-inserted at the end whenever it is
   * remembered again, and with one window length for all, later insertions end later. So the
   * expired entries are always at the front, and a sweep stops at the first live one.
   */
  readonly #seen = new Map<string, { messageId: string; until: number }>();

  constructor(mode: DedupeCapability) {
    this.#mode = mode;
  }

  /** Entries held now; for tests that prove the index does not grow with history. */
  get size(): number {
    return this.#seen.size;
  }

  /** The id of the message that absorbs a publish of `eventId` now, if any. */
  holder(eventId: string, now: number, isRetained: (messageId: string) => boolean): string | undefined {
    const entry = this.#seen.get(eventId);
    if (!entry) return undefined;
    const live = this.#mode.kind === 'window' ? entry.until > now : isRetained(entry.messageId);
    if (!live) this.#seen.delete(eventId);
    return live ? entry.messageId : undefined;
  }

  remember(eventId: string, messageId: string, now: number): void {
    if (this.#mode.kind === 'none') return;
    this.sweep(now);
    const until =
      this.#mode.kind === 'window' ? now + this.#mode.windowSeconds * 1000 : Number.POSITIVE_INFINITY;
    this.#seen.delete(eventId);
    this.#seen.set(eventId, { messageId, until });
  }

  /** Drops the window entries that have ended; amortised O(1) per remembered id. */
  sweep(now: number): void {
    if (this.#mode.kind !== 'window') return;
    for (const [eventId, entry] of this.#seen) {
      if (entry.until > now) return;
      this.#seen.delete(eventId);
    }
  }

  /** While-retained ids are forgotten when their message leaves the queue (acked, expired, buried). */
  forget(eventId: string, messageId: string): void {
    if (this.#mode.kind !== 'while-retained') return;
    if (this.#seen.get(eventId)?.messageId === messageId) this.#seen.delete(eventId);
  }
}
