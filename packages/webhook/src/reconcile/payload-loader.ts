import type { JsonValue } from '@queueport/core';

/** What the application's payload loader returns for an event id (the ledger never stores payloads). */
export interface LoadedPayload {
  type: string;
  payload: JsonValue;
  /** The business transition's time, kept on the republished envelope; the republish time otherwise. */
  occurred_at?: string;
}

/** Loads an event's payload from the application's own store. `undefined`: the application has no such event. */
export type PayloadLoader = (eventId: string) => Promise<LoadedPayload | undefined>;
