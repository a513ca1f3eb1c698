/** A message as the memory driver keeps it. */
export interface StoredMessage {
  seq: number;
  messageId: string;
  eventId: string;
  /** The key its publish was deduplicated by; undefined for redriven dead letters. */
  dedupeKey: string | undefined;
  body: string;
  attributes: Record<string, string>;
  groupId: string | undefined;
  enqueuedAt: number;
  /** When the message may next be delivered: after its delay, or when its lease runs out. */
  visibleAt: number;
  receiveCount: number;
  /** When the latest delivery was taken: its extensions end by this plus `maxHoldSeconds`. */
  takenAt: number;
  /** The receipt of the latest delivery; cleared by release. */
  receipt: string | undefined;
}

export interface DeadLetter {
  messageId: string;
  eventId: string;
  body: string;
  attributes: Record<string, string>;
  groupId: string | undefined;
  receiveCount: number;
  reason: string;
  at: number;
}
