import { createHash } from 'node:crypto';
import { QueueError } from '../errors';

export interface ProviderKeyRules {
  /** Longest key the provider takes, in characters (code points). At least 34. */
  maxLength: number;
  /** Matches one character the provider allows in a key, e.g. `/[\x21-\x7e]/` for SQS. */
  allowed: RegExp;
  /** Marks escaped bytes; must itself be allowed. Default `_`. */
  escape?: string;
  /** Keys the provider refuses although every character is allowed (BullMQ: integer strings). */
  refuse?: (key: string) => boolean;
}

const HEX_AND_MARKER = '0123456789abcdefz';
const MIN_HASH_HEX = 32;

/**
 * A provider-safe dedupe key or job id for a queueport key (an event id, or a bridge hop's
 * key), collision-free: distinct inputs never share an output.
 *
 * Readable where it can be: allowed characters pass through and every other one becomes
 * `marker` plus the hex of its UTF-8 bytes (the marker character itself included), which
 * decodes back uniquely. Where that is too long, or refused, the key is `marker` + `z` + the
 * hex SHA-256 of the input (as much of it as fits, at least 128 bits): no escaped form starts
 * with `marker` followed by `z`, so the two forms never meet.
 */
export function deriveProviderKey(key: string, rules: ProviderKeyRules): string {
  if (typeof key !== 'string' || key === '') {
    throw new QueueError('INVALID_ARGUMENT', 'a provider key is derived from a non-empty string', {
      details: { field: 'key' },
    });
  }
  if (rules === null || typeof rules !== 'object' || !(rules.allowed instanceof RegExp)) {
    throw new QueueError('INVALID_ARGUMENT', 'provider key rules need an `allowed` RegExp', {
      details: { field: 'rules' },
    });
  }
  if (rules.refuse !== undefined && typeof rules.refuse !== 'function') {
    throw new QueueError('INVALID_ARGUMENT', 'provider key rules: refuse must be a function', {
      details: { field: 'refuse' },
    });
  }
  if (rules.escape !== undefined && typeof rules.escape !== 'string') {
    throw new QueueError('INVALID_ARGUMENT', 'provider key rules: escape must be one character', {
      details: { field: 'escape' },
    });
  }
  const marker = rules.escape ?? '_';
  checkRules(rules, marker);
  const escaped = escapeKey(key, rules.allowed, marker, false);
  const readable = rules.refuse?.(escaped) ? escapeKey(key, rules.allowed, marker, true) : escaped;
  if (codePointLength(readable) <= rules.maxLength && !rules.refuse?.(readable)) return readable;
  const hex = createHash('sha256').update(wtf8(key)).digest('hex');
  const hashed = `${marker}z${hex}`.slice(0, rules.maxLength);
  if (rules.refuse?.(hashed)) {
    throw new QueueError('INVALID_ARGUMENT', 'provider key rules refuse even the hashed form of a key');
  }
  return hashed;
}

function escapeKey(key: string, allowed: RegExp, marker: string, escapeFirst: boolean): string {
  let out = '';
  let first = true;
  for (const char of key) {
    if (char !== marker && allowed.test(char) && !(escapeFirst && first)) out += char;
    else for (const byte of wtf8(char)) out += marker + byte.toString(16).padStart(2, '0');
    first = false;
  }
  return out;
}

function checkRules(rules: ProviderKeyRules, marker: string): void {
  const problems: string[] = [];
  if (!(Number.isInteger(rules.maxLength) && rules.maxLength >= MIN_HASH_HEX + 2)) {
    problems.push(`maxLength must be an integer >= ${MIN_HASH_HEX + 2}`);
  }
  if (rules.allowed.global || rules.allowed.sticky)
    problems.push('allowed must not be a global or sticky RegExp');
  if (codePointLength(marker) !== 1) problems.push('escape must be one character');
  for (const char of marker + HEX_AND_MARKER) {
    if (!rules.allowed.test(char)) problems.push(`allowed must accept ${JSON.stringify(char)}`);
  }
  if (problems.length > 0) {
    throw new QueueError('INVALID_ARGUMENT', `invalid provider key rules: ${problems.join('; ')}`);
  }
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/**
 * UTF-8, except that a lone surrogate (which an event id may hold) gets its own three bytes
 * (WTF-8) instead of U+FFFD's: otherwise distinct ids would share a key.
 */
function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff)
      bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else bytes.push(...Buffer.from(char, 'utf8'));
  }
  return Buffer.from(bytes);
}
