import type { CheckResult, CommandReport } from './report-types';
import { formatTable } from './table';

export interface HumanOptions {
  /** ANSI colour: only on a terminal, and never with --no-color or NO_COLOR. */
  color: boolean;
}

/** A failure's line in the table is cut here; the whole message follows the table. */
const MAX_CELL_CHARS = 120;

const STATUS_COLOUR: Record<CheckResult['status'], number> = { passed: 32, failed: 31, skipped: 33 };

/** The report for people: a verdict, a table of checks, the summary, the failures in full, the notes. */
export function formatHuman(report: CommandReport, options: HumanOptions): string {
  const paint = (code: number, text: string) => (options.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const counts = countChecks(report.checks);
  const verdict = report.ok ? paint(32, 'OK') : paint(31, 'FAILED');
  const lines = [
    `queueport ${report.command}: ${verdict} (${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped) in ${seconds(report.durationMs)}`,
  ];
  if (report.checks.length > 0) {
    lines.push('');
    const rows = report.checks.map((check) => [
      check.id,
      check.provider ?? '',
      check.status,
      `${Math.round(check.durationMs)} ms`,
      // A failure's first line here, in full below the table.
      check.status === 'failed' ? firstLine(check.detail ?? 'failed') : (check.detail ?? ''),
    ]);
    const table = formatTable(
      [
        { header: 'check' },
        { header: 'provider' },
        { header: 'status' },
        { header: 'latency', align: 'right' },
        { header: 'detail' },
      ],
      rows,
      (row, column, text) => {
        const check = report.checks[row];
        return column === 2 && check ? paint(STATUS_COLOUR[check.status], text) : text;
      },
    );
    lines.push(...table.map((line) => `  ${line}`));
  }
  if (report.rows && report.rows.length > 0) {
    lines.push('', ...formatRows(report.rows).map((line) => `  ${line}`));
  }
  for (const [name, rows] of Object.entries(report.tables ?? {})) {
    lines.push('', `  ${name}: ${rows.length === 0 ? 'none' : rows.length}`);
    if (rows.length > 0) lines.push(...formatListing(rows).map((line) => `    ${line}`));
  }
  if (report.summary && Object.keys(report.summary).length > 0) {
    lines.push('');
    const rows = Object.entries(report.summary).map(([key, value]) => [key, String(value)]);
    lines.push(...formatTable([{ header: 'summary' }, { header: '' }], rows).map((line) => `  ${line}`));
  }
  const failed = report.checks.filter((check) => check.status === 'failed');
  if (failed.length > 0) {
    lines.push('');
    for (const check of failed) {
      lines.push(paint(31, `✗ ${check.id}${check.provider ? ` (${check.provider})` : ''}: ${check.title}`));
      lines.push(...(check.detail ?? 'failed').split('\n').map((line) => `    ${line}`));
    }
  }
  if (report.notes && report.notes.length > 0) {
    lines.push('', ...report.notes);
  }
  return `${lines.join('\n')}\n`;
}

export function countChecks(checks: readonly CheckResult[]): Record<CheckResult['status'], number> {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const check of checks) counts[check.status]++;
  return counts;
}

/** One row (a ledger record) reads best as fields down the page; several as a table. */
function formatRows(rows: NonNullable<CommandReport['rows']>): string[] {
  const keys = Object.keys(rows[0]!);
  if (rows.length === 1) {
    return formatTable(
      [{ header: 'field' }, { header: 'value' }],
      keys.map((key) => [key, cell(rows[0]![key])]),
    );
  }
  return formatTable(
    keys.map((header) => ({ header })),
    rows.map((row) => keys.map((key) => cell(row[key]))),
  );
}

/**
 * Always columns, even for one row, each cell on one line and cut: a listing's text (a response
 * sample) can be long, and --json has it whole.
 */
function formatListing(rows: NonNullable<CommandReport['rows']>): string[] {
  const keys = Object.keys(rows[0]!);
  return formatTable(
    keys.map((header) => ({ header })),
    rows.map((row) => keys.map((key) => oneLine(cell(row[key])))),
  );
}

function oneLine(text: string): string {
  const line = text.replace(/\r\n|\r|\n/g, '⏎').replace(/\t/g, ' ');
  return line.length > MAX_CELL_CHARS ? `${line.slice(0, MAX_CELL_CHARS - 1)}…` : line;
}

function cell(value: string | number | boolean | null | undefined): string {
  return value === null || value === undefined ? '-' : String(value);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > MAX_CELL_CHARS ? `${line.slice(0, MAX_CELL_CHARS - 1)}…` : line;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
