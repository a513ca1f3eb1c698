import { redactSecrets } from '@queueport/core/driver';
import type { Env } from '../config/config-env';
import { namedEnvVars } from '../config/config-env';
import type { LoadedConfig } from '../config/config-types';
import { isSecretEnvName } from '../config/secret-names';
import type { CommandReport } from './report-types';

/** Shorter values would mask ordinary words; core's redactSecrets draws the same line. */
const MIN_SECRET_CHARS = 4;
const NOT_SECRETS = new Set(['true', 'false', 'null', 'undefined', 'none', 'yes', 'no']);

/**
 * Every output format passes through one of these: the human table, --json, the JUnit file,
 * progress lines and error messages. It masks the values of secret-looking environment
 * variables, every variable the configuration names by a `*Env` field, what the embedded
 * defaults generated, and whatever core's redactSecrets recognises (bearer tokens, ifr_ keys,
 * whsec_ secrets). Each value is masked in the forms an output may have escaped it to.
 */
export class Redactor {
  #secrets: string[] = [];

  constructor(env: Env = {}) {
    this.#addEnv(env, (name) => isSecretEnvName(name));
  }

  /** The configuration is loaded: its `*Env` variables and generated secrets are secrets too. */
  addConfig(loaded: LoadedConfig, env: Env): void {
    const named = new Set(namedEnvVars(loaded.config));
    for (const name of Object.keys(loaded.env ?? {})) named.add(name);
    this.#addEnv({ ...env, ...loaded.env }, (name) => named.has(name) || isSecretEnvName(name));
  }

  add(values: Iterable<string>): void {
    const all = new Set(this.#secrets);
    for (const value of values) for (const form of formsOf(value)) all.add(form);
    // Longest first, so a secret that contains another is masked whole.
    this.#secrets = [...all].sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    return redactSecrets(text, this.#secrets);
  }

  /** Every string in the report, before it is serialized (so escaping cannot hide a secret). */
  report(report: CommandReport): CommandReport {
    return this.deep(report) as CommandReport;
  }

  deep(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.deep(item));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.deep(item)]));
    }
    return value;
  }

  #addEnv(env: Env, isSecret: (name: string) => boolean): void {
    this.add(
      Object.entries(env).flatMap(([name, value]) => (value !== undefined && isSecret(name) ? [value] : [])),
    );
  }
}

function formsOf(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.length < MIN_SECRET_CHARS || NOT_SECRETS.has(trimmed.toLowerCase())) return [];
  const parts = [trimmed];
  // A signing secret is also used as its bare base64 part.
  if (trimmed.startsWith('whsec_')) parts.push(trimmed.slice('whsec_'.length));
  // A URL held in a variable (a postgres:// URL) is a secret, and so is its password alone.
  const password = passwordOf(trimmed);
  if (password) parts.push(password, safeDecode(password));
  const forms = new Set<string>();
  for (const part of parts) {
    if (part.length < MIN_SECRET_CHARS) continue;
    forms.add(part);
    forms.add(encodeURIComponent(part));
    forms.add(JSON.stringify(part).slice(1, -1));
    forms.add(escapeXmlText(part));
  }
  return [...forms];
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

function escapeXmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
