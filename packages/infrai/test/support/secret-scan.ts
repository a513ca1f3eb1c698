import { inspect } from 'node:util';

/**
 * Everything a test can get its hands on (errors in every rendering, log lines, events,
 * reports), searched for secrets. An error is looked at as a person or a logger would see it:
 * message, String(), stack, toJSON/JSON.stringify, util.inspect (hidden properties included),
 * details and the whole cause chain.
 */
export class SecretScan {
  readonly #seen: Array<{ what: string; text: string }> = [];
  readonly #secrets: readonly string[];

  constructor(secrets: readonly string[]) {
    this.#secrets = secrets;
  }

  /** How many renderings were collected: a scan of nothing proves nothing. */
  get size(): number {
    return this.#seen.length;
  }

  text(what: string, text: string): void {
    this.#seen.push({ what, text });
  }

  value(what: string, value: unknown): void {
    this.#seen.push({ what: `${what} (JSON)`, text: safeJson(value) });
    this.#seen.push({ what: `${what} (inspect)`, text: inspect(value, { depth: 20, showHidden: true }) });
    this.#seen.push({ what: `${what} (String)`, text: safeString(value) });
  }

  error(what: string, error: unknown): void {
    let current: unknown = error;
    for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
      const label = depth === 0 ? what : `${what} cause#${depth}`;
      this.value(label, current);
      if (current instanceof Error) {
        this.text(`${label} message`, current.message);
        this.text(`${label} stack`, current.stack ?? '');
        const details = (current as { details?: unknown }).details;
        if (details !== undefined) this.value(`${label} details`, details);
        const toJSON = (current as { toJSON?: () => unknown }).toJSON;
        if (typeof toJSON === 'function') this.value(`${label} toJSON`, toJSON.call(current));
      }
      current = (current as { cause?: unknown }).cause;
    }
  }

  /**
   * One line per thing a secret was found in (its label, then the text around the first find),
   * for a failure message a person can read: `[]` when none.
   */
  summary(): string[] {
    const lines = new Map<string, string>();
    for (const leak of this.leaks()) {
      const label = leak.what.replace(
        / (cause#\d+ )?(\(JSON\)|\(inspect\)|\(String\)|message|stack|details.*|toJSON.*)$/,
        '',
      );
      if (!lines.has(label)) lines.set(label, `${label}: …${leak.excerpt.split('\n')[0]}…`);
    }
    return [...lines.values()];
  }

  /** Where a secret was found: `[]` when none. */
  leaks(): Array<{ what: string; secret: string; excerpt: string }> {
    const found: Array<{ what: string; secret: string; excerpt: string }> = [];
    for (const { what, text } of this.#seen) {
      for (const secret of this.#secrets) {
        const at = text.indexOf(secret);
        if (at !== -1) found.push({ what, secret, excerpt: text.slice(Math.max(0, at - 80), at + 80) });
      }
    }
    return found;
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    return `(not JSON: ${String(error)})`;
  }
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '(no String)';
  }
}

/** Runs `run` and returns what it threw; fails when it throws nothing. */
export async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure, and it succeeded');
}
