/**
 * A small, strict XML 1.0 reader for the tests: enough to prove a JUnit file is well-formed
 * (one root, tags nested and closed in order, attributes quoted and unique, only the five
 * predefined entities and numeric references, no stray `<` or `&`) and to walk what it holds.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export function parseXml(source: string): XmlElement {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`not well-formed XML at ${i}: ${why}`);
  };
  const startsWith = (s: string) => source.startsWith(s, i);
  const isNameChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_:.-]/.test(c);
  const readName = (): string => {
    const start = i;
    if (!/[A-Za-z_:]/.test(source[i] ?? '')) fail('expected a name');
    while (isNameChar(source[i])) i++;
    return source.slice(start, i);
  };
  const skipSpace = () => {
    while (/\s/.test(source[i] ?? '')) i++;
  };
  const decode = (raw: string): string =>
    raw.replace(/&([^;]*);?/g, (match, entity: string) => {
      if (!match.endsWith(';')) fail(`unterminated reference "${match}"`);
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      if (entity in named) return named[entity]!;
      const numeric = /^#(x[0-9A-Fa-f]+|[0-9]+)$/.exec(entity);
      if (!numeric) fail(`unknown entity "&${entity};"`);
      const code = entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
      return String.fromCodePoint(code);
    });
  const checkChars = (text: string) => {
    for (const char of text) {
      const code = char.codePointAt(0)!;
      const allowed =
        code === 0x9 ||
        code === 0xa ||
        code === 0xd ||
        (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) ||
        code >= 0x10000;
      if (!allowed) fail(`character U+${code.toString(16)} is not allowed in XML`);
    }
  };

  const element = (): XmlElement => {
    if (source[i] !== '<') fail('expected "<"');
    i++;
    const name = readName();
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = i;
      skipSpace();
      if (startsWith('/>')) {
        i += 2;
        return { name, attributes, children: [], text: '' };
      }
      if (source[i] === '>') {
        i++;
        break;
      }
      if (i === before) fail('expected whitespace before an attribute');
      const attribute = readName();
      skipSpace();
      if (source[i] !== '=') fail('expected "="');
      i++;
      skipSpace();
      const quote = source[i];
      if (quote !== '"' && quote !== "'") fail('attribute values are quoted');
      const end = source.indexOf(quote!, i + 1);
      if (end < 0) fail('unterminated attribute value');
      const raw = source.slice(i + 1, end);
      if (raw.includes('<')) fail('"<" in an attribute value');
      if (attribute in attributes) fail(`attribute "${attribute}" twice`);
      checkChars(raw);
      attributes[attribute] = decode(raw);
      i = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (i >= source.length) fail(`<${name}> is never closed`);
      if (startsWith('</')) {
        i += 2;
        const closing = readName();
        if (closing !== name) fail(`</${closing}> closes <${name}>`);
        skipSpace();
        if (source[i] !== '>') fail('expected ">"');
        i++;
        return { name, attributes, children, text };
      }
      if (startsWith('<!--')) {
        const end = source.indexOf('-->', i);
        if (end < 0) fail('unterminated comment');
        i = end + 3;
      } else if (startsWith('<![CDATA[')) {
        const end = source.indexOf(']]>', i);
        if (end < 0) fail('unterminated CDATA');
        text += source.slice(i + 9, end);
        i = end + 3;
      } else if (source[i] === '<') {
        children.push(element());
      } else {
        const next = source.indexOf('<', i);
        const raw = source.slice(i, next < 0 ? source.length : next);
        checkChars(raw);
        text += decode(raw);
        i += raw.length;
      }
    }
  };

  if (startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) fail('unterminated XML declaration');
    i = end + 2;
  }
  skipSpace();
  const root = element();
  skipSpace();
  if (i !== source.length) fail('content after the root element');
  return root;
}

/** Every element of that name, depth first. */
export function findAll(root: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (element: XmlElement) => {
    if (element.name === name) found.push(element);
    element.children.forEach(walk);
  };
  walk(root);
  return found;
}
