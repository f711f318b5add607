/** Text for people from commands without records: aligned by cli-table3 on a terminal only (a pipe never loads it). */
import type { IO } from '../terminal/io.js';
import { cellText, tsvTable, type Cell, type Column } from './tsv.js';

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

export const stdoutTerminal = (io: IO): Terminal => ({ isTTY: io.stdoutIsTTY, color: io.color, width: io.stdout.columns });

/** `Label: value` rows: labels aligned (and bold with colour) on a terminal, one plain line each elsewhere. Values are sanitised. */
export function labelledText(rows: ReadonlyArray<readonly [string, Cell]>, terminal: Terminal): Promise<string> {
  const labelled = rows.map(([label, value]) => [`${label}:`, value]);
  return columnsText(labelled, terminal, 0, 1, true);
}

/** Aligned columns on a terminal; elsewhere each row's cells joined by the gap. */
export async function columnsText(rows: ReadonlyArray<readonly Cell[]>, terminal: Terminal, indent: number, gap = 2, labels = false): Promise<string> {
  if (!terminal.isTTY) return rows.map((row) => `${' '.repeat(indent)}${row.map(cellText).join(' '.repeat(gap))}\n`).join('');
  const { drawColumns } = await import('./table.js');
  return drawColumns(rows, { gap, indent, labels, color: terminal.color, ...(terminal.width ? { width: terminal.width } : {}) });
}
