/** CSV as RFC 4180 has it; nested objects flattened to dotted names, the columns from the schema, so rows never change them. */
import type * as z from 'zod/mini';
import { unwrapSchema } from '../api/validation.js';
import { caret, codePoint, INVISIBLE } from './sanitize.js';

/** The byte-order mark (EF BB BF in UTF-8) by which Excel, on a double-click, reads a CSV file as UTF-8 (--bom). */
export const CSV_BOM = '\ufeff';

export interface CsvColumn {
  /** The dotted field name, e.g. `address.city`. */
  name: string;
  path: readonly string[];
}

type Schema = z.core.$ZodType;

/** The leaf fields of an object schema, depth first, in declaration order. */
export function csvColumns(schema: Schema, prefix: readonly string[] = []): CsvColumn[] {
  const def = unwrapSchema(schema)._zod.def as unknown as { type: string; shape?: Record<string, Schema> };
  if (def.type !== 'object' || !def.shape) return [{ name: prefix.join('.'), path: prefix }];
  return Object.entries(def.shape).flatMap(([key, field]) => csvColumns(field, [...prefix, key]));
}

export function valueAt(record: unknown, path: readonly string[]): unknown {
  let current = record;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A field's text in a cell: nothing for null, lists of scalars (academyIds) joined with semicolons, objects as JSON. */
export function fieldText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(fieldText).join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A plain number (`-33.86`, `1e3`) or a phone number in the spec's international form (`+351 21 300 0001`). */
const HARMLESS_SIGNED = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^\+[\d ().-]+$/;

/** Control characters a CSV cell may not hold raw: all but tab, line feed and carriage return (which quoting keeps). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** Control characters a spreadsheet skips before it looks for a formula. */
const LEADING_CONTROLS = /^[\u0000-\u0008\u000a-\u000c\u000e-\u001f\u007f-\u009f]+/;

/**
 * A cell a spreadsheet would run as a formula, made inert with a leading `'` (OWASP's advice): `=` or `@` first after
 * any controls (LibreOffice drops a leading NUL), a tab or carriage return first, or `+`/`-` not starting a number or phone number.
 */
export function neutraliseFormula(value: string): string {
  // Tab and carriage return are not among the controls skipped, so a value that starts with one is caught below.
  const text = value.replace(LEADING_CONTROLS, '');
  const start = text.charAt(0);
  if (start === '=' || start === '@' || start === '\t' || start === '\r') return `'${value}`;
  if ((start === '+' || start === '-') && !HARMLESS_SIGNED.test(text)) return `'${value}`;
  return value;
}

/** A field: neutralised, controls in caret notation (`^@`), quoted when it must be; on a terminal, hidden characters shown (`<U+202E>`). */
export function csvField(value: string, terminal = false): string {
  let cell = neutraliseFormula(value).replace(CONTROL, caret);
  if (terminal) cell = cell.replace(INVISIBLE, codePoint);
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

export function csvLine(fields: readonly string[], terminal = false): string {
  return `${fields.map((field) => csvField(field, terminal)).join(',')}\r\n`;
}

export const csvHeader = (columns: readonly CsvColumn[]) => csvLine(columns.map((c) => c.name));

export const csvRow = (columns: readonly CsvColumn[], record: unknown, terminal = false) =>
  csvLine(
    columns.map((c) => fieldText(valueAt(record, c.path))),
    terminal,
  );
