/** `--columns id,name,address.city`: the fields shown, by the CSV header's dotted names; a usual table field keeps its label. */
import { closest } from '../commands/shared/suggest.js';
import { usageError } from '../failures.js';
import { fieldText, valueAt, type CsvColumn } from './csv.js';
import type { Column } from './tsv.js';
import type { ResourceView } from './views.js';

export const columnNames = <T>(view: ResourceView<T>): string[] => view.csv().map((column) => column.name);

/** Splits and checks `--columns` against the resource: an unknown name is a usage error that lists the valid ones. */
export function parseColumns<T>(view: ResourceView<T>, text: string): string[] {
  const names = text.split(',').map((name) => name.trim());
  const valid = columnNames(view);
  if (names.some((name) => name === '')) throw usageError(`--columns needs field names separated by commas, such as ${valid.slice(0, 2).join(',')}`);
  const unknown = names.filter((name) => !valid.includes(name));
  if (unknown.length > 0) {
    const list = unknown.map((name) => JSON.stringify(name)).join(', ');
    const near = unknown.map((name) => nearestColumn(name, valid)).filter((name) => name !== undefined);
    const hint = near.length > 0 ? ` (Did you mean ${near.join(', ')}?)` : '';
    throw usageError(`unknown column${unknown.length > 1 ? 's' : ''} ${list} for --columns: the columns are ${valid.join(', ')}${hint}`);
  }
  return names;
}

/** The column a mistyped name was meant to be: the nearest name, else the one whose last part (`city` of `address.city`) is nearest. */
function nearestColumn(name: string, valid: readonly string[]): string | undefined {
  const whole = closest(name, valid);
  if (whole) return whole;
  const last = (column: string) => column.split('.').pop()!;
  const part = closest(name, valid.map(last));
  const matches = part === undefined ? [] : valid.filter((column) => last(column) === part);
  return matches.length === 1 ? matches[0] : undefined;
}

/** The columns named, for a table or tab-separated lines, and for CSV. */
export function pickColumns<T>(view: ResourceView<T>, names: readonly string[]): { table: Column<T>[]; csv: CsvColumn[] } {
  const known = [...view.card, ...view.list];
  const csv = names.map((name) => view.csv().find((column) => column.name === name)!);
  const table = csv.map(
    ({ name, path }): Column<T> => known.find((column) => column.key === name) ?? { key: name, label: name, value: (record) => fieldText(valueAt(record, path)) },
  );
  return { table, csv };
}
