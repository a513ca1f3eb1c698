/*
 * Just enough Markdown for the docs tests: sections, fenced blocks, pipe tables and the prose
 * between them, each with its 1-based line number. Tables follow GitHub's rules: a header row, a
 * delimiter row (`| --- | :-: |`), and a pipe that is not escaped (`\|`) separates cells, inside
 * a code span too.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const DELIMITER_CELL = /^\s*:?-+:?\s*$/;

export interface TableRow {
  line: number;
  cells: string[];
}

export interface MarkdownTable {
  /** The line of the header row. */
  line: number;
  header: string[];
  /** How many columns the delimiter row declares. */
  columns: number;
  rows: TableRow[];
}

export interface FencedBlock {
  /** The line of the opening fence. */
  line: number;
  info: string;
  body: string[];
}

/** Splits one table row into its cells (without the outer pipes), at unescaped pipes. */
export function tableCells(row: string): string[] {
  let text = row.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  return text.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

const isTableLine = (line: string) => /^\s*\|/.test(line);
const isDelimiterRow = (line: string) =>
  isTableLine(line) && tableCells(line).every((c) => DELIMITER_CELL.test(c));

/** Which lines (0-based) are inside a fenced block, fences included. */
function fencedLines(lines: readonly string[]): boolean[] {
  const inside: boolean[] = [];
  let open: string | undefined;
  for (const line of lines) {
    const fence = FENCE.exec(line)?.[1];
    if (open === undefined && fence) {
      open = fence;
      inside.push(true);
    } else if (open !== undefined) {
      inside.push(true);
      if (fence && fence[0] === open[0] && fence.length >= open.length && line.trim() === fence)
        open = undefined;
    } else inside.push(false);
  }
  return inside;
}

export function fencedBlocks(text: string): FencedBlock[] {
  const lines = text.split('\n');
  const blocks: FencedBlock[] = [];
  let current: FencedBlock | undefined;
  let fence = '';
  lines.forEach((line, i) => {
    const found = FENCE.exec(line)?.[1];
    if (!current && found) {
      fence = found;
      current = { line: i + 1, info: line.trim().slice(found.length).trim(), body: [] };
    } else if (current) {
      if (found && found[0] === fence[0] && found.length >= fence.length && line.trim() === found) {
        blocks.push(current);
        current = undefined;
      } else current.body.push(line);
    }
  });
  return blocks;
}

export function markdownTables(text: string): MarkdownTable[] {
  const lines = text.split('\n');
  const fenced = fencedLines(lines);
  const tables: MarkdownTable[] = [];
  for (let i = 0; i < lines.length - 1; i++) {
    if (fenced[i] || !isTableLine(lines[i]!) || !isDelimiterRow(lines[i + 1]!)) continue;
    const table: MarkdownTable = {
      line: i + 1,
      header: tableCells(lines[i]!),
      columns: tableCells(lines[i + 1]!).length,
      rows: [],
    };
    let j = i + 2;
    for (; j < lines.length && !fenced[j] && isTableLine(lines[j]!); j++) {
      table.rows.push({ line: j + 1, cells: tableCells(lines[j]!) });
    }
    tables.push(table);
    i = j - 1;
  }
  return tables;
}

/** What is wrong with the tables of a document: rows of the wrong width, headers without a name. */
export function tableProblems(text: string): { line: number; problem: string }[] {
  const problems: { line: number; problem: string }[] = [];
  const lines = text.split('\n');
  const fenced = fencedLines(lines);
  const tables = markdownTables(text);
  const starts = new Set(tables.flatMap((t) => [t.line, t.line + 1, ...t.rows.map((r) => r.line)]));
  for (const table of tables) {
    if (table.header.length !== table.columns) {
      problems.push({
        line: table.line,
        problem: `the header has ${table.header.length} cells, the delimiter row ${table.columns}`,
      });
    }
    // A row-label column may go unnamed (the first); any other column says what it holds.
    table.header.forEach((cell, i) => {
      if (i > 0 && cell === '')
        problems.push({ line: table.line, problem: `header column ${i + 1} has no name` });
    });
    for (const row of table.rows) {
      if (row.cells.length !== table.columns) {
        problems.push({
          line: row.line,
          problem: `${row.cells.length} cells in a table of ${table.columns} columns`,
        });
      }
    }
  }
  // A pipe row that belongs to no table: a table whose delimiter row is missing or broken.
  lines.forEach((line, i) => {
    if (!fenced[i] && isTableLine(line) && !starts.has(i + 1)) {
      problems.push({
        line: i + 1,
        problem: 'a table row outside any table (is the delimiter row missing?)',
      });
    }
  });
  return problems.sort((a, b) => a.line - b.line);
}

/** The lines of prose: outside fenced blocks, tables and HTML comments. */
export function proseLines(text: string): { line: number; text: string }[] {
  const lines = text.split('\n');
  const fenced = fencedLines(lines);
  const prose: { line: number; text: string }[] = [];
  let comment = false;
  lines.forEach((line, i) => {
    if (fenced[i] || isTableLine(line)) return;
    if (comment || line.includes('<!--')) {
      comment = !line.includes('-->');
      return;
    }
    prose.push({ line: i + 1, text: line });
  });
  return prose;
}

/** The text of the section under a `##` (or deeper) heading, up to the next heading of its level or higher. */
export function section(text: string, heading: string): { line: number; text: string } | undefined {
  const lines = text.split('\n');
  const fenced = fencedLines(lines);
  const start = lines.findIndex(
    (line, i) => !fenced[i] && /^#{1,6} /.test(line) && line.replace(/^#+ /, '').trim() === heading,
  );
  if (start < 0) return undefined;
  const level = /^#+/.exec(lines[start]!)![0].length;
  let end = start + 1;
  while (end < lines.length && !(!fenced[end] && new RegExp(`^#{1,${level}} `).test(lines[end]!))) end++;
  return { line: start + 1, text: lines.slice(start, end).join('\n') };
}
