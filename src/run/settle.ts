/** What a run ends with once the command threw: an exit code, or the failure to report (the parser's, as usage errors). */
import type { Command } from 'commander';
import type { GymctlError } from '../api/errors.js';
import { type ArgvScan, scanArgv } from '../argv.js';
import { AlreadyReported, Interrupted, usageError, exitCodeOf, exitCodeOfKind, toFailure } from '../failures.js';

/** Commander's errors, told apart by their `commander.` code (this file imports commander's types alone). */
function isCommanderError(error: unknown): error is Error & { code: string; exitCode: number } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

/** Commander's message with every `--option=value`'s value hidden: it may be a secret typed in the wrong place. */
function parserMessage(error: Error, argv: readonly string[]): string {
  let message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  for (const arg of argv) {
    const equals = arg.indexOf('=');
    if (arg.startsWith('-') && equals > 0) message = message.split(arg).join(`${arg.slice(0, equals)}=…`);
  }
  return message;
}

/** The command that argv's operands name, as deep as they go. */
function commandOf(program: Command, operands: readonly string[]): Command {
  let command = program;
  for (const word of operands) {
    const sub = command.commands.find((c) => c.name() === word);
    if (sub) command = sub;
  }
  return command;
}

/** Errors about the arguments themselves: the message is followed by the command's usage line. */
const ARGUMENT_ERRORS = new Set(['commander.missingArgument', 'commander.excessArguments', 'commander.optionMissingArgument', 'commander.missingMandatoryOptionValue']);

/** The exit code of whatever a command threw, or the failure to report. */
export function settle(error: unknown, argv: readonly string[], program: Command, scan: ArgvScan = scanArgv(argv)): number | GymctlError {
  if (isCommanderError(error)) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // Help shown because a command group was called without a subcommand.
    if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : exitCodeOfKind('usage');
    const message = parserMessage(error, argv);
    // `gymctl -v`, as many tools take it: gymctl's version is -V or --version.
    if (error.code === 'commander.unknownOption' && argv[0] === '-v') return usageError(`${message} (Did you mean --version?)`);
    if (!ARGUMENT_ERRORS.has(error.code)) return usageError(message);
    const command = commandOf(program, scan.operands);
    const path = [];
    for (let current: Command | null = command; current; current = current.parent) path.unshift(current.name());
    return usageError(`${message.replace(/\.$/, '')}; usage: ${path.join(' ')} ${command.usage()}`);
  }
  const failure = toFailure(error);
  return failure instanceof Interrupted || failure instanceof AlreadyReported ? exitCodeOf(failure) : failure;
}
