import { assessSecret, redactSecrets, type SecretAssessment } from '@queueport/core/driver';
import { SECRET_PREFIX as SIGNING_SECRET_PREFIX } from '@queueport/webhook';
import type { Env } from '../config/config-env';
import { namedEnvVars } from '../config/config-env';
import type { LoadedConfig } from '../config/config-types';
import { isPrintableEnvironmentKey, isSecretEnvName } from '../config/secret-names';
import type { CommandReport } from './report-types';

/** Values of secret-looking variables that are plainly settings, not secrets: never warned about. */
const NOT_SECRETS = new Set(['true', 'false', 'null', 'undefined', 'none', 'yes', 'no', 'on', 'off']);

/** A variable whose value cannot be masked reliably, and why. */
export interface UnmaskedSecret {
  name: string;
  verdict: Exclude<SecretAssessment, 'maskable'>;
}

/**
 * Every output passes through one of these: the report (human, --json, JUnit), progress lines
 * and error messages. It masks the values of secret-looking environment variables, every
 * variable the configuration names by a `*Env` field, what the embedded defaults generated,
 * and whatever core's redactSecrets recognises: the generic forms (bearer tokens, `key=`
 * pairs) and every pattern a loaded package registered (each built-in adapter's, loaded by
 * main before anything is read or printed; a configured adapter's on load; webhook signing
 * secrets').
 *
 * It masks text values, never an encoded document: a report is masked field by field before it
 * is turned into JSON, XML or a table, so markup and structure are never touched. A value that
 * core's assessSecret finds too short (the dummy `test` credentials) is masked as a whole word
 * only, and a common one not at all, since masking it would rewrite ordinary words; the report
 * names both (`notes()`).
 */
export class Redactor {
  #secrets: string[] = [];
  readonly #unmasked = new Map<string, UnmaskedSecret>();

  constructor(env: Env = {}) {
    this.#addEnv(env, (name) => isSecretEnvName(name), false);
  }

  /** The configuration is loaded: its `*Env` variables and generated secrets are secrets too. */
  addConfig(loaded: LoadedConfig, env: Env): void {
    const named = new Set(namedEnvVars(loaded.config));
    for (const name of Object.keys(loaded.env ?? {})) named.add(name);
    const all = { ...env, ...loaded.env };
    this.#addEnv(
      Object.fromEntries(Object.entries(all).filter(([name]) => named.has(name))),
      () => true,
      true,
    );
    this.#addEnv(
      Object.fromEntries(Object.entries(all).filter(([name]) => !named.has(name))),
      isSecretEnvName,
      false,
    );
  }

  /** Values to mask; those too short or too common to mask safely are skipped. */
  add(values: Iterable<string>): void {
    const all = new Set(this.#secrets);
    for (const value of values) for (const form of formsOf(value)) all.add(form);
    // Longest first, so a secret that contains another is masked whole.
    this.#secrets = [...all].sort((a, b) => b.length - a.length);
  }

  /** Variables holding a secret whose value is not masked reliably, for the report to warn about. */
  get unmasked(): readonly UnmaskedSecret[] {
    return [...this.#unmasked.values()];
  }

  /** What a report says about the secrets it could not mask; names only, never a value. */
  notes(): string[] {
    const unmasked = this.unmasked;
    if (unmasked.length === 0) return [];
    const names = unmasked.map((each) => each.name).join(', ');
    const verb = unmasked.length === 1 ? 'holds a value' : 'hold values';
    return [
      `not reliably masked in this output: ${names} ${verb} too short or too common (such as a dummy "test" credential) to mask everywhere without rewriting ordinary words, so it is masked as a whole word at most; use a real secret where this output is shared`,
    ];
  }

  /** Plain text (a progress line, an error message): never an encoded document. */
  text(text: string): string {
    return redactSecrets(text, this.#secrets);
  }

  /** Every string in the report, keys included, before it is serialized. */
  report(report: CommandReport): CommandReport {
    return this.deep(report) as CommandReport;
  }

  /** A value as JSON, masked before encoding: for documents a command prints besides reports. */
  json(value: unknown): string {
    return JSON.stringify(this.deep(value), null, 2);
  }

  deep(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.deep(item));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [this.text(key), this.deep(item)]),
      );
    }
    return value;
  }

  #addEnv(env: Env, isSecret: (name: string) => boolean, configured: boolean): void {
    const values: string[] = [];
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined || !isSecret(name)) continue;
      const trimmed = value.trim();
      const verdict = assessSecret(trimmed);
      if (isMasked(trimmed, verdict)) values.push(value);
      if (verdict === 'maskable') continue;
      // A flag-like value under a secret-looking name (FEATURE_TOKEN_CHECK=1) is no secret: warn
      // only where the configuration named the variable, or the value reads as a dummy secret.
      const warn =
        trimmed !== '' &&
        !NOT_SECRETS.has(trimmed.toLowerCase()) &&
        (configured || trimmed.length >= MIN_MASKED_CHARS);
      if (warn && isPrintableEnvironmentKey(name)) this.#unmasked.set(name, { name, verdict });
    }
    this.add(values);
  }
}

/**
 * A short value (4 characters or more) is still masked, so a short password does not leak:
 * core's redactSecrets masks those as whole words only. A common word of any length is not:
 * masking it would rewrite the same word wherever it occurs.
 */
function isMasked(value: string, verdict: SecretAssessment): boolean {
  if (NOT_SECRETS.has(value.toLowerCase())) return false;
  return verdict === 'maskable' || (verdict === 'too-short' && value.length >= MIN_MASKED_CHARS);
}

const MIN_MASKED_CHARS = 4;

function formsOf(value: string): string[] {
  const trimmed = value.trim();
  if (!isMasked(trimmed, assessSecret(trimmed))) return [];
  const parts = [trimmed];
  // A signing secret is also used as its bare base64 part.
  if (trimmed.startsWith(SIGNING_SECRET_PREFIX)) parts.push(trimmed.slice(SIGNING_SECRET_PREFIX.length));
  // A URL held in a variable (a postgres:// URL) is a secret, and so is its password alone.
  const password = passwordOf(trimmed);
  if (password) parts.push(password, safeDecode(password));
  // Core's redactSecrets masks each one in every encoding an output may have (URL, JSON, XML).
  return parts.filter((part) => isMasked(part, assessSecret(part)));
}

function passwordOf(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined;
  try {
    return new URL(value).password || undefined;
  } catch {
    return undefined;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
