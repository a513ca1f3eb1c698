/**
 * Text as XML 1.0 allows it: the five special characters escaped, and the characters XML
 * cannot carry at all (most control characters, lone surrogates) replaced, since a JUnit file a
 * CI server cannot parse loses every result in it.
 */
export function escapeXml(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '&') out += '&amp;';
    else if (char === '<') out += '&lt;';
    else if (char === '>') out += '&gt;';
    else if (char === '"') out += '&quot;';
    else if (char === "'") out += '&apos;';
    else if (code === 0x9 || code === 0xa || code === 0xd) out += char;
    else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff)
      out += '\uFFFD';
    else out += char;
  }
  return out;
}

export function attributes(values: Readonly<Record<string, string | number>>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
    .join('');
}
