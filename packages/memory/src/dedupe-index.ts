import type { DedupeCapability } from '@queueport/core';

/** Remembers event ids for as long as the declared dedupe capability says a repeat is absorbed. */
export class DedupeIndex {
  readonly #mode: DedupeCapability;
  readonly #seen = new Map<string, { messageId: string; until: number }>();

  constructor(mode: DedupeCapability) {
    this.#mode = mode;
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
    const until =
      this.#mode.kind === 'window' ? now + this.#mode.windowSeconds * 1000 : Number.POSITIVE_INFINITY;
    this.#seen.set(eventId, { messageId, until });
  }
}
