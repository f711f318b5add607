/**
 * Reporting a failure on stderr, in the output format the run asked for,
 * whenever it failed: before the parser has run (from the pre-scan of
 * argv), or after (from the parsed flags and the stored profile).
 */
import type { GymctlError } from '../api/errors.js';
import type { ArgvScan } from '../argv.js';
import type { OutputFormat } from '../config/formats.js';
import { type GlobalFlags, isDebug, resolveFormat } from '../config/settings.js';
import type { Factory } from '../factory.js';
import { exitCodeOf } from '../failures.js';
import { formatFailure } from '../output/errors.js';
import type { IO } from '../terminal/io.js';

/**
 * The flags errors are reported with until the parser has run (its own
 * errors included): --json, --format, --jq (given without its expression,
 * still --jq) and --debug, as the pre-scan read them.
 */
export function scannedFlags(scan: ArgvScan): GlobalFlags {
  const flags: GlobalFlags = { json: scan.options.has('--json'), debug: scan.options.has('--debug') };
  const format = scan.values.get('--format');
  if (format !== undefined) flags.format = format;
  if (scan.options.has('--jq')) flags.jq = scan.values.get('--jq') ?? '';
  return flags;
}

/**
 * The output format for reporting an error, whenever it happened: from the
 * flags (`--jq` implies JSON, as for the output), else the stored profile,
 * even when the command failed before it read its settings, or because of
 * one of them.
 */
function errorFormat(f: Factory): OutputFormat {
  try {
    const chosen = resolveFormat(f.flags)?.value;
    if (chosen) return chosen;
    if (f.flags.jq !== undefined) return 'json';
    return f.config().profile(f.profileName().value)?.format ?? 'table';
  } catch {
    return 'table';
  }
}

/** Writes the failure on stderr; returns its exit code. */
export function report(failure: GymctlError, f: Factory, io: IO): number {
  // A key the server refused, a host that cannot be reached: say where the key or base URL came from.
  io.err(formatFailure(f.explain(failure), errorFormat(f), isDebug(f.flags, f.env)));
  return exitCodeOf(failure);
}
