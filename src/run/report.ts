/** A failure on stderr in the format the run asked for, whenever it failed: before the parser ran (the pre-scan) or after. */
import type { GymctlError } from '../api/errors.js';
import type { ArgvScan } from '../argv.js';
import type { OutputFormat } from '../config/formats.js';
import { type GlobalFlags, isDebug, resolveFormat } from '../config/settings.js';
import type { Factory } from '../factory.js';
import { exitCodeOf } from '../failures.js';
import { formatFailure, withNextStep } from '../output/errors.js';
import type { IO } from '../terminal/io.js';

/** The flags errors are reported with until the parser has run (its own errors included), as the pre-scan read them. */
export function scannedFlags(scan: ArgvScan): GlobalFlags {
  const flags: GlobalFlags = { json: scan.options.has('--json'), debug: scan.options.has('--debug') };
  const format = scan.values.get('--format');
  if (format !== undefined) flags.format = format;
  if (scan.options.has('--jq')) flags.jq = scan.values.get('--jq') ?? '';
  return flags;
}

/** From the flags (`--jq` implies JSON), else the stored profile, even when the command failed before or over its settings. */
export function errorFormat(f: Pick<Factory, 'config' | 'profileName'>, flags: GlobalFlags): OutputFormat {
  try {
    const chosen = resolveFormat(flags)?.value;
    if (chosen) return chosen;
    if (flags.jq !== undefined) return 'json';
    return f.config().profile(f.profileName().value)?.format ?? 'table';
  } catch {
    return 'table';
  }
}

/** Writes the failure on stderr, with the flags of the run (the pre-scan's, when the parser failed); returns its exit code. */
export function report(failure: GymctlError, f: Pick<Factory, 'config' | 'profileName' | 'env'>, flags: GlobalFlags, io: IO): number {
  // A 404 of GET /me says the base URL is wrong, whoever asked (a login too); the session's client said where it came from.
  io.err(formatFailure(withNextStep(failure, {}), errorFormat(f, flags), isDebug(flags, f.env)));
  return exitCodeOf(failure);
}
