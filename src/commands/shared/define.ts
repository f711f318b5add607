/**
 * Command definitions, as gh's NewCmdX: each module builds its own commander command from the factory it runs with (`f()`,
 * called only when it runs); program.ts only registers them. Annotations say what main must know before it runs, as cobra's do.
 */
import { Command } from 'commander';
import type { Factory } from '../../factory.js';
import { usageError } from '../../failures.js';
import type { CommandText } from '../../operations/declare.js';
import { closest } from './suggest.js';

/** The factory of the run, asked for only when a command runs (by then the flags are parsed). */
export type FactoryRef = () => Factory;

/** Commands that stop by themselves when interrupted (the sandbox server): Ctrl-C is left to them. */
const handlingInterrupt = new WeakSet<Command>();

export function annotate<C extends Command>(command: C, { handlesInterrupt }: { handlesInterrupt: boolean }): C {
  if (handlesInterrupt) handlingInterrupt.add(command);
  return command;
}

export const stopsOnInterrupt = (command: Command): boolean => handlingInterrupt.has(command);

/** Two or three real examples at the end of a command's help, as gh has. */
export const examples = (...lines: string[]) => `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

/** `--concurrency N`, as the batch commands take it. */
export const CONCURRENCY_OPTION = ['--concurrency <n>', 'requests at once, 1 to 64 (default 8)'] as const;

export const IGNORE_NOT_FOUND_OPTION = [
  '--ignore-not-found',
  "skip ids the API does not know (its own 404): a note on stderr at a terminal, and exit 0 if the rest succeeded; a 404 that is not the API's still fails",
] as const;

/** `--limit N`, as gh's list commands take it: the first N of a listing, in its order. */
export const LIMIT_OPTION = ['--limit <n>', 'show at most the first n, in the order listed'] as const;

/** A command as data: what its help says, and what it takes. */
export interface CommandSpec extends CommandText {
  /** `<name>` (required), `[name]` (optional), `<name...>` (several), with what it is. */
  arguments?: ReadonlyArray<readonly [string, string]>;
  /** Options of its own (the global ones come from the flag table); `repeatable`: each value given, in a list. */
  options?: ReadonlyArray<readonly [string, string, 'repeatable'?]>;
}

// biome-ignore lint/suspicious/noExplicitAny: commander hands an action its arguments, options and command untyped.
type Action = (...args: any[]) => void | Promise<void>;

const examplesByCommand = new WeakMap<Command, readonly string[]>();

/** A command's examples, as its help ends with them (the man page lists them too). */
export const examplesOf = (command: Command): readonly string[] => examplesByCommand.get(command) ?? [];

/**
 * A command from its spec, running `action` with commander's arguments: the command's, then its options, which hold
 * the global ones too (`--profile`, `--json`…): a command's flags are all in its own options, as gh's are.
 */
export function defineCommand(spec: CommandSpec, action: Action): Command {
  const command = new Command(spec.name).description(spec.description);
  for (const [name, description] of spec.arguments ?? []) command.argument(name, description);
  for (const [flags, description, repeatable] of spec.options ?? [])
    if (repeatable) command.option(flags, description, (value: string, before: string[] = []) => [...before, value]);
    else command.option(flags, description);
  examplesByCommand.set(command, spec.examples);
  return command.addHelpText('after', examples(...spec.examples)).action((...args: unknown[]) => {
    args[args.length - 2] = (args.at(-1) as Command).optsWithGlobals();
    return action(...args);
  });
}

/** A group (auth, config, cache): alone it prints its help and succeeds, as gh's do; with a word not its command, a usage error suggesting the closest. */
export function defineGroup(spec: CommandText, commands: readonly Command[]): Command {
  const group: Command = new Command(spec.name)
    .description(spec.description)
    .helpCommand(false)
    .argument('[command]')
    .usage('<command> [options]')
    .action((word?: string) => {
      if (word === undefined) return group.outputHelp();
      const names = group.commands.map((c) => c.name());
      const suggestion = closest(word, names);
      throw usageError(`unknown command '${spec.name} ${word}'${suggestion ? ` (Did you mean ${spec.name} ${suggestion}?)` : `: expected one of ${names.join(', ')}`}`);
    });
  if (spec.examples.length > 0) group.addHelpText('after', examples(...spec.examples));
  examplesByCommand.set(group, spec.examples);
  for (const command of commands) group.addCommand(command);
  return group;
}
