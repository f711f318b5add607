/**
 * Runs the program, reports any failure on stderr, and sets the exit code:
 * the only place that maps errors to exit codes. Loaded by cli.ts for every
 * command but --version and the top-level help.
 */
import { GymApiError, usageError, type ErrorKind } from './api/errors.js';
import { isDebug, type GlobalFlags } from './config/settings.js';
import { Context } from './context.js';
import { AlreadyReported, Interrupted } from './failures.js';
import { createIO } from './io.js';
import { formatError } from './output/errors.js';
import { buildProgram } from './program.js';

export const EXIT_CODES: Record<ErrorKind, number> = {
  internal: 1,
  usage: 2,
  not_found: 3,
  unauthorized: 4,
  unavailable: 5,
  invalid_response: 6,
};

export const EXIT_INTERRUPTED = 130;

/** Commander's errors, told apart without loading commander (see main). */
function isCommanderError(error: unknown): error is Error & { code: string; exitCode: number } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

export function toGymError(error: unknown): GymApiError | number {
  if (error instanceof GymApiError) return error;
  if (error instanceof Interrupted) return EXIT_INTERRUPTED;
  if (error instanceof AlreadyReported) return EXIT_CODES[error.kind];
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // Help shown because a command group was called without a subcommand.
    if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : EXIT_CODES.usage;
    // An unknown `--option=value` may carry a secret typed in the wrong place: never repeat the value.
    const message = error.message
      .replace(/^error: /, '')
      .replace(/\s*\n\s*/g, ' ')
      .replace(/'(-{1,2}[^'=\s]+)=[^']*'/g, "'$1=…'");
    return usageError(message);
  }
  const message = error instanceof Error ? error.message : String(error);
  const failure = new GymApiError('internal', `unexpected error: ${message}`, { cause: error });
  UNEXPECTED.add(failure);
  return failure;
}

/** Failures that no part of gymctl foresaw: a bug, or something the environment did. */
const UNEXPECTED = new WeakSet<GymApiError>();

/** An unexpected error: one line, and the stack only when asked for. */
export function describeUnexpected(failure: GymApiError, debug: boolean): { error: GymApiError; stack?: string } {
  if (!UNEXPECTED.has(failure)) return { error: failure };
  if (debug) return { error: failure, stack: failure.cause instanceof Error ? failure.cause.stack : undefined };
  return { error: new GymApiError('internal', `${failure.message} (run with --debug for details)`) };
}

function scanFormatFlags(argv: readonly string[]): GlobalFlags {
  const flags: GlobalFlags = { json: argv.includes('--json'), debug: argv.includes('--debug') };
  argv.forEach((arg, i) => {
    if (arg === '--format') flags.format = argv[i + 1];
    else if (arg.startsWith('--format=')) flags.format = arg.slice('--format='.length);
  });
  return flags;
}

export async function run(argv: string[]): Promise<void> {
  const { env } = process;
  const io = createIO(
    {
      get stdin() {
        return process.stdin;
      },
      stdout: process.stdout,
      get stderr() {
        return process.stderr;
      },
    },
    { env, colorFlag: !argv.includes('--no-color') },
  );
  const ctx = new Context(io, env);
  // Until the parser has run, errors (including its own) take the format from a plain scan.
  ctx.setFlags(scanFormatFlags(argv));
  let exitCode = 0;
  try {
    await buildProgram(ctx).parseAsync(argv.length === 0 ? ['--help'] : argv, { from: 'user' });
  } catch (error) {
    const failure = toGymError(error);
    if (typeof failure === 'number') {
      exitCode = failure;
    } else {
      const { error: shown, stack } = describeUnexpected(failure, isDebug(ctx.flags, env));
      io.err(formatError(shown, await ctx.errorFormat()));
      if (stack) io.err(`${stack}\n`);
      exitCode = EXIT_CODES[failure.kind];
    }
  } finally {
    await ctx.dispose();
  }
  process.exitCode = exitCode;
}
