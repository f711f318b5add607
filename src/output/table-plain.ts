/** Columns without a box (accessible output, cards, the sandbox's keys), and chalk at the level gymctl decided. */
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import stringWidth from 'string-width';
import { NO_BOTTOM, NO_TOP } from './table-box.js';
import { cellText, type Cell, type Column } from './tsv.js';

/** chalk at the level gymctl decided (terminal/io.ts), never one it works out itself; bold and dim need only level 1. */
const chalks: ChalkInstance[] = [];
export const paint = (color: boolean): ChalkInstance => (chalks[color ? 1 : 0] ??= new Chalk({ level: color ? 1 : 0 }));

export const isEmpty = (cell: Cell) => cell === null || cell === undefined || cell === '';

export const plainRows = <T>(columns: readonly Column<T>[], records: readonly T[]) => records.map((record) => columns.map((column) => (column.display ?? column.value)(record)));

export interface PlainOptions {
  /** The terminal's width, if known: the last column is cut with … to fit it. */
  width?: number;
  /** Spaces between the columns. */
  gap: number;
  /** Spaces before the first column. */
  indent?: number;
  /** Bold the first column (a card's labels). */
  labels?: boolean;
  /** Bold the first row (a table's header). */
  header?: boolean;
  color: boolean;
  /** The columns' widths, when they are those of earlier rows (a table written a part at a time). */
  widths?: readonly number[];
}

/** A cell given as lines is a sentence wrapped to its column. */
type PlainRow = ReadonlyArray<Cell | readonly string[]>;

/** Each row's cells as text, made safe (a cell given as lines, its lines joined by newlines); an empty cell undefined. */
const textsOf = (rows: ReadonlyArray<PlainRow>) =>
  rows.map((row) => row.map((cell) => (Array.isArray(cell) ? cell.map(cellText).join('\n') : isEmpty(cell as Cell) ? undefined : cellText(cell as Cell))));

/** The widths `drawColumns` gives these rows: each column's widest cell (its widest line), the last cut to the terminal's width. */
export function columnWidths(rows: ReadonlyArray<PlainRow>, options: PlainOptions): number[] {
  const texts = textsOf(rows);
  const count = Math.max(0, ...rows.map((row) => row.length));
  const wide = (text: string) => Math.max(...text.split('\n').map((line) => stringWidth(line)));
  const natural = Array.from({ length: count }, (_, i) => Math.max(1, ...texts.map((row) => (row[i] === undefined ? 1 : wide(row[i]!)))));
  const indent = options.indent ?? 0;
  if (options.width && count > 0) {
    const before = natural.slice(0, -1).reduce((sum, w) => sum + w + options.gap, indent);
    natural[count - 1] = Math.min(natural[count - 1]!, Math.max(options.width - before, 8));
  }
  return natural;
}

/** Aligned columns, each line trimmed at its end, an empty cell a dim -; cells are sanitised here. */
export function drawColumns(rows: ReadonlyArray<PlainRow>, options: PlainOptions): string {
  if (rows.length === 0) return '';
  const chalk = paint(options.color);
  const texts = textsOf(rows);
  const natural = [...(options.widths ?? columnWidths(rows, options))];
  const count = natural.length;
  const indent = options.indent ?? 0;
  const none = { ...NO_TOP, ...NO_BOTTOM, 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '' };
  const table = new Table({
    colWidths: natural,
    chars: { ...none, left: ' '.repeat(indent), middle: ' '.repeat(options.gap) },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    truncate: '…',
    wordWrap: false,
  });
  table.push(
    ...texts.map((row, r) =>
      Array.from({ length: count }, (_, i) => {
        const text = row[i];
        if (text === undefined) return chalk.dim('-');
        return (i === 0 && options.labels) || (r === 0 && options.header) ? chalk.bold(text) : text;
      }),
    ),
  );
  return `${table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')}\n`;
}
