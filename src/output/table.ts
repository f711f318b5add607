/**
 * Tables for people, lines for pipes. On a terminal, records are drawn with
 * cli-table3 and emphasised with chalk; otherwise they are tab-separated
 * lines (tsv.ts). Every cell is sanitised: it may hold text from the server.
 */
import { Chalk } from 'chalk';
import Table from 'cli-table3';
import type { IO } from '../terminal/io.js';
import { cellText, tsvHeader, tsvRow, type Cell, type Column } from './tsv.js';

export type { Cell, Column } from './tsv.js';

const NO_BORDERS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
};

const ROW_SEPARATORS_OFF = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

function tsv<T>(columns: readonly Column<T>[], records: readonly T[]): string {
  return tsvHeader(columns) + records.map((r) => tsvRow(columns, r)).join('');
}

function painter(io: IO) {
  const chalk = new Chalk({ level: io.color ? 1 : 0 });
  return {
    label: (s: string) => chalk.bold(s),
    cell: (cell: Cell) => (cell === null || cell === undefined || cell === '' ? chalk.dim('-') : cellText(cell)),
  };
}

/** Several records, one a row. */
export function renderTable<T>(io: IO, columns: readonly Column<T>[], records: readonly T[]): string {
  if (!io.stdoutIsTTY) return tsv(columns, records);
  const paint = painter(io);
  const table = new Table({
    head: columns.map((c) => paint.label(c.label)),
    chars: ROW_SEPARATORS_OFF,
    style: { head: [], border: [] },
  });
  for (const record of records) table.push(columns.map((c) => paint.cell(c.value(record))));
  return `${table.toString()}\n`;
}

/** One record, a field a row, as a card; one header row and one line in a pipe. */
export function renderCard<T>(io: IO, columns: readonly Column<T>[], record: T): string {
  if (!io.stdoutIsTTY) return tsv(columns, [record]);
  const paint = painter(io);
  const table = new Table({ chars: NO_BORDERS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 1 } });
  for (const column of columns) table.push([paint.label(column.label), paint.cell(column.value(record))]);
  // Without borders, the padding of the last column is only trailing blanks.
  return `${table.toString().split('\n').map((line) => line.trimEnd()).join('\n')}\n`;
}
