/**
 * Writes records to stdout as they arrive, so a batch of any size streams in bounded memory. Nothing is written before
 * the first record (a command whose every request fails leaves stdout empty); an empty success still gets its frame.
 * CSV's --bom goes out with the first write, so a failed run prints no lone mark.
 */
import { formatJson } from '../json/raw.js';
import type { IO } from '../terminal/io.js';
import type { OutputChoice } from './choice.js';
import type { JqFilter } from './jq.js';
import { parseColumns, pickColumns } from './columns.js';
import { CSV_BOM, csvHeader, csvRow } from './csv.js';
import { escapeJsonForTerminal } from './sanitize.js';
import { type Column, tsvFieldHeader, tsvFieldRow } from './tsv.js';
import type { ResourceView } from './views.js';

/** A record: its validated data, and its JSON text exactly as the server sent it. */
export interface OutputItem<T> {
  data: T;
  raw: string;
}

export interface Emitter<T> {
  write(item: OutputItem<T>): void;
  /** Closes the output; `failed` when the command failed, so an empty result gets no frame. Settles once everything is written. */
  end(failed: boolean): void | Promise<void>;
  /** An interrupt (Ctrl-C): what is held is written, and the frame closed. Only a table on a terminal has it. */
  stop?(): void;
  /** Settles once it can take more records (--jq's slices waiting for jq); undefined when it can now. */
  room?(): Promise<void> | undefined;
}

/** `one`: a single record (or one JSON value); `many`: a list of records. */
export type Shape = 'one' | 'many';

export interface EmitOptions {
  /** On a terminal, said on stderr instead of drawing an empty table (pipes and JSON keep their frame). */
  emptyMessage?: string;
  /** By column key, the widest text known before the first record (a batch's ids), which a table in parts makes room for. */
  widest?: Readonly<Record<string, string>>;
}

const indented = (raw: string) => `  ${formatJson(raw, 2).replace(/\n/g, '\n  ')}`;

/** Records waiting for jq, at most: a batch streams in slices this long. */
const JQ_SLICE = 512;

/**
 * --jq: each record an input, no frame. A jq call costs about a millisecond whatever its size, so the records that have
 * arrived are filtered together once the event loop is free (or a slice is full). A failure is reported at the end, as jq does.
 */
function jqEmitter<T>(io: IO, jq: JqFilter): Emitter<T> {
  let pending: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let failure: unknown;
  let done: Promise<void> = Promise.resolve();
  /** Slices given to jq and not yet printed, in order; past one running and one waiting, a batch waits for the first. */
  const queued: Promise<void>[] = [];
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending.length === 0) return;
    const inputs = pending.join('\n');
    pending = [];
    done = done
      .then(() => jq.print((text) => io.out(text), inputs, io.stdoutIsTTY, io.stdout))
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => void queued.shift());
    queued.push(done);
  };
  return {
    write(item) {
      pending.push(item.raw);
      if (pending.length >= JQ_SLICE) flush();
      else scheduled ??= setImmediate(flush);
    },
    room: () => (queued.length < 2 ? undefined : queued[0]),
    async end() {
      flush();
      await done;
      if (failure !== undefined) throw failure;
    },
  };
}

/** --jq --slurp: the records' texts as sent, as one array filtered once at the end (`jq -s`); nothing runs when every record failed. */
function slurpEmitter<T>(io: IO, jq: JqFilter): Emitter<T> {
  const records: string[] = [];
  return {
    write(item) {
      records.push(item.raw);
    },
    end(failed) {
      if (records.length === 0 && failed) return;
      return jq.print((text) => io.out(text), `[${records.join(',')}]`, io.stdoutIsTTY, io.stdout);
    },
  };
}

/** Made before anything is sent, so that a bad --columns is a usage error with no request. */
export async function createEmitter<T>(io: IO, output: OutputChoice, view: ResourceView<T>, shape: Shape, options: EmitOptions = {}): Promise<Emitter<T>> {
  const { format, jq } = output;
  let count = 0;
  /** `start` comes first of all, once, with the header or the first row. */
  const framed = (row: (item: OutputItem<T>) => string, header = () => '', start = ''): Emitter<T> => ({
    write(item) {
      io.out((count++ === 0 ? start + (output.headers ? header() : '') : '') + row(item));
    },
    end(failed) {
      if (count === 0 && !failed && output.headers) io.out(start + header());
    },
  });

  if (jq) return output.slurp ? slurpEmitter(io, jq) : jqEmitter(io, jq);
  // On a terminal, C1 controls and bidi or invisible characters in JSON strings become \u escapes (the same value).
  const json = io.stdoutIsTTY ? escapeJsonForTerminal : (text: string) => text;
  if (format === 'ndjson') return framed((item) => `${json(formatJson(item.raw, 0))}\n`);
  const picked = output.columns === undefined ? undefined : pickColumns(view, parseColumns(view, output.columns));
  if (format === 'csv') {
    const columns = picked?.csv ?? view.csv();
    return framed(
      (item) => csvRow(columns, item.data, io.stdoutIsTTY),
      () => csvHeader(columns),
      // The mark is for a spreadsheet's file; on a terminal it would be an invisible character.
      output.bom && !io.stdoutIsTTY ? CSV_BOM : '',
    );
  }
  if (format === 'json') {
    if (shape === 'one') return framed((item) => json(`${formatJson(item.raw, 2)}\n`));
    return {
      write(item) {
        io.out(`${count++ === 0 ? '[\n' : ',\n'}${json(indented(item.raw))}`);
      },
      end(failed) {
        if (count > 0) io.out('\n]\n');
        else if (!failed) io.out('[]\n');
      },
    };
  }
  if (!io.stdoutIsTTY) {
    // In a pipe, the fields of CSV whatever the count, so a script's columns never depend on how many ids it passed.
    const fields = picked?.csv ?? view.csv();
    return framed(
      (item) => tsvFieldRow(fields, item.data),
      () => tsvFieldHeader(fields),
    );
  }
  const columns = picked?.table ?? (shape === 'one' ? view.card : view.list);

  const table = await import('./table.js');
  if (shape === 'one') return framed((item) => table.renderCard(io, columns, item.data));
  return tableEmitter(io, table, columns, output.headers, options);
}

/** The first part of a table is drawn at this many rows or this long after its first row, whichever comes first. */
export const FIRST_PART_ROWS = 100;
export const FIRST_PART_MS = 500;
/** Each later part likewise. */
export const PART_ROWS = 200;
export const PART_MS = 200;

/**
 * A table on a terminal: whole before its first part is due, drawn in one piece; else in parts keeping the first part's
 * widths, the terminal's room given to the columns that may grow (table-fit.ts: streamWidths), above the progress line,
 * so what has arrived stays on screen after Ctrl-C.
 */
function tableEmitter<T>(io: IO, table: typeof import('./table.js'), columns: readonly Column<T>[], headers: boolean, options: EmitOptions): Emitter<T> {
  const parts = table.tableParts(io, columns, headers, options.widest);
  let pending: T[] = [];
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const records = pending;
    pending = [];
    io.out(started ? parts.more(records) : parts.start(records));
    started = true;
  };
  const close = (failed: boolean) => {
    clearTimeout(timer);
    if (started) {
      io.out(parts.end(pending));
    } else if (pending.length > 0) {
      io.out(table.renderTable(io, columns, pending, headers));
    } else if (!failed) {
      // One rule for people: nothing to show is a sentence on stderr, never an empty box on stdout.
      io.err(`${options.emptyMessage ?? 'Nothing to show.'}\n`);
    }
    pending = [];
  };
  return {
    write(item) {
      pending.push(item.data);
      if (pending.length >= (started ? PART_ROWS : FIRST_PART_ROWS)) return flush();
      timer ??= setTimeout(flush, started ? PART_MS : FIRST_PART_MS);
    },
    end: close,
    stop: () => close(true),
  };
}
