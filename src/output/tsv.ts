/** Tables in a pipe, as gh does: tab-separated lines under a header row, cells sanitised; a resource's records get CSV's fields. */
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

export const tsvTable = <T>(columns: readonly Column<T>[], records: readonly T[], headers = true) =>
  (headers ? tsvHeader(columns) : '') + records.map((record) => tsvRow(columns, record)).join('');

export const tsvFieldHeader = (fields: readonly CsvColumn[]) => `${fields.map((field) => field.name).join('\t')}\n`;

/** A record as one line of its fields, each as CSV writes it (lists joined with `;`), made safe. */
export const tsvFieldRow = (fields: readonly CsvColumn[], record: unknown) => `${fields.map((field) => cellText(fieldText(valueAt(record, field.path)))).join('\t')}\n`;
