/**
 * Tables and cards for a terminal (a pipe gets tsv.ts): cli-table3, chalk, string-width so emoji and CJK line up.
 * Every cell is sanitised first, as it may hold the server's text; no table is wider than the terminal. The rest of
 * gymctl loads this module alone (its own side file), which imports the other table-*.ts.
 */
import stringWidth from 'string-width';
import type { IO } from '../terminal/io.js';
import { bottomBorder, CHUNK_ROWS, drawBox, frameOf } from './table-box.js';
import { cutsFromStart, fitColumns, fitWidths, keepEnd, streamWidths } from './table-fit.js';
import { drawColumns, isEmpty, paint, plainRows } from './table-plain.js';
import { balanceWraps, wrapText } from './table-wrap.js';
import { sanitizeCell } from './sanitize.js';
import { cellText, tsvTable, type Column } from './tsv.js';

export type { Column } from './tsv.js';
export { CHUNK_ROWS, drawBox } from './table-box.js';
export { fitWidths, keepEnd, streamWidths, yieldRank } from './table-fit.js';
export { drawColumns, paint } from './table-plain.js';

/** Spaces between the columns of an accessible table. */
const PLAIN_GAP = 2;

const plainFrame = (count: number) => Math.max(0, count - 1) * PLAIN_GAP;

/** The terminal's width, if it says. */
const widthOf = (io: IO) => (io.stdout.columns && io.stdout.columns > 0 ? io.stdout.columns : undefined);

/** Each record's cells as text, made safe; an empty cell undefined. */
const cellTexts = <T>(columns: readonly Column<T>[], records: readonly T[]) =>
  records.map((record) =>
    columns.map((column) => {
      const cell = (column.display ?? column.value)(record);
      return isEmpty(cell) ? undefined : cellText(cell);
    }),
  );

/** A table written a part at a time, in the first part's widths, the parts joining into one box (or aligned columns). */
export interface TableParts<T> {
  /** The first part: the top of the box, the header row and these records; the widths, theirs and the terminal's room, hold from now on. */
  start(records: readonly T[]): string;
  /** More records, in the same columns. */
  more(records: readonly T[]): string;
  /** The last records (none, or more), and the box's bottom. */
  end(records?: readonly T[]): string;
}

/** `widest`: by column key, the widest text its cells will hold, where it is known before the rows arrive (a batch's ids). */
export function tableParts<T>(io: IO, columns: readonly Column<T>[], headers = true, widest: Readonly<Record<string, string>> = {}): TableParts<T> {
  const width = widthOf(io);
  const labels = columns.map((column) => sanitizeCell(column.label));
  const known = columns.map((column) => {
    const text = widest[column.key];
    return text === undefined ? undefined : stringWidth(sanitizeCell(text));
  });
  if (io.accessible) {
    let widths: number[] | undefined;
    const options = { gap: PLAIN_GAP, color: io.color };
    return {
      start(records) {
        const rows = [...(headers ? [columns.map((column) => column.label)] : []), ...plainRows(columns, records)];
        // The boxed table's widths, for columns without a box: as wide as the terminal at most, a batch's ids never cut.
        widths = streamWidths(fitColumns(columns, labels, cellTexts(columns, records), headers), plainFrame(columns.length), width, known);
        return drawColumns(rows, { ...options, header: headers, widths });
      },
      more: (records) => drawColumns(plainRows(columns, records), { ...options, widths: widths! }),
      end: (records = []) => drawColumns(plainRows(columns, records), { ...options, widths: widths! }),
    };
  }
  const chalk = paint(io.color);
  const dash = chalk.dim('-');
  const rowsOf = (records: readonly T[]) => cellTexts(columns, records).map((row) => row.map((text) => text ?? dash));
  let widths: number[] = [];
  return {
    start(records) {
      widths = streamWidths(fitColumns(columns, labels, cellTexts(columns, records), headers), frameOf(columns.length), widthOf(io), known);
      return drawBox(widths, headers ? labels.map((label) => chalk.bold(label)) : undefined, rowsOf(records), CHUNK_ROWS, { bottom: false });
    },
    more: (records) => (records.length === 0 ? '' : drawBox(widths, undefined, rowsOf(records), CHUNK_ROWS, { top: false, bottom: false })),
    // The last rows are drawn with the bottom; with none left, cli-table3 draws it under a blank row, which is left out.
    end: (records = []) => (records.length === 0 ? bottomBorder(widths) : drawBox(widths, undefined, rowsOf(records), CHUNK_ROWS, { top: false })),
  };
}

/**
 * Several records, one a row, in a box no wider than the terminal; the header row unless `headers` is false. `wrap`: keys of
 * the columns whose cells are sentences a reader needs whole (a fix to run), wrapped in their column, never cut.
 */
export function renderTable<T>(io: IO, columns: readonly Column<T>[], records: readonly T[], headers = true, chunkRows = CHUNK_ROWS, wrap: readonly string[] = []): string {
  if (!io.stdoutIsTTY) return tsvTable(columns, records, headers);
  const chalk = paint(io.color);
  const texts = cellTexts(columns, records);
  const labels = columns.map((column) => sanitizeCell(column.label));
  // Accessible: no box, which a screen reader reads aloud; aligned columns in the room the box would have.
  const frame = io.accessible ? plainFrame(columns.length) : frameOf(columns.length);
  const widths = fitWidths(fitColumns(columns, labels, texts, headers), frame, widthOf(io));
  const fromStart = columns.map((column) => cutsFromStart(column.key));
  const wraps = columns.map((column) => wrap.includes(column.key));
  balanceWraps(widths, wraps, texts);
  const fitted = (text: string, i: number) => (wraps[i] ? wrapText(text, widths[i]!) : fromStart[i] ? keepEnd(text, widths[i]!) : text);
  if (io.accessible) {
    // A wrapped cell goes over as lines, which drawColumns keeps apart.
    const rows = texts.map((row) => row.map((text, i) => (text === undefined ? undefined : wraps[i] ? fitted(text, i).split('\n') : fitted(text, i))));
    return drawColumns(headers ? [labels, ...rows] : rows, { gap: PLAIN_GAP, header: headers, color: io.color, widths });
  }
  const dash = chalk.dim('-');
  const rows = texts.map((row) => row.map((text, i) => (text === undefined ? dash : fitted(text, i))));
  return drawBox(widths, headers ? labels.map((label) => chalk.bold(label)) : undefined, rows, chunkRows);
}

/** One record, a field a row, as a card; one header row and one line in a pipe. */
export function renderCard<T>(io: IO, columns: readonly Column<T>[], record: T): string {
  if (!io.stdoutIsTTY) return tsvTable(columns, [record]);
  const rows = columns.map((column) => [column.label, (column.display ?? column.value)(record)] as const);
  if (io.accessible) return rows.map(([label, cell]) => `${label}: ${isEmpty(cell) ? '-' : cellText(cell)}\n`).join('');
  const width = widthOf(io);
  return drawColumns(rows, { gap: 3, labels: true, color: io.color, ...(width ? { width } : {}) });
}
