/**
 * SQS bodies hold XML characters only. A canonical JSON body escapes every control character
 * and lone surrogate, so U+FFFE and U+FFFF are the only ones it can hold that SQS refuses.
 * They travel as the escapes `\ufffe` and `\uffff`, which canonical JSON itself never writes,
 * so the stored body turns back into the published bytes exactly.
 */
const NONCHARACTER = /[\ufffe\uffff]/;
const NONCHARACTERS = /[\ufffe\uffff]/g;

export function toSqsBody(body: string): string {
  return NONCHARACTER.test(body)
    ? body.replace(NONCHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
    : body;
}

export function fromSqsBody(body: string): string {
  if (!body.includes('\\uff')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const sequence = body.slice(i, i + 6);
    if (sequence === '\\ufffe' || sequence === '\\uffff') {
      out += String.fromCharCode(Number.parseInt(sequence.slice(2), 16));
      i += 5;
    } else {
      // Any other escape is copied whole, so `\\ufffe` (a backslash, then text) stays as it is.
      out += body.slice(i, i + 2);
      i += 1;
    }
  }
  return out;
}
