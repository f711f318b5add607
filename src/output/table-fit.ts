/** How a terminal table fits its width, measured by string-width (as cli-table3 cuts and pads). */
import stringWidth from 'string-width';
import type { Column } from './tsv.js';

/** A column's cells are cut to no fewer than this many characters while another column can still give way. */
const MIN_WIDTH = 5;

/** How readily a column gives way, by field name: URLs and e-mail addresses first (3), other text (2), names (1), ids last (0). */
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

export interface FitColumn {
  /** The width of each cell of data (an empty cell's dash is 1). */
  cells: readonly number[];
  /** The header's width (0 with no header row). */
  label: number;
  rank: number;
  /** Never cut (a streamed table's ids): the column keeps its natural width whatever the terminal's. */
  whole?: boolean;
}

/** What a character taken from a column costs, by rank. */
const WEIGHTS = [4, 1.25, 1, 0.5];

/**
 * Widths that fit `available` (the frame takes `frame`), taken a character at a time where it costs least: the cells
 * it cuts, each weighed by 1/width, times the rank's weight. So one long cell gives way before a column of equally wide
 * ones. Headers are cut only once no cell can give way, then ids, then every column down to 2 (a character and …).
 */
export function fitWidths(columns: readonly FitColumn[], frame: number, available: number | undefined): number[] {
  const sorted = columns.map((column) => [...column.cells].sort((a, b) => a - b));
  const natural = columns.map((column, i) => Math.max(1, column.label, sorted[i]!.at(-1) ?? 0));
  const widths = [...natural];
  if (!available) return widths;
  let excess = widths.reduce((sum, w) => sum + w, frame) - available;
  /** Cells (and header) a character less would cut: those at least `width` wide. */
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

export function fitColumns<T>(columns: readonly Column<T>[], labels: readonly string[], texts: ReadonlyArray<ReadonlyArray<string | undefined>>, headers: boolean): FitColumn[] {
  return columns.map(
    (column, i): FitColumn => ({
      cells: texts.map((row) => (row[i] === undefined ? 1 : stringWidth(row[i]!))),
      label: headers ? stringWidth(labels[i]!) : 0,
      rank: yieldRank(column.key),
    }),
  );
}

/**
 * A streamed table's widths, fixed from its first part: a column whose widest cell is known (`widest`: a batch's ids)
 * is that wide, ids are never cut. Later rows may be longer, so the room the terminal has left goes to the cut columns,
 * then to every column that may grow (all but ids and those whose cells were all narrower than their header, such as
 * codes), the narrowest first: the table is as wide as the terminal, and a later cell is cut only past its share.
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
  const data = fit.map((column) => Math.max(1, ...column.cells));
  const natural = fit.map((column, i) => Math.max(column.label, data[i]!));
  const grows = fit.map((column, i) => column.rank !== 0 && widest[i] === undefined && data[i]! >= column.label);
  while (spare > 0) {
    // The cut columns first, then the narrowest that may grow.
    let best = -1;
    for (let i = 0; i < widths.length; i++) {
      const cut = widths[i]! < natural[i]!;
      if (!cut && !grows[i]) continue;
      const bestCut = best >= 0 && widths[best]! < natural[best]!;
      if (best < 0 || (cut && !bestCut) || (cut === bestCut && widths[i]! < widths[best]!)) best = i;
    }
    if (best < 0) break;
    widths[best]!++;
    spare--;
  }
  return widths;
}

/** A base URL is cut at its start: its end (host and port) is what tells profiles apart. */
export const cutsFromStart = (key: string) => key.split('.').pop() === 'baseUrl';

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
