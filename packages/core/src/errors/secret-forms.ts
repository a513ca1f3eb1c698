/**
 * The shapes a secret value takes in text a server echoes back: raw, percent- or form-encoded,
 * JSON-string-escaped, HTML-escaped (named, decimal or hex entities) and base64 / base64url, the
 * last also embedded in a longer run (`Basic base64(user:secret)`) at any of its 3 alignments.
 */

/** HTML's named entities for the punctuation a secret may hold. */
const HTML_NAMED: Readonly<Record<string, readonly string[]>> = {
  '&': ['amp', 'AMP'],
  '<': ['lt', 'LT'],
  '>': ['gt', 'GT'],
  '"': ['quot', 'QUOT'],
  "'": ['apos'],
  '/': ['sol'],
  '=': ['equals'],
  '+': ['plus'],
  ':': ['colon'],
  '?': ['quest'],
  '#': ['num'],
  '%': ['percnt'],
  ';': ['semi'],
  '!': ['excl'],
  '(': ['lpar'],
  ')': ['rpar'],
  '[': ['lsqb', 'lbrack'],
  ']': ['rsqb', 'rbrack'],
  '{': ['lcub', 'lbrace'],
  '}': ['rcub', 'rbrace'],
  '@': ['commat'],
  $: ['dollar'],
  '*': ['ast', 'midast'],
  ',': ['comma'],
  '.': ['period'],
  '`': ['grave'],
  '^': ['Hat'],
  '|': ['vert', 'verbar'],
  '~': ['tilde'],
  _: ['lowbar', 'UnderBar'],
  '\\': ['bsol'],
};

const JSON_SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** Hex digits of `value` matched in either case, e.g. `[eE]9`. */
function hexPattern(value: number, width: number): string {
  return value
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`);
}

const encoder = new TextEncoder();

/** One code point as any of its escaped forms; letters and digits are never escaped in practice. */
function codePointPattern(char: string): string {
  if (/^[A-Za-z0-9]$/.test(char)) return char;
  const codePoint = char.codePointAt(0) ?? 0;
  const forms = new Set<string>([escapeRegExp(char)]);
  forms.add([...encoder.encode(char)].map((byte) => `%${hexPattern(byte, 2)}`).join(''));
  if (char === ' ') forms.add('\\+');
  const short = JSON_SHORT[char];
  if (short) forms.add(escapeRegExp(short));
  let unicodeEscape = '';
  for (let i = 0; i < char.length; i++) unicodeEscape += `\\\\u${hexPattern(char.charCodeAt(i), 4)}`;
  forms.add(unicodeEscape);
  for (const name of HTML_NAMED[char] ?? []) forms.add(`&${name};`);
  forms.add(`&#0*${codePoint};`);
  forms.add(`&#[xX]0*${hexPattern(codePoint, 1)};`);
  return `(?:${[...forms].join('|')})`;
}

/** A regular expression source matching `text` with any of its characters escaped in any form. */
export function escapedFormsPattern(text: string): string {
  let source = '';
  for (const char of text) source += codePointPattern(char);
  return source;
}

function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The base64 texts that carry `value`: its whole encoding (padded and not), and for each byte
 * alignment in a longer run, the characters made of the value's bits alone, so the same
 * stretch is found whatever precedes and follows it. Both alphabets.
 */
export function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const whole = bytes.toString('base64');
  const forms = [whole, whole.replace(/=+$/, '')];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    forms.push(encoded.slice(start, end));
  }
  return unique([...forms, ...forms.map(toBase64Url)]);
}

/** The literal spellings that a cut at the text's start or end can leave a part of. */
export function literalForms(value: string): string[] {
  return unique([
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    value
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;'),
    ...base64Forms(value),
  ]);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)].filter((value) => value.length > 0);
}
