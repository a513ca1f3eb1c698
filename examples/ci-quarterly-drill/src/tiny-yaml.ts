/**
 * A tiny, purpose-built reader for the YAML subset GitHub Actions workflows are written in, so
 * this example's test needs no YAML dependency. It reads block mappings, block sequences, plain
 * and quoted scalars, `|` literal blocks and comments, and refuses everything else (anchors,
 * aliases, tags, flow collections, folded blocks, several documents, tabs, duplicate keys) with
 * the line it stopped at: a workflow it cannot read fails the test instead of being misread.
 *
 * Every scalar stays a string (`20`, `true` and `on` included), which is also what a check wants:
 * YAML 1.1 readers turn the key `on` into `true`; GitHub reads it as `on`, and so does this.
 */
export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  /** 1-based, for messages. */
  number: number;
  indent: number;
  /** The line without its indentation (and, outside block scalars, trailing blanks). */
  text: string;
  raw: string;
}

export class YamlSubsetError extends Error {}

export function readYamlSubset(source: string): YamlValue {
  const lines = source.split(/\r?\n/).map((raw, i): Line => {
    if (/^\s*\t/.test(raw)) throw new YamlSubsetError(`line ${i + 1}: tab in indentation`);
    const text = raw.trimStart();
    return { number: i + 1, indent: raw.length - text.length, text: text.trimEnd(), raw };
  });
  const reader = new Reader(lines);
  const value = reader.block(0);
  reader.expectEnd();
  return value;
}

const isSkippable = (line: Line) => line.text === '' || line.text.startsWith('#');
const isSequenceItem = (text: string) => text === '-' || text.startsWith('- ');

class Reader {
  #lines: Line[];
  #at = 0;

  constructor(lines: Line[]) {
    this.#lines = lines;
  }

  /** The next line that carries content, skipping blank and comment lines. */
  peek(): Line | undefined {
    while (this.#at < this.#lines.length && isSkippable(this.#lines[this.#at]!)) this.#at++;
    return this.#lines[this.#at];
  }

  expectEnd(): void {
    const line = this.peek();
    if (line) throw this.error(line, 'unexpected content (wrong indentation?)');
  }

  /** A mapping or a sequence whose lines start at `indent`. */
  block(indent: number): YamlValue {
    const line = this.peek();
    if (!line || line.indent < indent) return null;
    if (line.text === '---' || line.text === '...') throw this.error(line, 'several documents');
    return isSequenceItem(line.text) ? this.sequence(line.indent) : this.mapping(line.indent);
  }

  mapping(indent: number): { [key: string]: YamlValue } {
    const out: { [key: string]: YamlValue } = {};
    for (let line = this.peek(); line && line.indent === indent; line = this.peek()) {
      if (isSequenceItem(line.text)) break;
      const { key, rest } = this.splitKey(line);
      if (Object.hasOwn(out, key)) throw this.error(line, `duplicate key "${key}"`);
      this.#at++;
      out[key] = this.valueAfterKey(line, indent, rest);
    }
    return out;
  }

  sequence(indent: number): YamlValue[] {
    const out: YamlValue[] = [];
    for (
      let line = this.peek();
      line && line.indent === indent && isSequenceItem(line.text);
      line = this.peek()
    ) {
      const rest = line.text.slice(1).trimStart();
      if (rest === '' || rest.startsWith('#')) {
        this.#at++;
        out.push(this.nested(indent));
        continue;
      }
      // `- key: value` opens a mapping whose keys line up with `key`: read the rest of this line
      // as if it were a line of its own at that column.
      const column = indent + (line.text.length - rest.length);
      this.#lines[this.#at] = { ...line, indent: column, text: rest };
      if (this.looksLikeKey(rest)) out.push(this.mapping(column));
      else {
        this.#at++;
        out.push(this.scalar(line, rest));
      }
    }
    return out;
  }

  /** What follows `key:` — on the same line, or as a block below it. */
  valueAfterKey(line: Line, indent: number, rest: string): YamlValue {
    if (rest === '' || rest.startsWith('#')) return this.nested(indent, true);
    if (rest === '|' || rest === '|-' || rest === '|+') return this.literalBlock(indent, rest);
    return this.scalar(line, rest);
  }

  /** A block more indented than its parent, or (after a key) a sequence at the key's own column. */
  nested(indent: number, afterKey = false): YamlValue {
    const next = this.peek();
    if (!next) return null;
    if (next.indent > indent) return this.block(next.indent);
    if (afterKey && next.indent === indent && isSequenceItem(next.text)) return this.sequence(indent);
    return null;
  }

  literalBlock(indent: number, indicator: string): string {
    const body: string[] = [];
    let blockIndent: number | undefined;
    while (this.#at < this.#lines.length) {
      const line = this.#lines[this.#at]!;
      if (line.text === '') {
        body.push('');
        this.#at++;
        continue;
      }
      if (line.indent <= indent) break;
      blockIndent ??= line.indent;
      if (line.indent < blockIndent)
        throw this.error(line, 'literal block line less indented than its first');
      body.push(line.raw.slice(blockIndent).trimEnd());
      this.#at++;
    }
    while (indicator !== '|+' && body.length > 0 && body[body.length - 1] === '') body.pop();
    const text = body.join('\n');
    return indicator === '|-' ? text : `${text}\n`;
  }

  scalar(line: Line, text: string): string {
    const first = text[0];
    if (first === '"' || first === "'") return this.quoted(line, text);
    if (first === '{' || first === '[') throw this.error(line, 'flow collections are not read');
    if (first === '&' || first === '*' || first === '!')
      throw this.error(line, 'anchors, aliases and tags are not read');
    if (first === '>') throw this.error(line, 'folded blocks are not read');
    if (first === '|') throw this.error(line, 'block scalar indicator with options is not read');
    // A plain scalar ends at " #" (a comment).
    const comment = text.search(/\s#/);
    return (comment === -1 ? text : text.slice(0, comment)).trimEnd();
  }

  quoted(line: Line, text: string): string {
    const quote = text[0]!;
    let i = 1;
    let value = '';
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (quote === "'" && c === "'") {
        if (text[i + 1] === "'") {
          value += "'";
          i++;
          continue;
        }
        break;
      }
      if (quote === '"' && c === '\\') {
        value += JSON.parse(`"${text.slice(i, i + 2)}"`) as string;
        i++;
        continue;
      }
      if (quote === '"' && c === '"') break;
      value += c;
    }
    if (i >= text.length)
      throw this.error(line, 'unterminated quoted scalar (multi-line quotes are not read)');
    const after = text.slice(i + 1).trim();
    if (after !== '' && !after.startsWith('#'))
      throw this.error(line, `unexpected "${after}" after a quoted scalar`);
    return value;
  }

  looksLikeKey(text: string): boolean {
    if (text[0] === '"' || text[0] === "'") return /^(["']).*?\1\s*:(\s|$)/.test(text);
    return /^[^\s#][^:#]*?:(\s|$)/.test(text);
  }

  splitKey(line: Line): { key: string; rest: string } {
    const text = line.text;
    const quoted = /^(["'])(.*?)\1\s*:(?:\s+|$)(.*)$/.exec(text);
    if (quoted) return { key: quoted[2]!, rest: quoted[3]!.trim() };
    const plain = /^([^\s#][^:#]*?)\s*:(?:\s+|$)(.*)$/.exec(text);
    if (!plain) throw this.error(line, 'expected "key: value"');
    return { key: plain[1]!, rest: plain[2]!.trim() };
  }

  error(line: Line, message: string): YamlSubsetError {
    return new YamlSubsetError(`line ${line.number}: ${message}: ${line.raw.trim()}`);
  }
}
