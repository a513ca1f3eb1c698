import { assessSecret, MIN_MASKABLE_SECRET_CHARS } from './secret-assessment';
import { base64Forms, escapedFormsPattern, escapeRegExp, literalForms } from './secret-forms';

/**
 * Provider errors echo requests back (headers, URLs with keys). Anything from outside that
 * reaches an error message passes through here first. These are the forms any credential
 * takes; the prefixes of one provider's keys are that provider's to declare
 * (`registerSecretPatterns`, which `defineAdapter` calls with an adapter's `secretPatterns`).
 * Group 1 is a prefix that stays.
 */
const GENERIC_PATTERNS: readonly RegExp[] = [
  /(bearer\s+)[^\s"',]+/gi,
  /((?:api[_-]?key|secret|token|password|authorization)["']?\s*[:=]\s*["']?)[^\s"',&]+/gi,
];

/** Patterns packages declared, by source and flags, each made global: every match is masked whole. */
const registered = new Map<string, RegExp>();

/**
 * Declares the shapes of credentials a package knows (a provider's key prefix, a signing
 * secret's), so `redactSecrets` masks them everywhere from then on, in every package's errors.
 * Idempotent: the same pattern twice is kept once. A pattern that matches the empty string is
 * refused (it would mask nothing and loop on every text).
 */
export function registerSecretPatterns(patterns: readonly RegExp[]): void {
  for (const pattern of patterns) {
    const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
    const key = `${pattern.source}/${flags}`;
    if (registered.has(key)) continue;
    const compiled = new RegExp(pattern.source, flags.replace('y', ''));
    if (compiled.test('')) {
      throw new TypeError(`registerSecretPatterns: /${pattern.source}/ matches the empty string`);
    }
    compiled.lastIndex = 0;
    registered.set(key, compiled);
  }
}

/** The patterns masked besides the generic forms: what packages registered, in order. */
export function registeredSecretPatterns(): RegExp[] {
  return [...registered.values()].map((pattern) => new RegExp(pattern.source, pattern.flags));
}

const MASK = '[REDACTED]';

/** Values this short would mask ordinary words even as whole words; they are left alone. */
const MIN_SECRET_CHARS = 4;

/** A cut-off part shorter than this is too likely to be ordinary text. */
const MIN_CUT_CHARS = MIN_MASKABLE_SECRET_CHARS;

/** How far into the text a secret's end cut off at its start is looked for (secrets are shorter). */
const MAX_CUT_SCAN = 4096;

interface CompiledSecrets {
  /** Every maskable value in every encoding, longest first. */
  everyForm?: RegExp;
  /** Short or common values, raw, as whole words outside tag names, attribute names and entities. */
  wholeWords?: RegExp;
  /** Literal spellings of maskable values a cut at either end of the text can leave a part of. */
  cutForms: readonly CutForm[];
  /** All cut forms joined: a cut part of 8 or more chars holds 8 chars found in here. */
  cutIndex: string;
}

interface CutForm {
  form: string;
  failure: Uint32Array;
  reversed: string;
  reversedFailure: Uint32Array;
}

/**
 * Masks what looks like a credential (bearer tokens, `api_key=` style fields, and the patterns
 * packages registered: an adapter's key prefix, webhook signing secrets) and every value in
 * `knownSecrets`:
 *
 * - a value of 8 or more characters that `assessSecret` calls `maskable` is masked wherever it
 *   occurs, raw or in any form a server may echo it in: percent- or form-encoded (`+` for a
 *   space), JSON-string-escaped, HTML-escaped (named, decimal or hex entities), base64 or
 *   base64url (alone, or inside a longer run such as `Basic base64(user:secret)`), and cut off
 *   at the text's start or end by a size cap (a part of at least 8 characters);
 * - a shorter value (4 to 7 characters) or a common one (`test`, `changeme`, one repeated
 *   character) is masked only raw, as a whole word, never inside another word, a tag or
 *   attribute name or an entity, so markup and structure are never rewritten;
 * - a value under 4 characters is not masked at all.
 *
 * Each is replaced by `[REDACTED]`. The cost is linear in the text's length for a given list.
 */
export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let out = text;
  if (knownSecrets.length > 0) {
    const compiled = compile(knownSecrets);
    if (compiled.everyForm) out = out.replace(compiled.everyForm, MASK);
    out = maskCutOffs(out, compiled);
    if (compiled.wholeWords) out = out.replace(compiled.wholeWords, MASK);
  }
  for (const pattern of GENERIC_PATTERNS) {
    out = out.replace(pattern, (match, prefix: string) =>
      match.startsWith(prefix) && prefix !== match ? `${prefix}${MASK}` : MASK,
    );
  }
  for (const pattern of registered.values()) out = out.replace(pattern, MASK);
  return out;
}

/** Callers pass the same list for every string of a report; compiling it once keeps that cheap. */
const cache = new Map<string, CompiledSecrets>();
const CACHE_ENTRIES = 32;

function compile(knownSecrets: readonly string[]): CompiledSecrets {
  const key = knownSecrets.join('\u0000');
  const cached = cache.get(key);
  if (cached) return cached;
  const maskable = new Set<string>();
  const weak = new Set<string>();
  for (const secret of knownSecrets) {
    for (const value of new Set([secret, secret.trim()])) {
      if (value.length < MIN_SECRET_CHARS) continue;
      (assessSecret(value) === 'maskable' ? maskable : weak).add(value);
    }
  }
  const forms = new Set<string>();
  for (const value of maskable) {
    forms.add(value);
    for (const form of base64Forms(value)) forms.add(form);
  }
  // Alternation takes the first alternative that matches, so a longer form goes first.
  const everyForm = [...forms].sort((a, b) => b.length - a.length).map(escapedFormsPattern);
  const words = [...weak].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const cutForms = [...new Set([...maskable].flatMap(literalForms))]
    .filter((form) => form.length > MIN_CUT_CHARS)
    .map(cutForm);
  const compiled: CompiledSecrets = {
    everyForm: everyForm.length > 0 ? new RegExp(everyForm.join('|'), 'g') : undefined,
    wholeWords:
      words.length > 0
        ? new RegExp(`(?<![\\p{L}\\p{N}_&#]|</?)(?:${words.join('|')})(?![\\p{L}\\p{N}_;=])`, 'gu')
        : undefined,
    cutForms,
    cutIndex: cutForms.map((cut) => cut.form).join('\u0000'),
  };
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

function cutForm(form: string): CutForm {
  const reversed = reverse(form);
  return { form, failure: failureFunction(form), reversed, reversedFailure: failureFunction(reversed) };
}

/** A 64 KiB cap cuts a secret in half: its start left at the end of the text, or its end at the start. */
function maskCutOffs(text: string, { cutForms, cutIndex }: CompiledSecrets): string {
  if (text.length < MIN_CUT_CHARS) return text;
  const head = text.slice(0, MIN_CUT_CHARS);
  const end = text.slice(-MIN_CUT_CHARS);
  if (!cutIndex.includes(head) && !cutIndex.includes(end)) return text;
  let out = text;
  let reversedHead = reverse(out.slice(0, MAX_CUT_SCAN));
  for (const cut of cutForms) {
    const atEnd = overlapAtEnd(out, cut.form, cut.failure);
    if (atEnd >= MIN_CUT_CHARS) {
      out = out.slice(0, out.length - atEnd) + MASK;
      reversedHead = reverse(out.slice(0, MAX_CUT_SCAN));
    }
    // The last chars of the reversed head are the text's first ones, reversed.
    const atStart = overlapAtEnd(reversedHead, cut.reversed, cut.reversedFailure);
    if (atStart >= MIN_CUT_CHARS) {
      out = MASK + out.slice(atStart);
      reversedHead = reverse(out.slice(0, MAX_CUT_SCAN));
    }
  }
  return out;
}

/** KMP's failure function: the longest proper prefix of `pattern[0..i]` that is also its suffix. */
function failureFunction(pattern: string): Uint32Array {
  const failure = new Uint32Array(pattern.length);
  let k = 0;
  for (let i = 1; i < pattern.length; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1] ?? 0;
    if (pattern[i] === pattern[k]) k++;
    failure[i] = k;
  }
  return failure;
}

/** The length of the longest proper prefix of `pattern` that ends `text`. */
function overlapAtEnd(text: string, pattern: string, failure: Uint32Array): number {
  const tail = text.slice(Math.max(0, text.length - (pattern.length - 1)));
  let matched = 0;
  for (let i = 0; i < tail.length; i++) {
    while (matched > 0 && tail[i] !== pattern[matched]) matched = failure[matched - 1] ?? 0;
    if (tail[i] === pattern[matched]) matched++;
  }
  return matched;
}

/** By code unit, so the lengths found index the original text. */
function reverse(text: string): string {
  return text.split('').reverse().join('');
}
