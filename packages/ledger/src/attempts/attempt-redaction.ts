import { type AttemptResponseSample, MAX_RESPONSE_SAMPLE_CHARS } from './attempt-record';

/**
 * Every control character but tab and line breaks: NUL cannot be stored in PostgreSQL TEXT, and
 * escape sequences in a receiver's answer must not reach the terminal of whoever reads the log.
 */
const CONTROL = /[^\P{Cc}\t\n\r]/gu;

/**
 * The sample as stored. Redacting secrets is the caller's job (only it knows them); what the
 * ledger adds is the bound and storable text. Like an outcome, the sample arrives after the
 * side effect, so nothing in it is refused: it is cleaned and cut instead.
 */
export function storedSample(
  sample: { body: string; truncated?: boolean } | null | undefined,
): AttemptResponseSample | null {
  if (sample === null || sample === undefined) return null;
  const clean = (sample.body as unknown as { toWellFormed(): string }).toWellFormed().replace(CONTROL, '');
  if (clean.length <= MAX_RESPONSE_SAMPLE_CHARS) return { body: clean, truncated: sample.truncated === true };
  let end = MAX_RESPONSE_SAMPLE_CHARS;
  // Never half a surrogate pair: the cut would leave a lone surrogate, which UTF-8 cannot hold.
  const last = clean.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { body: clean.slice(0, end), truncated: true };
}
