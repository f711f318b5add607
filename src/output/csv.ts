/**
 * CSV as RFC 4180 has it: CRLF line ends, a header row, and fields quoted
 * when they hold a comma, a quote or a line break (quotes doubled). Nested
 * objects are flattened to dotted names; the columns come from the resource's
 * schema, so their order never depends on which fields a row happens to have.
 */
import type * as z from 'zod/mini';
import { unwrapSchema } from '../api/validation.js';

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

function valueAt(record: unknown, path: readonly string[]): unknown {
  let current = record;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  // Lists of scalars (an API key's academyIds) are joined with semicolons.
  if (Array.isArray(value)) return value.map(text).join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

export const csvHeader = (columns: readonly CsvColumn[]) => csvLine(columns.map((c) => c.name));

export const csvRow = (columns: readonly CsvColumn[], record: unknown) => csvLine(columns.map((c) => text(valueAt(record, c.path))));
