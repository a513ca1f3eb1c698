import { isQueueError, QueueError } from '@queueport/core/driver';
import { isShowableWord } from '../config/secret-names';

const HIDDEN = '(not shown)';

/**
 * The message with every word of the URL that may be a secret taken out: its user and
 * password, and any host, path segment, option name or value that is not a short plain word.
 * An adapter's parser may quote what it refuses, and what it refuses may be a token pasted in
 * the wrong place; the CLI only knows that the URL was the user's.
 */
export function withoutUrlSecrets(message: string, url: string | URL): string {
  let parsed: URL | undefined;
  try {
    parsed = url instanceof URL ? url : new URL(url);
  } catch {
    parsed = undefined;
  }
  const words = new Set<string>();
  const addWord = (raw: string, always = false) => {
    for (const form of [raw, safeDecode(raw)]) {
      if (form.length >= 3 && (always || !isShowableWord(form))) words.add(form);
    }
  };
  if (parsed) {
    addWord(parsed.username, true);
    addWord(parsed.password, true);
    addWord(parsed.hostname);
    for (const segment of parsed.pathname.split('/')) addWord(segment);
    for (const part of parsed.search.replace(/^\?/, '').split('&')) {
      const eq = part.indexOf('=');
      addWord(eq < 0 ? part : part.slice(0, eq));
      if (eq >= 0) addWord(part.slice(eq + 1));
    }
    for (const [key, value] of parsed.searchParams) {
      addWord(key);
      addWord(value);
    }
    addWord(parsed.hash.replace(/^#/, ''));
  } else {
    // Not even a URL: every run of what could be a token goes.
    for (const word of String(url).split(/[^A-Za-z0-9_+/=%.~-]+/)) addWord(word);
  }
  let out = message;
  // Longest first, so a word that contains another goes whole.
  for (const word of [...words].sort((a, b) => b.length - a.length)) out = out.split(word).join(HIDDEN);
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * The error with the URL's secret-looking words taken out of its message and details (its
 * cause, which may quote them too, is dropped when anything was taken out). What an adapter
 * says about a URL reaches the CLI's output through here.
 */
export function errorWithoutUrlSecrets(error: unknown, url: string | URL): unknown {
  if (!(error instanceof Error)) return error;
  const message = withoutUrlSecrets(error.message, url);
  if (isQueueError(error)) {
    const details = scrubbed(error.details ?? {}, url) as Record<string, unknown>;
    if (message === error.message && JSON.stringify(details) === JSON.stringify(error.details ?? {})) {
      return error;
    }
    return new QueueError(error.code, message, {
      retryable: error.retryable,
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
      details,
    });
  }
  if (message === error.message) return error;
  const code = (error as { code?: unknown }).code;
  // The code stays: it is what classifies a network failure (ECONNREFUSED) as UNAVAILABLE.
  return Object.assign(new Error(message), typeof code === 'string' ? { code } : {});
}

/** Every string in a plain value (keys too), scrubbed; what is not plain data is dropped. */
function scrubbed(value: unknown, url: string | URL, depth = 0): unknown {
  if (typeof value === 'string') return withoutUrlSecrets(value, url);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (depth > 4) return undefined;
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, url, depth + 1));
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        withoutUrlSecrets(key, url),
        scrubbed(item, url, depth + 1),
      ]),
    );
  }
  return undefined;
}
