import { deriveProviderKey, type ProviderKeyRules } from '@queueport/core/driver';

/**
 * BullMQ refuses custom job ids that are integer strings (they would collide with its own
 * counter) or contain `:` (its key separator). Everything else printable passes through, so a
 * job id reads as the event id it came from wherever it can.
 */
export const JOB_ID_RULES: ProviderKeyRules = {
  maxLength: 200,
  allowed: /[!-9;-~]/,
  // `%` escapes, as in URLs, so `_`, common in event ids, reads as itself.
  escape: '%',
  // BullMQ reads an add's answer below zero as an error code, so nothing may look negative.
  refuse: (key) => `${Number.parseInt(key, 10)}` === key || Number(key) < 0,
};

/** The dedupe id of a queueport key (an event id, or a bridge hop's key); a job id is it plus a per-publish suffix. */
export function jobIdFor(dedupeKey: string): string {
  // What the key helper would leave as it is anyway (every character allowed, no escape
  // character, nothing refused), without its walk over each character: it runs once per publish.
  if (
    PASSES_AS_IS.test(dedupeKey) &&
    dedupeKey.length <= JOB_ID_RULES.maxLength &&
    !JOB_ID_RULES.refuse!(dedupeKey)
  ) {
    return dedupeKey;
  }
  return deriveProviderKey(dedupeKey, JOB_ID_RULES);
}

/** Printable ASCII but `:` (BullMQ's separator) and `%` (the escape character). */
const PASSES_AS_IS = /^[!-$&-9;-~]+$/;
