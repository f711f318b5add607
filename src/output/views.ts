/** What the table and CSV output show of each operation's records: its declared columns, and its schema's fields for CSV. */
import type { Id } from '../api/schemas.js';
import type { OperationDeclaration } from '../operations/declare.js';
import { once } from '../api/once.js';
import { csvColumns, type CsvColumn } from './csv.js';
import type { Column } from './tsv.js';

export interface ResourceView<T> {
  /** The fields of one record shown as a card (or one line in a pipe). */
  card: readonly Column<T>[];
  /** The columns of a table of several records. */
  list: readonly Column<T>[];
  /** The CSV columns: every field of the schema, flattened, in schema order. */
  csv: () => readonly CsvColumn[];
}

/** A record as the generic commands hold it: its fields by name. */
export type Row = Record<string, unknown>;

const made = new WeakMap<OperationDeclaration, { one: ResourceView<Row>; many: ResourceView<Row> }>();

/** The views of one id's answer, and of several ids' (`many`): for a list answer, each row of those says which id it answers (`familyOf`). */
export function viewsOf(declaration: OperationDeclaration) {
  let views = made.get(declaration);
  if (views) return views;
  const { card, list = card } = declaration.views as { card: readonly Column<Row>[]; list?: readonly Column<Row>[] };
  const fields = once(() => csvColumns(declaration.schema()));
  const of = declaration.listAnswer;
  if (!of) {
    const view = { card, list, csv: fields };
    views = { one: view, many: view };
  } else {
    // Which id's answer a row belongs to, first: a field the API does not use.
    const ofColumn: Column<Row> = { key: of.of, label: of.label, value: (row) => row[of.of] as Id };
    const withOf = once((): readonly CsvColumn[] => [{ name: of.of, path: [of.of] }, ...fields()]);
    views = {
      // One id's list on a terminal need not say which id it answers; scripts get the same fields whatever the count.
      one: { card, list, csv: withOf },
      many: { card: [ofColumn, ...card], list: [ofColumn, ...list], csv: withOf },
    };
  }
  made.set(declaration, views);
  return views;
}
