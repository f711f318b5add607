/**
 * Tables and cards for people at a terminal: drawn by cli-table3, coloured
 * by chalk, widths measured by string-width (the measure cli-table3 cuts
 * and pads by), so that emoji, CJK and combining marks line up. In a pipe
 * the same records are tab-separated lines (tsv.ts), and this module is
 * loaded only to draw for a terminal.
 *
 * Every cell is sanitised before cli-table3 sees it: it may hold text from
 * the server. A table is never wider than the terminal: characters are
 * taken where they cut least (long cells in few rows, URLs and e-mail
 * addresses readily), headers only after the data, ids last, and cut cells
 * end in …. cli-table3's layout is quadratic in its rows, so a
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

/** A column's cells are cut to no fewer than this many characters while another column can still give way. */
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
  // Where a profile points: as telling as a name (its port may be all that tells two apart), not a link to look at.
  if (field === 'baseUrl') return 1;
  // A sentence (a profile's status): its start says what it is, so it gives way as readily as a link.
  if (field === 'status' || field === 'message') return 3;
  if (/(url|email)$/i.test(field) || field === 'thumbnail' || field === 'large') return 3;
  if (field === 'id' || /Id$/.test(field) || field === 'familyOf' || field === 'active') return 0;
  if (/name$/i.test(field) || field === 'profile') return 1;
  return 2;
}

/** What fitting knows of a column: its cells' widths, its header's, and how readily it gives way (yieldRank). */
export interface FitColumn {
  /** The width of each cell of data (an empty cell's dash is 1). */
  cells: readonly number[];
  /** The header's width (0 with no header row). */
  label: number;
  rank: number;
  /** Never cut (a streamed table's ids): the column keeps its natural width whatever the terminal's. */
  whole?: boolean;
}

/** What a character taken from a column costs, by rank: URLs and e-mail addresses least, names a little more than other text (ids give way only once nothing else can). */
const WEIGHTS = [4, 1.25, 1, 0.5];

/**
 * Column widths that fit `available` columns in all (the frame takes
 * `frame` of them). A character at a time is taken from the column where it
 * costs least: the cells it cuts (or cuts further), each weighed by the
 * share of what it still shows that it loses (1/width), times the column's
 * weight by rank. So a column with one long cell (a long status message)
 * gives way before one whose every cell is as wide as it (base URLs), and
 * a long name before a short city. Headers are cut only when no cell can
 * give way any more (cells go down to their header, or MIN_WIDTH), then
 * ids, down to MIN_WIDTH; then every column goes down to 2 (a character
 * and …).
 */
export function fitWidths(columns: readonly FitColumn[], frame: number, available: number | undefined): number[] {
  const sorted = columns.map((column) => [...column.cells].sort((a, b) => a - b));
  const natural = columns.map((column, i) => Math.max(1, column.label, sorted[i]!.at(-1) ?? 0));
  const widths = [...natural];
  if (!available) return widths;
  let excess = widths.reduce((sum, w) => sum + w, frame) - available;
  /** Cells (the header too, when `headers`) a character less would cut: those at least `width` wide. */
  const cut = (i: number, width: number, headers: boolean) => {
    const cells = sorted[i]!;
    let low = 0;
    let high = cells.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cells[middle]! < width) low = middle + 1;
      else high = middle;
    }
    return cells.length - low + (headers && columns[i]!.label >= width ? 1 : 0);
  };
  const passes: Array<{ floor: (i: number) => number; headers: boolean }> = [
    // Data gives way, never an id, never a header.
    { floor: (i) => (columns[i]!.rank === 0 ? natural[i]! : Math.max(columns[i]!.label, Math.min(natural[i]!, MIN_WIDTH))), headers: false },
    // Then headers, then ids, then everything.
    { floor: (i) => (columns[i]!.rank === 0 ? natural[i]! : Math.min(natural[i]!, MIN_WIDTH)), headers: true },
    { floor: (i) => Math.min(natural[i]!, MIN_WIDTH), headers: true },
    { floor: () => 2, headers: true },
  ];
  for (const { floor, headers } of passes) {
    while (excess > 0) {
      let best = -1;
      let bestCost = Number.POSITIVE_INFINITY;
      for (let i = 0; i < widths.length; i++) {
        const width = widths[i]!;
        if (width <= (columns[i]!.whole ? natural[i]! : floor(i))) continue;
        const cost = ((WEIGHTS[columns[i]!.rank] ?? 1) * cut(i, width, headers)) / width;
        // Equal costs: the wider column first.
        if (cost < bestCost || (cost === bestCost && width > widths[best]!)) {
          best = i;
          bestCost = cost;
        }
      }
      if (best < 0) break;
      widths[best]!--;
      excess--;
    }
  }
  return widths;
}

const NO_TOP = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '' };
const NO_BOTTOM = { bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '' };

/** Which edges of the box a drawing closes: a streamed table opens with its top and closes with its bottom, drawn apart. */
export interface Edges {
  top?: boolean;
  bottom?: boolean;
}

/**
 * A box of `rows` under `head` (a rule between them), each column
 * `widths[i]` characters inside its padding, cells cut with … to fit.
 * Drawn `chunkRows` rows at a time: every chunk but the first leaves out
 * its top border, every one but the last its bottom, so the chunks join
 * into the box one piece would give. `edges` leaves out the box's own top
 * or bottom, for a table written a part at a time.
 */
export function drawBox(widths: readonly number[], head: readonly string[] | undefined, rows: readonly string[][], chunkRows = CHUNK_ROWS, edges: Edges = {}): string {
  const colWidths = widths.map((w) => w + 2);
  const chunks = Math.max(1, Math.ceil(rows.length / chunkRows));
  const parts: string[] = [];
  for (let k = 0; k < chunks; k++) {
    const first = k === 0 && edges.top !== false;
    const last = k === chunks - 1 && edges.bottom !== false;
    const table = new Table({
      colWidths,
      head: k === 0 && head ? [...head] : [],
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

/** The box's bottom border alone, as cli-table3 draws it under a row. */
function bottomBorder(widths: readonly number[]): string {
  const lines = drawBox(widths, undefined, [widths.map(() => '')], CHUNK_ROWS, { top: false }).split('\n');
  return `${lines.at(-2)}\n`;
}

/** Each record's cells as text, made safe; an empty cell undefined. */
const cellTexts = <T>(columns: readonly Column<T>[], records: readonly T[]) =>
  records.map((record) =>
    columns.map((column) => {
      const cell = (column.display ?? column.value)(record);
      return isEmpty(cell) ? undefined : cellText(cell);
    }),
  );

/** What fitting knows of each column, from these rows' cells and the labels. */
function fitColumns<T>(columns: readonly Column<T>[], labels: readonly string[], texts: ReadonlyArray<ReadonlyArray<string | undefined>>, headers: boolean): FitColumn[] {
  return columns.map(
    (column, i): FitColumn => ({
      cells: texts.map((row) => (row[i] === undefined ? 1 : stringWidth(row[i]!))),
      label: headers ? stringWidth(labels[i]!) : 0,
      rank: yieldRank(column.key),
    }),
  );
}

/** "│ " before each column, " " after it, and the closing "│". */
const frameOf = (count: number) => count * 3 + 1;

/** Widths that fit the terminal, from these rows' cells and the labels. */
function boxWidths<T>(io: IO, columns: readonly Column<T>[], labels: readonly string[], texts: ReadonlyArray<ReadonlyArray<string | undefined>>, headers: boolean) {
  return fitWidths(fitColumns(columns, labels, texts, headers), frameOf(columns.length), widthOf(io));
}

/**
 * The widths of a table written a part at a time, fixed from its first
 * part, for rows not yet seen: a column whose widest cell is known before
 * the rows arrive (`widest`: a batch's ids, all checked before the first
 * request) is that wide, and no id column is ever cut; room the terminal
 * has to spare goes, a character at a time, to the columns the first part
 * had to cut, then to those whose cells vary in width (names, cities:
 * later rows may be longer), each up to half as wide again, never to a
 * column whose every cell is one width (codes, currencies, dates).
 */
export function streamWidths(columns: readonly FitColumn[], frame: number, available: number | undefined, widest: ReadonlyArray<number | undefined> = []): number[] {
  const fit = columns.map((column, i): FitColumn => {
    const known = widest[i];
    const cells = known === undefined ? column.cells : [...column.cells, known];
    return { ...column, cells, ...(column.rank === 0 ? { whole: true } : {}) };
  });
  const widths = fitWidths(fit, frame, available);
  if (!available) return widths;
  let spare = available - widths.reduce((sum, w) => sum + w, frame);
  const natural = fit.map((column) => Math.max(1, column.label, ...column.cells));
  const varies = fit.map((column) => column.cells.length > 0 && Math.min(...column.cells) < Math.max(...column.cells));
  /** How wide a column may grow: what the first part held, then half as wide again for text whose width varies. */
  const limit = fit.map((column, i) => (column.rank === 0 || widest[i] !== undefined ? natural[i]! : varies[i] ? natural[i]! + Math.ceil(natural[i]! / 2) : natural[i]!));
  while (spare > 0) {
    // The cut columns first, then the growing ones: the one that has grown least for its width.
    let best = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! >= limit[i]!) continue;
      const cut = widths[i]! < natural[i]!;
      const bestCut = best >= 0 && widths[best]! < natural[best]!;
      if (best < 0 || (cut && !bestCut) || (cut === bestCut && widths[i]! / natural[i]! < widths[best]! / natural[best]!)) best = i;
    }
    if (best < 0) break;
    widths[best]!++;
    spare--;
  }
  return widths;
}

/** A base URL is cut at its start: its end (host and port) is what tells profiles apart. */
const cutsFromStart = (key: string) => key.split('.').pop() === 'baseUrl';

/** `text` in `width` columns: whole if it fits, else `…` and as much of its end as fits. */
export function keepEnd(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  const chars = [...text];
  let kept = '';
  let used = 1;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = stringWidth(chars[i]!);
    if (used + w > width) break;
    kept = chars[i]! + kept;
    used += w;
  }
  return `…${kept}`;
}

/** Accessible rows: the cells as the plain columns take them. */
const plainRows = <T>(columns: readonly Column<T>[], records: readonly T[]) => records.map((record) => columns.map((column) => (column.display ?? column.value)(record)));

/**
 * A table written a part at a time, as a batch's records arrive: the
 * widths are those of the first part (later cells wider than their column
 * are cut with …), so each part is drawn as it comes and the parts join
 * into one box (or, accessible, one set of aligned columns).
 */
export interface TableParts<T> {
  /** The first part: the top of the box, the header row and these records; the widths are theirs from now on. */
  start(records: readonly T[]): string;
  /** More records, in the same columns. */
  more(records: readonly T[]): string;
  /** The last records (none, or more), and the box's bottom. */
  end(records?: readonly T[]): string;
}

export interface PartsOptions {
  /** By column key, the widest text its cells will hold, where it is known before the rows arrive: a batch's ids. */
  widest?: Readonly<Record<string, string>>;
}

export function tableParts<T>(io: IO, columns: readonly Column<T>[], headers = true, hints: PartsOptions = {}): TableParts<T> {
  const width = widthOf(io);
  if (io.accessible) {
    let widths: number[] | undefined;
    const options = { gap: 2, color: io.color, ...(width ? { width } : {}) };
    return {
      start(records) {
        const rows = [...(headers ? [columns.map((column) => column.label)] : []), ...plainRows(columns, records)];
        // A column whose widest cell is known (a batch's ids) is that wide from the start.
        widths = columnWidths(rows, options).map((width, i) => {
          const text = hints.widest?.[columns[i]!.key];
          return text === undefined ? width : Math.max(width, stringWidth(sanitizeCell(text)));
        });
        return drawColumns(rows, { ...options, header: headers, widths });
      },
      more: (records) => drawColumns(plainRows(columns, records), { ...options, widths: widths! }),
      end: (records = []) => drawColumns(plainRows(columns, records), { ...options, widths: widths! }),
    };
  }
  const chalk = paint(io.color);
  const labels = columns.map((column) => sanitizeCell(column.label));
  const dash = chalk.dim('-');
  const rowsOf = (records: readonly T[]) => cellTexts(columns, records).map((row) => row.map((text) => text ?? dash));
  let widths: number[] = [];
  return {
    start(records) {
      const widest = columns.map((column) => {
        const text = hints.widest?.[column.key];
        return text === undefined ? undefined : stringWidth(sanitizeCell(text));
      });
      widths = streamWidths(fitColumns(columns, labels, cellTexts(columns, records), headers), frameOf(columns.length), widthOf(io), widest);
      return drawBox(widths, headers ? labels.map((label) => chalk.bold(label)) : undefined, rowsOf(records), CHUNK_ROWS, { bottom: false });
    },
    more: (records) => (records.length === 0 ? '' : drawBox(widths, undefined, rowsOf(records), CHUNK_ROWS, { top: false, bottom: false })),
    // The last rows are drawn with the bottom; with none left, cli-table3 draws it under a blank row, which is left out.
    end: (records = []) => (records.length === 0 ? bottomBorder(widths) : drawBox(widths, undefined, rowsOf(records), CHUNK_ROWS, { top: false })),
  };
}

/**
 * `text` in lines of at most `width` columns, broken between words, a word
 * wider than the line split where it must: nothing is lost.
 */
export function wrapText(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word;
    let size = stringWidth(rest);
    if (used > 0 && used + 1 + size <= width) {
      line += ` ${rest}`;
      used += 1 + size;
      continue;
    }
    if (used > 0) lines.push(line);
    line = '';
    used = 0;
    while (size > width) {
      let head = '';
      let headSize = 0;
      for (const char of rest) {
        const w = stringWidth(char);
        if (headSize + w > width && headSize > 0) break;
        head += char;
        headSize += w;
      }
      lines.push(head);
      rest = rest.slice(head.length);
      size = stringWidth(rest);
    }
    line = rest;
    used = size;
  }
  if (used > 0 || lines.length === 0) lines.push(line);
  return lines.join('\n');
}

/**
 * Wrapped columns lose nothing when narrowed, only add lines: their room
 * is shared where it takes the table's rows the fewest lines (so a short fix is not wrapped a word a line beside a wide
 * column of paths).
 */
function balanceWraps(widths: number[], wraps: readonly boolean[], texts: ReadonlyArray<ReadonlyArray<string | undefined>>): void {
  const wrapped = wraps.flatMap((wrap, i) => (wrap ? [i] : []));
  // Two wrapped columns (doctor's Detail and Fix): every split of their room is tried.
  if (wrapped.length !== 2) return;
  const [a, b] = wrapped as [number, number];
  const pool = widths[a]! + widths[b]!;
  const lines = (text: string | undefined, width: number) => (text === undefined ? 1 : wrapText(text, width).split('\n').length);
  const height = (wa: number) => texts.reduce((sum, row) => sum + Math.max(lines(row[a], wa), lines(row[b], pool - wa)), 0);
  let best = widths[a]!;
  let bestHeight = height(best);
  for (let wa = 2; wa <= pool - 2; wa++) {
    const h = height(wa);
    if (h < bestHeight || (h === bestHeight && Math.abs(wa - widths[a]!) < Math.abs(best - widths[a]!))) {
      best = wa;
      bestHeight = h;
    }
  }
  widths[a] = best;
  widths[b] = pool - best;
}

export interface TableOptions {
  /** Keys of the columns whose cells are sentences a reader needs whole (a fix to run): wrapped over several lines in their column, never cut. */
  wrap?: readonly string[];
}

/** Several records, one a row, in a box no wider than the terminal; the header row unless `headers` is false. */
export function renderTable<T>(io: IO, columns: readonly Column<T>[], records: readonly T[], headers = true, chunkRows = CHUNK_ROWS, options: TableOptions = {}): string {
  if (!io.stdoutIsTTY) return tsvTable(columns, records, headers);
  const width = widthOf(io);
  // Accessible: no box, which a screen reader reads aloud; the columns aligned, the header row bold.
  if (io.accessible) {
    const rows = plainRows(columns, records);
    return drawColumns(headers ? [columns.map((column) => column.label), ...rows] : rows, { gap: 2, header: headers, color: io.color, ...(width ? { width } : {}) });
  }
  const chalk = paint(io.color);
  const texts = cellTexts(columns, records);
  const labels = columns.map((column) => sanitizeCell(column.label));
  const widths = boxWidths(io, columns, labels, texts, headers);
  const dash = chalk.dim('-');
  const fromStart = columns.map((column) => cutsFromStart(column.key));
  const wraps = columns.map((column) => options.wrap?.includes(column.key) === true);
  balanceWraps(widths, wraps, texts);
  const rows = texts.map((row) => row.map((text, i) => (text === undefined ? dash : wraps[i] ? wrapText(text, widths[i]!) : fromStart[i] ? keepEnd(text, widths[i]!) : text)));
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
  /** The columns' widths, when they are those of earlier rows (a table written a part at a time). */
  widths?: readonly number[];
}

/** The widths `drawColumns` gives these rows: each column's widest cell, the last cut to the terminal's width. */
export function columnWidths(rows: ReadonlyArray<readonly Cell[]>, options: PlainOptions): number[] {
  const texts = rows.map((row) => row.map((cell) => (isEmpty(cell) ? undefined : cellText(cell))));
  const count = Math.max(0, ...rows.map((row) => row.length));
  const natural = Array.from({ length: count }, (_, i) => Math.max(1, ...texts.map((row) => (row[i] === undefined ? 1 : stringWidth(row[i]!)))));
  const indent = options.indent ?? 0;
  if (options.width && count > 0) {
    const before = natural.slice(0, -1).reduce((sum, w) => sum + w + options.gap, indent);
    natural[count - 1] = Math.min(natural[count - 1]!, Math.max(options.width - before, 8));
  }
  return natural;
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
  const natural = [...(options.widths ?? columnWidths(rows, options))];
  const count = natural.length;
  const indent = options.indent ?? 0;
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
