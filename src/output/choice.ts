/** What a command prints, from the output flags, checked together before anything is sent: what cannot be honoured is a usage error. */
import { usageError } from '../failures.js';
import type { OutputFormat } from '../config/formats.js';
import { resolveFormat, type GlobalFlags, type Setting } from '../config/settings.js';
import type { JqFilter } from './jq.js';

export interface OutputChoice {
  format: OutputFormat;
  /** --columns as typed, checked against the resource when its emitter is made. */
  columns?: string;
  /** False with --no-headers: tab-separated lines, CSV and tables have no header row. */
  headers: boolean;
  jq?: JqFilter;
  /** --slurp: --jq runs once, over an array of every record, as `jq -s` does. */
  slurp?: boolean;
  /** CSV starts with a UTF-8 byte-order mark: --bom, or `config set csv-bom true` unless --no-bom. Never for another format. */
  bom?: boolean;
}

/**
 * `--jq` implies --json (whatever the profile stores), runs on each line of ndjson, and refuses a table or CSV asked for
 * on the command line. `--bom` applies to CSV alone; the stored `csv-bom` applies whenever CSV is printed, silent otherwise.
 */
export async function resolveOutput(flags: GlobalFlags, stored: Setting<OutputFormat>, compile: () => Promise<JqFilter>, storedBom = false): Promise<OutputChoice> {
  const chosen = resolveFormat(flags);
  const headers = flags.headers !== false;
  if (flags.slurp && flags.jq === undefined) throw usageError("--slurp runs --jq once over every record: give a filter, such as --slurp --jq 'length'");
  if (flags.jq !== undefined) {
    if (flags.bom) throw usageError('--bom applies to CSV output, not to --jq (which prints JSON)');
    if (chosen && chosen.value !== 'json' && chosen.value !== 'ndjson') {
      throw usageError(`--jq filters JSON: it cannot be used with ${chosen.origin} ${chosen.value} (use --json or --format ndjson, or leave the format out)`);
    }
    if (flags.columns !== undefined) throw usageError("--jq and --columns cannot be used together: pick fields in the filter, such as --jq '{id, name}'");
    if (!headers) throw usageError('--no-headers applies to table, tab-separated and CSV output, not to --jq');
    return { format: chosen?.value ?? 'json', headers, jq: await compile(), ...(flags.slurp ? { slurp: true } : {}) };
  }
  const format = chosen ?? stored;
  if (flags.bom && format.value !== 'csv') throw usageError(`--bom applies to CSV output, not to ${format.value} (from ${format.origin ?? format.source}): add --format csv`);
  if (format.value === 'json' || format.value === 'ndjson') {
    const [flag, instead] = flags.columns !== undefined ? ['--columns', ': use --jq to pick fields of JSON'] : !headers ? ['--no-headers', ''] : [];
    if (flag) throw usageError(`${flag} applies to table, tab-separated and CSV output, not to ${format.value} (from ${format.origin ?? format.source})${instead}`);
  }
  const bom = format.value === 'csv' && (flags.bom ?? storedBom);
  return { format: format.value, headers, ...(flags.columns !== undefined ? { columns: flags.columns } : {}), ...(bom ? { bom } : {}) };
}
