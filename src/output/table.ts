/**
 * Tables and cards for people at a terminal: drawn by cli-table3, coloured
 * by chalk, widths measured by string-width (the measure cli-table3 cuts
 * and pads by), so that emoji, CJK and combining marks line up. In a pipe
 * the same records are tab-separated lines (tsv.ts), and this module is
 * loaded only to draw for a terminal.
 *
 * Every cell is sanitised before cli-table3 sees it: it may hold text from
 * the server. A table is never wider than the terminal: the least telling
 * columns (URLs and e-mail addresses) give way first, ids last, and long
 * cells are cut with …. cli-table3's layout is quadratic in its rows, so a
 * long table is drawn in chunks that share the column widths, joined into
 * one box: linear in rows, and the same text as one piece.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import stringWidth from 'string-width';
import type { IO } from '../terminal/io.js';
import { sanitizeCell } from './sanitize.js';
import { cellText, tsvTable, type Cell, type Column } from './tsv.js';

export type { Cell, Column } from './tsv.js';

/** Rows a chunk of a long table holds: cli-table3's layout check costs rows² within a chunk. */
export const CHUNK_ROWS = 200;

/** A column is cut to no fewer than this many characters while another column can still give way. */
const MIN_WIDTH = 5;

/**
 * chalk with the level gymctl decided (terminal, NO_COLOR, FORCE_COLOR,
 * --no-color, TERM=dumb: see terminal/io.ts), never one chalk works out
 * for itself. Bold and dim are all gymctl uses: level 1 has them.
 */
const chalks = new Map<boolean, ChalkInstance>();
export const paint = (color: boolean): ChalkInstance => {
  let chalk = chalks.get(color);
  if (!chalk) {
    chalk = new Chalk({ level: color ? 1 : 0 });
    chalks.set(color, chalk);
  }
  return chalk;
};

const isEmpty = (cell: Cell) => cell === null || cell === undefined || cell === '';

/** The terminal's width, if it says. */
const widthOf = (io: IO) => (io.stdout.columns && io.stdout.columns > 0 ? io.stdout.columns : undefined);

/**
 * How readily a column gives way when the table is too wide, by its
 * field name: URLs and e-mail addresses first (3), then other text (2),
 * names (1), and ids last (0).
 */
export function yieldRank(key: string): number {
  const field = key.split('.').pop()!;
  if (/(url|email)$/i.test(field) || field === 'thumbnail' || field === 'large') return 3;
  if (field === 'id' || /Id$/.test(field) || field === 'familyOf' || field === 'active') return 0;
  if (/name$/i.test(field) || field === 'profile') return 1;
  return 2;
}

/** Cuts the widest of `indexes` down, evenly, until `excess` is gone or each is at `minimum`; the excess left. */
function shrink(widths: number[], indexes: readonly number[], excess: number, minimum: number): number {
  while (excess > 0) {
    const candidates = indexes.filter((i) => widths[i]! > minimum);
    if (candidates.length === 0) break;
    const widest = Math.max(...candidates.map((i) => widths[i]!));
    const atWidest = candidates.filter((i) => widths[i] === widest);
    const next = Math.max(minimum, ...candidates.map((i) => widths[i]!).filter((w) => w < widest));
    const room = (widest - next) * atWidest.length;
    if (room < excess) {
      for (const i of atWidest) widths[i] = next;
      excess -= room;
      continue;
    }
    atWidest.forEach((i, n) => {
      widths[i] = widest - Math.floor(excess / atWidest.length) - (n < excess % atWidest.length ? 1 : 0);
    });
    excess = 0;
  }
  return excess;
}

/**
 * Column widths that fit `available` columns in all, given each column's
 * natural width, how readily it gives way (yieldRank) and the columns its
 * frame takes. Columns give way a rank at a time, widest first, down to
 * MIN_WIDTH; only then does every column go down to 2 (a character and …).
 */
export function fitWidths(natural: readonly number[], ranks: readonly number[], frame: number, available: number | undefined): number[] {
  const widths = [...natural];
  if (!available) return widths;
  let excess = widths.reduce((sum, w) => sum + w, frame) - available;
  for (const rank of [...new Set(ranks)].sort((a, b) => b - a)) {
    if (excess <= 0) break;
    excess = shrink(
      widths,
      ranks.flatMap((r, i) => (r === rank ? [i] : [])),
      excess,
      MIN_WIDTH,
    );
  }
  if (excess > 0)
    shrink(
      widths,
      widths.map((_, i) => i),
      excess,
      2,
    );
  return widths;
}

const NO_TOP = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '' };
const NO_BOTTOM = { bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '' };

/**
 * A box of `rows` under `head` (a rule between them), each column
 * `widths[i]` characters inside its padding, cells cut with … to fit.
 * Drawn `chunkRows` rows at a time: every chunk but the first leaves out
 * its top border, every one but the last its bottom, so the chunks join
 * into the box one piece would give.
 */
export function drawBox(widths: readonly number[], head: readonly string[] | undefined, rows: readonly string[][], chunkRows = CHUNK_ROWS): string {
  const colWidths = widths.map((w) => w + 2);
  const chunks = Math.max(1, Math.ceil(rows.length / chunkRows));
  const parts: string[] = [];
  for (let k = 0; k < chunks; k++) {
    const first = k === 0;
    const last = k === chunks - 1;
    const table = new Table({
      colWidths,
      head: first && head ? [...head] : [],
      chars: { ...(first ? {} : NO_TOP), ...(last ? {} : NO_BOTTOM) },
      style: { head: [], border: [], compact: true },
      truncate: '…',
      wordWrap: false,
    });
    table.push(...rows.slice(k * chunkRows, (k + 1) * chunkRows));
    const text = table.toString();
    if (text) parts.push(text);
  }
  return parts.length ? `${parts.join('\n')}\n` : '';
}

/** Several records, one a row, in a box no wider than the terminal; the header row unless `headers` is false. */
export function renderTable<T>(io: IO, columns: readonly Column<T>[], records: readonly T[], headers = true, chunkRows = CHUNK_ROWS): string {
  if (!io.stdoutIsTTY) return tsvTable(columns, records, headers);
  const width = widthOf(io);
  // Accessible: no box, which a screen reader reads aloud; the columns aligned, the header row bold.
  if (io.accessible) {
    const rows = records.map((record) => columns.map((column) => (column.display ?? column.value)(record)));
    return drawColumns(headers ? [columns.map((column) => column.label), ...rows] : rows, { gap: 2, header: headers, color: io.color, ...(width ? { width } : {}) });
  }
  const chalk = paint(io.color);
  const texts = records.map((record) =>
    columns.map((column) => {
      const cell = (column.display ?? column.value)(record);
      return isEmpty(cell) ? undefined : cellText(cell);
    }),
  );
  const labels = columns.map((column) => sanitizeCell(column.label));
  const natural = columns.map((_, i) => texts.reduce((max, row) => Math.max(max, row[i] === undefined ? 1 : stringWidth(row[i]!)), headers ? stringWidth(labels[i]!) : 1));
  // "│ " before each column, " " after it, and the closing "│".
  const widths = fitWidths(
    natural,
    columns.map((column) => yieldRank(column.key)),
    columns.length * 3 + 1,
    width,
  );
  const dash = chalk.dim('-');
  const rows = texts.map((row) => row.map((text) => text ?? dash));
  return drawBox(widths, headers ? labels.map((label) => chalk.bold(label)) : undefined, rows, chunkRows);
}

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
}

/**
 * Columns without a box, aligned, each line trimmed at its end: a card's
 * labels and values, a status, the sandbox's keys. Empty cells show as a
 * dim -. Cells are sanitised here.
 */
export function drawColumns(rows: ReadonlyArray<readonly Cell[]>, options: PlainOptions): string {
  if (rows.length === 0) return '';
  const chalk = paint(options.color);
  const texts = rows.map((row) => row.map((cell) => (isEmpty(cell) ? undefined : cellText(cell))));
  const count = Math.max(...rows.map((row) => row.length));
  const natural = Array.from({ length: count }, (_, i) => Math.max(1, ...texts.map((row) => (row[i] === undefined ? 1 : stringWidth(row[i]!)))));
  const indent = options.indent ?? 0;
  if (options.width) {
    const before = natural.slice(0, -1).reduce((sum, w) => sum + w + options.gap, indent);
    natural[count - 1] = Math.min(natural[count - 1]!, Math.max(options.width - before, 8));
  }
  const none = Object.fromEntries(
    ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid'].map((name) => [
      name,
      '',
    ]),
  );
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

/** One record, a field a row, as a card; one header row and one line in a pipe. */
export function renderCard<T>(io: IO, columns: readonly Column<T>[], record: T): string {
  if (!io.stdoutIsTTY) return tsvTable(columns, [record]);
  // Accessible: plain `Label: value` lines, read in order.
  if (io.accessible) {
    return columns
      .map((column) => {
        const cell = (column.display ?? column.value)(record);
        return `${column.label}: ${isEmpty(cell) ? '-' : cellText(cell)}\n`;
      })
      .join('');
  }
  const rows = columns.map((column) => [column.label, (column.display ?? column.value)(record)]);
  const width = widthOf(io);
  return drawColumns(rows, { gap: 3, labels: true, color: io.color, ...(width ? { width } : {}) });
}
