/**
 * Tables for people, lines for pipes. On a terminal, records are drawn in
 * a box, fitted to the terminal's width (long cells cut with …), header
 * and labels bold when there is colour; otherwise they are tab-separated
 * lines (tsv.ts). Rendering is linear in the number of rows. Every cell is
 * sanitised: it may hold text from the server.
 */
import type { IO } from '../terminal/io.js';
import { cellText, tsvHeader, tsvRow, type Cell, type Column } from './tsv.js';
import { displayWidth, fitWidths, truncate } from './width.js';

export type { Cell, Column } from './tsv.js';

const bold = (text: string) => `\u001b[1m${text}\u001b[22m`;
const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;

function tsv<T>(columns: readonly Column<T>[], records: readonly T[], headers = true): string {
  return (headers ? tsvHeader(columns) : '') + records.map((r) => tsvRow(columns, r)).join('');
}

const isEmpty = (cell: Cell) => cell === null || cell === undefined || cell === '';

/** The terminal's width, if it says. */
const widthOf = (io: IO) => (io.stdout.columns && io.stdout.columns > 0 ? io.stdout.columns : undefined);

/** Several records, one a row, in a box no wider than the terminal; the header row unless `headers` is false. */
export function renderTable<T>(io: IO, columns: readonly Column<T>[], records: readonly T[], headers = true): string {
  if (!io.stdoutIsTTY) return tsv(columns, records, headers);
  const rows = records.map((record) => columns.map((column) => (column.display ?? column.value)(record)));
  const texts = rows.map((row) => row.map((cell) => (isEmpty(cell) ? '-' : cellText(cell))));
  const natural = columns.map((column, i) => texts.reduce((max, row) => Math.max(max, displayWidth(row[i]!)), headers ? displayWidth(column.label) : 1));
  // "│ " before each column, " " after it, and the closing "│".
  const widths = fitWidths(natural, columns.length * 3 + 1, widthOf(io));
  const line = (left: string, middle: string, right: string) => `${left}${widths.map((w) => '─'.repeat(w + 2)).join(middle)}${right}\n`;
  const row = (cells: string[], style: (text: string, i: number) => string) =>
    `│ ${cells
      .map((text, i) => {
        const shown = truncate(text, widths[i]!);
        return style(shown, i) + ' '.repeat(widths[i]! - displayWidth(shown));
      })
      .join(' │ ')} │\n`;
  let out = line('┌', '┬', '┐');
  if (headers) out += row(columns.map((c) => c.label), (text) => (io.color ? bold(text) : text));
  texts.forEach((cells, r) => {
    out += row(cells, (text, i) => (io.color && isEmpty(rows[r]![i]) ? dim(text) : text));
  });
  return out + line('└', '┴', '┘');
}

/** One record, a field a row, as a card; one header row and one line in a pipe. */
export function renderCard<T>(io: IO, columns: readonly Column<T>[], record: T): string {
  if (!io.stdoutIsTTY) return tsv(columns, [record]);
  const labelWidth = Math.max(...columns.map((c) => displayWidth(c.label)));
  const available = widthOf(io);
  const valueWidth = available ? Math.max(available - labelWidth - 3, 8) : Number.POSITIVE_INFINITY;
  return columns
    .map((column) => {
      const cell = (column.display ?? column.value)(record);
      const value = isEmpty(cell) ? (io.color ? dim('-') : '-') : truncate(cellText(cell), valueWidth);
      const padding = ' '.repeat(labelWidth - displayWidth(column.label));
      return `${io.color ? bold(column.label) : column.label}${padding}   ${value}\n`;
    })
    .join('');
}
