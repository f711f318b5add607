/**
 * Runs one command: `run(argv, { io, env, signal })` parses the arguments,
 * runs the command, reports any failure on stderr and returns the exit
 * code. The only place that turns failures into exit codes. Loaded by
 * cli.ts for every command but --version and the top-level help; tests call
 * it in-process with fake streams.
 */
import type { GymctlError } from './api/errors.js';
import { AlreadyReported, Interrupted, usageError, exitCodeOf, exitCodeOfKind, toFailure, type InterruptSignal } from './failures.js';
import type { GlobalFlags } from './config/settings.js';
import { annotationsOf } from './commands/shared/define.js';
import { resolveFormat } from './config/settings.js';
import type { OutputFormat } from './config/formats.js';
import { createFactory, type Factory } from './factory.js';
import { formatFailure } from './output/errors.js';
import type { Command } from 'commander';
import { buildProgram, commandWords } from './program.js';
import { createIO, type IOStreams } from './terminal/io.js';

export interface RunOptions {
  /** The standard streams (process, or fakes in tests). */
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  /** Aborted with an Interrupted reason on Ctrl-C or SIGTERM. */
  signal?: AbortSignal;
}

/** Commander's errors, told apart without loading commander (see main). */
function isCommanderError(error: unknown): error is Error & { code: string; exitCode: number } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

/**
 * Commander's message, made safe to print: an unknown `--option=value' may
 * carry a secret typed in the wrong place, so the whole value of every
 * such argument is hidden, whatever quotes it holds.
 */
function parserMessage(error: Error, argv: readonly string[]): string {
  let message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  for (const arg of argv) {
    const equals = arg.indexOf('=');
    if (arg.startsWith('-') && equals > 0) message = message.split(arg).join(`${arg.slice(0, equals)}=…`);
  }
  return message;
}

/** The command that argv names, as deep as it goes. */
function commandOf(program: Command, argv: readonly string[]): Command {
  let command = program;
  for (const word of argv) {
    const sub = command.commands.find((c) => c.name() === word);
    if (sub) command = sub;
  }
  return command;
}

/** Errors about the arguments themselves: the message is followed by the command's usage line. */
const ARGUMENT_ERRORS = new Set(['commander.missingArgument', 'commander.excessArguments', 'commander.optionMissingArgument', 'commander.missingMandatoryOptionValue']);

/** The exit code of whatever a command threw, or the failure to report. */
function settle(error: unknown, argv: readonly string[], program: Command): number | GymctlError {
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // Help shown because a command group was called without a subcommand.
    if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : exitCodeOfKind('usage');
    const message = parserMessage(error, argv);
    if (!ARGUMENT_ERRORS.has(error.code)) return usageError(message);
    const command = commandOf(program, argv);
    const path = [];
    for (let current: Command | null = command; current; current = current.parent) path.unshift(current.name());
    return usageError(`${message.replace(/\.$/, '')}; usage: ${path.join(' ')} ${command.usage()}`);
  }
  const failure = toFailure(error);
  return failure instanceof Interrupted || failure instanceof AlreadyReported ? exitCodeOf(failure) : failure;
}

function scanFormatFlags(argv: readonly string[]): GlobalFlags {
  const flags: GlobalFlags = { json: argv.includes('--json'), debug: argv.includes('--debug') };
  argv.forEach((arg, i) => {
    if (arg === '--format') flags.format = argv[i + 1];
    else if (arg.startsWith('--format=')) flags.format = arg.slice('--format='.length);
    else if (arg === '--jq' || arg === '-q') flags.jq = argv[i + 1] ?? '';
    else if (arg.startsWith('--jq=')) flags.jq = arg.slice('--jq='.length);
  });
  return flags;
}

/**
 * Settles with the command, or as soon as the user interrupts, whatever the
 * command is waiting for; a command that stops by itself on an interrupt
 * (its definition says so: the sandbox server) is left to finish.
 */
function untilInterrupted<T>(work: Promise<T>, signal: AbortSignal, handlesInterrupt: () => boolean): Promise<T> {
  const interrupted = new Promise<never>((_, reject) => {
    const onAbort = () => {
      if (!handlesInterrupt()) reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void work.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => {});
  });
  return Promise.race([work, interrupted]);
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

/**
 * `--json id,name`, as gh takes it: gymctl's --json takes no field list,
 * and the word after it would be read as an argument. Said the gymctl way.
 */
function jsonFieldList(argv: readonly string[], commands: readonly string[]): GymctlError | undefined {
  const at = argv.indexOf('--json');
  const fields = at >= 0 ? argv[at + 1] : undefined;
  if (fields === undefined || !/^[A-Za-z_][\w.]*(,[A-Za-z_][\w.]*)*$/.test(fields) || commands.includes(fields)) return undefined;
  const object = fields
    .split(',')
    .map((field) => (field.includes('.') ? `"${field}": .${field}` : field))
    .join(', ');
  return usageError(`--json takes no field list (gh's --json FIELDS): use --jq '{${object}}' for JSON of those fields, or --columns ${fields} for a table or CSV`);
}

/** `config set accessible true`: read with the config, which most commands read anyway; a broken file is the command's to report. */
function storedAccessible(f: Factory): boolean {
  try {
    return f.config().read().accessible === true;
  } catch {
    return false;
  }
}

export async function run(argv: readonly string[], options: RunOptions): Promise<number> {
  const { env } = options;
  const signal = options.signal ?? new AbortController().signal;
  const io = createIO(options.io, { env, colorFlag: !argv.includes('--no-color') });
  const disposers: Array<() => Promise<void>> = [];
  // Until the parser has run, errors (including its own) take the format from a plain scan.
  let factory = createFactory({ io, env, signal, flags: scanFormatFlags(argv), disposers });
  let handlesInterrupt = false;
  let outcome: number | GymctlError = 0;
  const program = buildProgram({
    io,
    argv,
    factory: () => factory,
    parsed(command, flags) {
      factory = createFactory({ io, env, signal, flags, disposers });
      io.accessible ||= storedAccessible(factory);
      handlesInterrupt = annotationsOf(command).handlesInterrupt === true;
    },
  });
  try {
    const fieldList = jsonFieldList(argv, commandWords(program));
    if (fieldList) throw fieldList;
    await untilInterrupted(program.parseAsync(argv.length === 0 ? ['--help'] : [...argv], { from: 'user' }), signal, () => handlesInterrupt);
  } catch (error) {
    outcome = settle(error, argv, program);
  } finally {
    // Clients and servers, last opened first.
    for (const dispose of disposers.splice(0).reverse()) await dispose().catch(() => {});
  }
  if (typeof outcome === 'number') return outcome;
  // A key the server refused: say where it came from, as auth status does.
  const keyOrigin = factory.keyOrigin();
  if (outcome.kind === 'unauthorized' && keyOrigin && outcome.message.endsWith('the server refused the API key')) {
    outcome = outcome.with({ message: `${outcome.message} from ${keyOrigin}` });
  }
  io.err(formatFailure(outcome, errorFormat(factory), factory.debug));
  return exitCodeOf(outcome);
}

/**
 * Ctrl-C and SIGTERM, for the real process: the first aborts the command
 * with an Interrupted reason (requests in flight are aborted, files are
 * left whole); a second one ends gymctl at once.
 */
export function watchSignals(): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const onSignal = (name: InterruptSignal) => {
    const reason = new Interrupted(name);
    if (controller.signal.aborted) process.exit(exitCodeOf(reason));
    controller.abort(reason);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    stop() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
