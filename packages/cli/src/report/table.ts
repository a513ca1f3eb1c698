export interface Column {
  header: string;
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right';
}

/**
 * A plain text table. Cells are measured before colour is applied (`paint` wraps the padded
 * text), so escape codes never throw the columns out of line.
 */
export function formatTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  paint: (row: number, column: number, text: string) => string = (_r, _c, text) => text,
): string[] {
  const cells = rows.map((row) => row.map((cell) => cell.replace(/\s*\n\s*/g, ' ')));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((row) => (row[i] ?? '').length)),
  );
  const line = (row: readonly string[], index: number) =>
    columns
      .map((column, i) => {
        const text = row[i] ?? '';
        const padded = column.align === 'right' ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
        return index < 0 ? padded : paint(index, i, padded);
      })
      .join('  ')
      .trimEnd();
  return [
    line(
      columns.map((c) => c.header),
      -1,
    ),
    ...cells.map((row, index) => line(row, index)),
  ];
}
