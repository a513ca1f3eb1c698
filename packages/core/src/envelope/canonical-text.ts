import { MAX_JSON_DEPTH } from './read-json';

/**
 * Whether `text` is, byte for byte, the RFC 8785 canonical JSON of the one value it encodes, and
 * that value is one `JsonReader` accepts (well-formed strings, finite numbers, nesting within 64
 * levels). Then hashing `text` is hashing `canonicalJson(JSON.parse(text))`, with no re-encoding.
 *
 * It is never true for a text that is not: a wrong true would accept a digest the full check
 * refuses. A false only sends the caller to the full check, so one for a canonical text would be
 * allowed, but the property tests hold the scan to exact, so that every body `encodeEnvelope`
 * writes takes the short way. Every rule follows from what canonicalize writes: JSON.stringify's
 * strings and numbers, keys sorted by UTF-16 code units (a key with an escape is compared
 * decoded), no whitespace.
 */
export function isCanonicalJsonText(text: string): boolean {
  const scanner = new Scanner(text);
  return scanner.value(0) && scanner.at === text.length;
}

/** Where the value of an envelope's `payload` member lies in its body: `body.slice(payloadStart, payloadEnd)`. */
export interface PayloadSpan {
  payloadStart: number;
  payloadEnd: number;
}

/**
 * For a body that is canonical text (as `isCanonicalJsonText` decides it) of an object with a
 * `payload` member, where that member's value is; undefined for any other body. The value's text
 * is then the canonical JSON of the payload JSON.parse gives (the payload's digest is its hash),
 * and every field passes what `readFields` checks on the envelope: its values, not its keys, each
 * read as a root of its own, which is why the object holding them sits one level above the root.
 */
export function scanCanonicalEnvelope(text: string): PayloadSpan | undefined {
  if (text.charCodeAt(0) !== 0x7b) return undefined;
  const scanner = new Scanner(text);
  if (!scanner.value(ENVELOPE_DEPTH) || scanner.at !== text.length || scanner.payloadStart < 0) {
    return undefined;
  }
  return { payloadStart: scanner.payloadStart, payloadEnd: scanner.payloadEnd };
}

/** Only the envelope object is scanned at this depth, so only its members can be the payload. */
const ENVELOPE_DEPTH = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Significant digits every decimal of up to this many survives a trip through a double (DBL_DIG). */
const EXACT_DIGITS = 15;

class Scanner {
  at = 0;
  /** The envelope's `payload` member's value, once scanned; -1 until then. */
  payloadStart = -1;
  payloadEnd = -1;
  readonly #text: string;
  /** Where the last string's content began and ended (quotes excluded), and whether it had an escape. */
  #start = 0;
  #end = 0;
  #escaped = false;

  constructor(text: string) {
    this.#text = text;
  }

  value(depth: number): boolean {
    // JsonReader refuses any value, a container or not, below its 64th level.
    if (depth > MAX_JSON_DEPTH) return false;
    const text = this.#text;
    const c = text.charCodeAt(this.at);
    if (c === QUOTE) return this.#string();
    if (c === 0x7b) return this.#object(depth);
    if (c === 0x5b) return this.#array(depth);
    if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) return this.#number();
    return this.#word(c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : undefined);
  }

  #object(depth: number): boolean {
    const text = this.#text;
    this.at++;
    if (text.charCodeAt(this.at) === 0x7d) {
      this.at++;
      return true;
    }
    // The key read last, which the next one must sort after.
    let keyStart = -1;
    let keyEnd = 0;
    let keyEscaped = false;
    for (;;) {
      if (text.charCodeAt(this.at) !== QUOTE || !this.#string()) return false;
      // Strictly increasing: canonicalize sorts the keys, and a repeated key (which JSON.parse
      // collapses to its last value) is never canonical.
      if (keyStart >= 0 && !this.#follows(keyStart, keyEnd, keyEscaped)) return false;
      keyStart = this.#start;
      keyEnd = this.#end;
      keyEscaped = this.#escaped;
      if (text.charCodeAt(this.at) !== COLON) return false;
      this.at++;
      const valueStart = this.at;
      if (!this.value(depth + 1)) return false;
      if (depth === ENVELOPE_DEPTH && this.#decoded(keyStart, keyEnd, keyEscaped) === 'payload') {
        this.payloadStart = valueStart;
        this.payloadEnd = this.at;
      }
      const next = text.charCodeAt(this.at++);
      if (next === 0x7d) return true;
      if (next !== COMMA) return false;
    }
  }

  /**
   * Whether the key just scanned sorts after the one at `previousStart`, as `<` on the decoded
   * keys says. Without escapes, the text's code units are the key's, so they are compared where
   * they stand: no key is copied out of a body that has thousands of them.
   */
  #follows(previousStart: number, previousEnd: number, previousEscaped: boolean): boolean {
    if (previousEscaped || this.#escaped) {
      return (
        this.#decoded(previousStart, previousEnd, previousEscaped) <
        this.#decoded(this.#start, this.#end, this.#escaped)
      );
    }
    const text = this.#text;
    const start = this.#start;
    const previousLength = previousEnd - previousStart;
    const length = this.#end - start;
    const common = Math.min(previousLength, length);
    for (let i = 0; i < common; i++) {
      const a = text.charCodeAt(previousStart + i);
      const b = text.charCodeAt(start + i);
      if (a !== b) return a < b;
    }
    return previousLength < length;
  }

  #decoded(start: number, end: number, escaped: boolean): string {
    const text = this.#text;
    return escaped ? (JSON.parse(text.slice(start - 1, end + 1)) as string) : text.slice(start, end);
  }

  #array(depth: number): boolean {
    const text = this.#text;
    this.at++;
    if (text.charCodeAt(this.at) === 0x5d) {
      this.at++;
      return true;
    }
    for (;;) {
      if (!this.value(depth + 1)) return false;
      const next = text.charCodeAt(this.at++);
      if (next === 0x5d) return true;
      if (next !== COMMA) return false;
    }
  }

  /** A string exactly as JSON.stringify writes it, with no lone surrogate. */
  #string(): boolean {
    const text = this.#text;
    let i = this.at + 1;
    this.#start = i;
    this.#escaped = false;
    for (;;) {
      const c = text.charCodeAt(i);
      // Most characters are none of the few that need a second look: one test lets them by.
      if (c > BACKSLASH ? c < 0xd800 : c >= 0x20 && c !== QUOTE && c !== BACKSLASH) {
        i++;
        continue;
      }
      if (c === QUOTE) {
        this.#end = i;
        this.at = i + 1;
        return true;
      }
      if (c === BACKSLASH) {
        this.#escaped = true;
        const e = text.charCodeAt(i + 1);
        // \" \\ \b \f \n \r \t: JSON.stringify's short escapes.
        if (
          e === QUOTE ||
          e === BACKSLASH ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        ) {
          i += 2;
          continue;
        }
        // \u00XX in lower-case hex, only for a control character without a short escape.
        if (e !== 0x75 || !isControlEscape(text, i + 2)) return false;
        i += 6;
        continue;
      }
      // A control character, or NaN past the end of the text: the string never closes.
      if (!(c >= 0xd800)) return false;
      if (c <= 0xdbff) {
        const low = text.charCodeAt(i + 1);
        if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
        i += 2;
        continue;
      }
      // A lone low surrogate; anything from U+E000 up is an ordinary character.
      if (c <= 0xdfff) return false;
      i++;
    }
  }

  /**
   * A number exactly as JSON.stringify writes it: String(Number(token)) gives the token back. That
   * costs a conversion each way, so the forms every payload is full of are decided from the digits:
   *
   * - an integer of at most 15 digits with no leading zero ("0" itself, but not "-0", which is "0");
   * - a decimal `int.frac` of at most 15 significant digits, the fraction not ending in 0, and `int`
   *   either with no leading zero or "0" with at most five zeros after the point (from 1e-7 down,
   *   ECMAScript writes an exponent).
   *
   * Two decimals of at most 15 significant digits never round to the same double (DBL_DIG is 15),
   * so such a token is the shortest that gives its double back, which is what Number::toString
   * writes, and for magnitudes from 1e-6 to below 1e21 it writes it without an exponent. Anything
   * else (an exponent, more digits, a sign or point out of place) is converted and compared.
   */
  #number(): boolean {
    const text = this.#text;
    const start = this.at;
    let i = start;
    if (text.charCodeAt(i) === MINUS) i++;
    const intStart = i;
    while (isDigit(text.charCodeAt(i))) i++;
    const intEnd = i;
    let fractionEnd = intEnd;
    if (text.charCodeAt(i) === DOT) {
      i++;
      while (isDigit(text.charCodeAt(i))) i++;
      fractionEnd = i;
    }
    let simple = true;
    for (;;) {
      const c = text.charCodeAt(i);
      if (isDigit(c) || c === DOT || c === 0x65 || c === 0x45 || c === PLUS || c === MINUS) {
        simple = false;
        i++;
      } else break;
    }
    this.at = i;
    const intDigits = intEnd - intStart;
    if (simple && intDigits > 0) {
      const lead = text.charCodeAt(intStart);
      if (fractionEnd === intEnd) {
        if (intDigits <= EXACT_DIGITS && lead !== DIGIT_0) return true;
        if (intDigits === 1 && lead === DIGIT_0) return intStart === start;
      } else if (fractionEnd > intEnd + 1 && text.charCodeAt(fractionEnd - 1) !== DIGIT_0) {
        const fractionStart = intEnd + 1;
        if (lead !== DIGIT_0) {
          if (intDigits + (fractionEnd - fractionStart) <= EXACT_DIGITS) return true;
        } else if (intDigits === 1) {
          let zeros = 0;
          while (text.charCodeAt(fractionStart + zeros) === DIGIT_0) zeros++;
          if (zeros <= 5 && fractionEnd - fractionStart - zeros <= EXACT_DIGITS) return true;
        }
      }
    }
    const token = text.slice(start, i);
    return String(Number(token)) === token;
  }

  #word(word: string | undefined): boolean {
    if (word === undefined || !this.#text.startsWith(word, this.at)) return false;
    this.at += word.length;
    return true;
  }
}

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

/** `00XX` at `at`: lower-case hex of a control character that has no short escape. */
function isControlEscape(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== DIGIT_0 || text.charCodeAt(at + 1) !== DIGIT_0) return false;
  const high = text.charCodeAt(at + 2);
  const low = text.charCodeAt(at + 3);
  if (high !== DIGIT_0 && high !== DIGIT_0 + 1) return false;
  const lowValue =
    low >= DIGIT_0 && low <= DIGIT_9 ? low - DIGIT_0 : low >= 0x61 && low <= 0x66 ? low - 0x61 + 10 : -1;
  if (lowValue < 0) return false;
  const code = (high - DIGIT_0) * 16 + lowValue;
  return code !== 0x08 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d;
}
