/**
 * Text for people, from the commands that are not record commands (auth
 * status, the sandbox's banner): aligned by cli-table3 on a terminal, and
 * only there, so that a pipe never loads it; plain lines elsewhere.
 */
import type { IO } from '../terminal/io.js';
import { cellText, tsvTable, type Cell, type Column } from './tsv.js';

/** Records as a table on a terminal, tab-separated lines under a header row elsewhere. */
export async function recordsText<T>(io: IO, columns: readonly Column<T>[], records: readonly T[]): Promise<string> {
  if (!io.stdoutIsTTY) return tsvTable(columns, records);
  return (await import('./table.js')).renderTable(io, columns, records);
}

export interface Terminal {
  isTTY: boolean;
  color: boolean;
  /** Its width in columns, if known. */
  width?: number | undefined;
}

/** The terminal stdout is, as `recordsText` and `labelledText` take it. */
export const stdoutTerminal = (io: IO): Terminal => ({ isTTY: io.stdoutIsTTY, color: io.color, width: io.stdout.columns });

/** `Label: value` rows: labels aligned (and bold with colour) on a terminal, one plain line each elsewhere. Values are sanitised. */
export async function labelledText(rows: ReadonlyArray<readonly [string, Cell]>, terminal: Terminal): Promise<string> {
  const labelled = rows.map(([label, value]) => [`${label}:`, value] as const);
  if (!terminal.isTTY) {
    return labelled.map(([label, value]) => `${label} ${cellText(value)}\n`).join('');
  }
  const { drawColumns } = await import('./table.js');
  return drawColumns(labelled, { gap: 1, labels: true, color: terminal.color, ...(terminal.width ? { width: terminal.width } : {}) });
}

/** Rows of cells in aligned columns, `indent` spaces in (the first column bold with `labels`), on a terminal; elsewhere the cells of a row joined by the gap, unaligned. */
export async function columnsText(rows: ReadonlyArray<readonly Cell[]>, terminal: Terminal, indent: number, gap = 2, labels = false): Promise<string> {
  if (!terminal.isTTY) {
    return rows.map((row) => `${' '.repeat(indent)}${row.map(cellText).join(' '.repeat(gap))}\n`).join('');
  }
  const { drawColumns } = await import('./table.js');
  return drawColumns(rows, { gap, indent, labels, color: terminal.color, ...(terminal.width ? { width: terminal.width } : {}) });
}
