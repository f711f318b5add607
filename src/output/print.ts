/** Prints what a read command fetched, in the chosen format. */
import type { ApiResponse } from '../api/transport.js';
import { formatJson } from '../api/raw-json.js';
import type { OutputFormat } from '../config/schema.js';
import type { IO } from '../io.js';
import type { Column } from './table.js';

/** `--json`: the response's `data` member as received, 2-space indent. */
export function printJson(io: IO, response: ApiResponse<unknown>): void {
  io.out(`${formatJson(response.rawData, 2)}\n`);
}

/** One resource: a card on a terminal, a header and a line in a pipe. */
export async function printOne<T>(io: IO, format: OutputFormat, response: ApiResponse<T>, columns: readonly Column<T>[]) {
  if (format === 'json') return printJson(io, response);
  const { renderCard } = await import('./table.js');
  io.out(renderCard(io, columns, response.data));
}

/** A list: a table on a terminal, a header and a line each in a pipe. */
export async function printList<T>(
  io: IO,
  format: OutputFormat,
  response: ApiResponse<T[]>,
  columns: readonly Column<T>[],
  emptyMessage: string,
) {
  if (format === 'json') return printJson(io, response);
  if (response.data.length === 0 && io.stdoutIsTTY) return io.out(`${emptyMessage}\n`);
  const { renderTable } = await import('./table.js');
  io.out(renderTable(io, columns, response.data));
}
