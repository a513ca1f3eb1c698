import { invalidArgument } from '../errors';

/**
 * How per-event calls are grouped into one commit. Concurrent calls made within one turn of the
 * event loop, and those that arrive while `maxInFlight` batches are already being written, go out
 * together, up to `maxEntries` a batch. `false` writes each call on its own, as before group
 * commit existed.
 */
export type GroupCommitOptions = { maxEntries?: number; maxInFlight?: number } | false;

export const DEFAULT_GROUP_MAX_ENTRIES = 64;
const MAX_GROUP_ENTRIES = 1000;
const MAX_IN_FLIGHT = 64;

export interface GroupCommitSettings {
  maxEntries: number;
  maxInFlight: number;
}

/** The settings an option asks for; `undefined` for `false` (no grouping). Refuses nonsense early. */
export function groupCommitSettings(
  options: GroupCommitOptions | undefined,
  defaults: GroupCommitSettings,
): GroupCommitSettings | undefined {
  if (options === false) return undefined;
  if (options === undefined) return defaults;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArgument('groupCommit must be false or { maxEntries?, maxInFlight? }', {
      field: 'groupCommit',
    });
  }
  const maxEntries = options.maxEntries ?? defaults.maxEntries;
  const maxInFlight = options.maxInFlight ?? defaults.maxInFlight;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_GROUP_ENTRIES) {
    throw invalidArgument(`groupCommit.maxEntries must be a whole number from 1 to ${MAX_GROUP_ENTRIES}`, {
      field: 'groupCommit.maxEntries',
    });
  }
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
    throw invalidArgument(`groupCommit.maxInFlight must be a whole number from 1 to ${MAX_IN_FLIGHT}`, {
      field: 'groupCommit.maxInFlight',
    });
  }
  return { maxEntries, maxInFlight };
}
