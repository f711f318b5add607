/**
 * What a command prints, from the output flags: the format, and `--jq`,
 * `--columns` and `--no-headers`. Checked together, before anything is
 * sent: a combination that cannot be honoured is a usage error, never
 * silently ignored.
 */
import { usageError } from '../api/errors.js';
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
}

/**
 * The output of a command that prints records. `--jq` filters JSON: with
 * no --json or --format it implies --json (whatever format the profile
 * stores), with --format ndjson it runs on each line, and with a table or
 * CSV asked for on the command line it is a usage error.
 */
export async function resolveOutput(flags: GlobalFlags, stored: Setting<OutputFormat>, compile: () => Promise<JqFilter>): Promise<OutputChoice> {
  const chosen = resolveFormat(flags);
  const headers = flags.headers !== false;
  if (flags.jq !== undefined) {
    if (chosen && chosen.value !== 'json' && chosen.value !== 'ndjson') {
      throw usageError(`--jq filters JSON: it cannot be used with ${chosen.origin} ${chosen.value} (use --json or --format ndjson, or leave the format out)`);
    }
    if (flags.columns !== undefined) throw usageError("--jq and --columns cannot be used together: pick fields in the filter, such as --jq '{id, name}'");
    if (!headers) throw usageError('--no-headers applies to table, tab-separated and CSV output, not to --jq');
    return { format: chosen?.value ?? 'json', headers, jq: await compile() };
  }
  const format = chosen ?? stored;
  if (format.value === 'json' || format.value === 'ndjson') {
    const flag = flags.columns !== undefined ? '--columns' : !headers ? '--no-headers' : undefined;
    if (flag)
      throw usageError(`${flag} applies to table, tab-separated and CSV output, not to ${format.value} (from ${format.origin ?? format.source}): use --jq to pick fields of JSON`);
  }
  return { format: format.value, headers, ...(flags.columns !== undefined ? { columns: flags.columns } : {}) };
}

/** The commands that print records: --columns and --no-headers apply to them. */
export const RECORD_COMMANDS = ['whoami', 'academy', 'academies', 'family'];
/** The commands that print JSON: --jq applies to them. */
const JSON_COMMANDS = [...RECORD_COMMANDS, 'api', 'auth status', 'config list', 'schema'];

/** The commands that GET from the API: --cache and --refresh apply to them. */
export const CACHING_COMMANDS = [...RECORD_COMMANDS, 'api'];

/** Which commands each of these flags does something for (auth login and logout refuse --sandbox with reasons of their own). */
const SCOPES: ReadonlyArray<{ flag: string; given: (flags: GlobalFlags) => boolean; commands: readonly string[]; alsoTaken?: readonly string[] }> = [
  { flag: '--columns', given: (flags) => flags.columns !== undefined, commands: RECORD_COMMANDS },
  { flag: '--no-headers', given: (flags) => flags.headers === false, commands: RECORD_COMMANDS },
  { flag: '--jq', given: (flags) => flags.jq !== undefined, commands: JSON_COMMANDS },
  { flag: '--cache', given: (flags) => flags.cache !== undefined, commands: CACHING_COMMANDS },
  { flag: '--refresh', given: (flags) => Boolean(flags.refresh), commands: CACHING_COMMANDS },
  // `config set … --sandbox` would change the real config, not a sandbox's.
  { flag: '--sandbox', given: (flags) => Boolean(flags.sandbox), commands: [...CACHING_COMMANDS, 'auth status'], alsoTaken: ['auth login', 'auth logout'] },
];

/** A flag given to a command it does nothing for is a usage error, as gh has it, rather than silently ignored. */
export function checkFlagScope(command: string, flags: GlobalFlags): void {
  for (const { flag, given, commands, alsoTaken = [] } of SCOPES) {
    if (given(flags) && !commands.includes(command) && !alsoTaken.includes(command)) {
      throw usageError(`${flag} does not apply to \`gymctl ${command}\`: it applies to ${commands.map((name) => `\`gymctl ${name}\``).join(', ')}`);
    }
  }
}
