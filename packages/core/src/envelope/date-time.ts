/**
 * ajv-formats' full `date-time` (RFC 3339, time zone required), rule for rule, without its
 * three regular expressions and string splits: every received envelope's `occurred_at` is
 * checked, and this is what the schema would answer. Its quirks are kept on purpose (any `t`,
 * `T` or whitespace as the separator, a seconds fraction compared as a number, its leap-second
 * arithmetic), so the two never disagree; the property tests compare them.
 */
export function isDateTime(text: string): boolean {
  // "YYYY-MM-DD" is ten characters, then the one separator, then the time.
  if (text.length < 11 || !isSeparator(text.charCodeAt(10))) return false;
  return isDate(text) && isTime(text, 11);
}

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(text: string): boolean {
  if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d) return false;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS[month]!);
}

/** `HH:MM:SS(.fraction)?` then `z`, or `+HH`, `+HHMM`, `+HH:MM` (or `-`), to the end of the text. */
function isTime(text: string, at: number): boolean {
  const hr = digits(text, at, 2);
  const min = digits(text, at + 3, 2);
  const secondsStart = at + 6;
  if (hr < 0 || min < 0 || text.charCodeAt(at + 2) !== 0x3a || text.charCodeAt(at + 5) !== 0x3a) {
    return false;
  }
  if (digits(text, secondsStart, 2) < 0) return false;
  let i = secondsStart + 2;
  if (text.charCodeAt(i) === 0x2e) {
    const fractionStart = ++i;
    while (isDigit(text.charCodeAt(i))) i++;
    if (i === fractionStart) return false;
  }
  // A number, as ajv-formats reads it: "59.99999999999999999" is 60 there, so it is here.
  const sec = Number(text.slice(secondsStart, i));
  const zone = text.charCodeAt(i);
  let tzSign = 1;
  let tzH = 0;
  let tzM = 0;
  if (zone === 0x7a || zone === 0x5a) {
    if (i + 1 !== text.length) return false;
  } else if (zone === 0x2b || zone === 0x2d) {
    tzSign = zone === 0x2d ? -1 : 1;
    tzH = digits(text, i + 1, 2);
    if (tzH < 0) return false;
    let rest = i + 3;
    if (rest !== text.length) {
      if (text.charCodeAt(rest) === 0x3a) rest++;
      tzM = digits(text, rest, 2);
      if (tzM < 0 || rest + 2 !== text.length) return false;
    }
  } else return false;
  if (tzH > 23 || tzM > 59) return false;
  if (hr <= 23 && min <= 59 && sec < 60) return true;
  const utcMin = min - tzM * tzSign;
  const utcHr = hr - tzH * tzSign - (utcMin < 0 ? 1 : 0);
  return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
}

/** The value of `count` ASCII digits at `at`, or -1 when any is not one. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return -1;
    value = value * 10 + (c - 0x30);
  }
  return value;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** What `/t|\s/i` matches: t, T, and every character JavaScript's `\s` does. */
function isSeparator(c: number): boolean {
  return (
    c === 0x74 ||
    c === 0x54 ||
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
