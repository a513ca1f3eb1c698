import { deriveProviderKey, type ProviderKeyRules } from '@queueport/core/driver';

/**
 * BullMQ refuses custom job ids that are integer strings (they would collide with its own
 * counter) or contain `:` (its key separator). Everything else printable passes through, so a
 * job id reads as the event id it came from wherever it can.
 */
export const JOB_ID_RULES: ProviderKeyRules = {
  maxLength: 200,
  allowed: /[!-9;-~]/,
  refuse: (key) => `${Number.parseInt(key, 10)}` === key,
};

/** The job id (and the dedupe id) of a queueport key: an event id, or a bridge hop's key. */
export function jobIdFor(dedupeKey: string): string {
  return deriveProviderKey(dedupeKey, JOB_ID_RULES);
}
