/**
 * Tables in a pipe: tab-separated lines under one header row of field
 * names, no borders, no colour, as gh does. Cells are sanitised (they may
 * hold text from the server), with tabs and line breaks turned to spaces.
 * A resource's records get the fields of CSV (every field the spec names,
 * dotted, in the spec's order) whatever their count, under the names
 * `--columns` takes, with lists joined as CSV joins them.
 */
import { type CsvColumn, fieldText, valueAt } from './csv.js';
import { sanitizeCell } from './sanitize.js';

export type Cell = string | number | bigint | boolean | null | undefined;

export interface Column<T> {
  /** The name `--columns` takes for it (a dotted field name). */
  key: string;
  /** The header on a terminal. */
  label: string;
  value(record: T): Cell;
  /** How a terminal shows it, when that differs from the value a pipe gets. */
  display?(record: T): Cell;
}

export function cellText(cell: Cell): string {
  return cell === null || cell === undefined ? '' : sanitizeCell(String(cell));
}

export const tsvHeader = <T>(columns: readonly Column<T>[]) => `${columns.map((c) => c.key).join('\t')}\n`;

export const tsvRow = <T>(columns: readonly Column<T>[], record: T) => `${columns.map((c) => cellText(c.value(record))).join('\t')}\n`;

/** Records as tab-separated lines, under the header row unless `headers` is false. */
export const tsvTable = <T>(columns: readonly Column<T>[], records: readonly T[], headers = true) =>
  (headers ? tsvHeader(columns) : '') + records.map((record) => tsvRow(columns, record)).join('');

/** The header row of a resource's fields: their dotted names (`address.city`). */
export const tsvFieldHeader = (fields: readonly CsvColumn[]) => `${fields.map((field) => field.name).join('\t')}\n`;

/** A record as one line of its fields, each as CSV writes it (lists joined with `;`), made safe. */
export const tsvFieldRow = (fields: readonly CsvColumn[], record: unknown) => `${fields.map((field) => cellText(fieldText(valueAt(record, field.path)))).join('\t')}\n`;
