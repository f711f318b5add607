/**
 * The command tree: the global options, from the flag table, and every command, each from its own module (commands/x.ts). The
 * read commands, which scripts call in loops, are loaded with the parser; the others' definitions and handlers only when they run.
 */
import { Command, Help, type Option } from 'commander';
import type { ArgvScan } from './argv.js';
import { newCmdApi } from './commands/api.js';
import { newCmdsOperation } from './commands/operation.js';
import { commandNames } from './operations/declare.js';
import { examples, type FactoryRef } from './commands/shared/define.js';
import type { GlobalFlags } from './config/settings.js';
import { appliesTo, checkFlagScope, GLOBAL_FLAGS } from './flags.js';
import type { IO } from './terminal/io.js';
import { VERSION } from './version.js';
import { OPERATIONS } from './operations/index.js';
import { listed } from './output/listed.js';

/** `auth status` for the `status` command under `auth`. */
export const commandPath = (command: Command): string => (command.parent?.parent ? `${commandPath(command.parent)} ${command.name()}` : command.parent ? command.name() : '');

/** Help with global options once, under "Global options", exactly where they apply (the flag table says where). */
const helpConfiguration = {
  showGlobalOptions: true,
  visibleGlobalOptions(this: Help, command: Command): Option[] {
    const path = commandPath(command);
    return Help.prototype.visibleGlobalOptions.call(this, command).filter((option) => option.long !== '--version' && appliesTo(option.long!, path));
  },
  styleTitle: (title: string) => (title === 'Global Options:' ? 'Global options:' : title),
};

const others = () => import('./commands/others.js');
/** Every top-level command, by name, made only when it is added: each declared operation's first, then the rest (others: a file apart). */
const COMMANDS: ReadonlyArray<[name: string, make: (f: FactoryRef) => Command | Promise<Command>]> = [
  ...OPERATIONS.flatMap((declaration) => commandNames(declaration).map((name, i): [string, (f: FactoryRef) => Command] => [name, (f) => newCmdsOperation(f, declaration)[i]!])),
  ['auth', async (f) => (await others()).newCmdAuth(f)],
  ['config', async (f) => (await others()).newCmdConfig(f)],
  ['api', newCmdApi],
  ['cache', async (f) => (await others()).newCmdCache(f)],
  ['schema', async (f) => (await others()).newCmdSchema(f)],
  ['mcp', async (f) => (await others()).newCmdMcp(f)],
  ['completion', async (f) => (await others()).newCmdCompletion(f)],
  ['version', async (f) => (await others()).newCmdVersion(f)],
  ['doctor', async (f) => (await others()).newCmdDoctor(f)],
];

/** Every command's name, and the subcommands' of those built: words that are never a --json field list. */
export const commandWords = (program: Command): string[] => [...COMMANDS.map(([name]) => name), ...program.commands.flatMap((c) => c.commands.map((sub) => sub.name()))];

/** The one command a run needs, when argv names it; undefined when it needs the whole tree (help, completion, none, an unknown one). */
export const namedCommand = ({ help, command }: ArgvScan): string | undefined => (!help && COMMANDS.some(([name]) => name === command) ? command : undefined);

/** The examples the top-level help (and the man page) ends with. */
export const TOP_EXAMPLES = ['gymctl academy 1 --sandbox', 'gymctl auth login --base-url https://api.example.com', 'gymctl academies --format csv > academies.csv'];

export interface ProgramOptions {
  /** Where help and the parser's messages go (errors are reported by main, in gymctl's own format). */
  io: IO;
  factory: FactoryRef;
  /** Called once the flags are parsed and checked, before the command runs. */
  parsed(command: Command, flags: GlobalFlags): void;
  /** The pre-scan of argv: only the command it names is built. */
  scan?: ArgvScan;
}

export async function buildProgram({ io, factory: f, parsed, scan }: ProgramOptions): Promise<Command> {
  const program = new Command('gymctl')
    .description(`Read the gym (academy) management API: ${listed(OPERATIONS.map((declaration) => declaration.topic))}.`)
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .configureHelp(helpConfiguration)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      outputError: () => {},
    })
    .addHelpText('after', `${examples(...TOP_EXAMPLES)}\nLearn more: gymctl help exit-codes, gymctl help environment\n`);
  for (const flag of GLOBAL_FLAGS) program.option(flag.flags, flag.description);

  program.hook('preAction', (_program, action) => {
    const given = program.options
      .filter((option) => program.getOptionValueSource(option.attributeName()) === 'cli')
      // --bom and --no-bom set one value: the one given is the one whose value it holds.
      .filter((option) => option.negate === (program.getOptionValue(option.attributeName()) === false))
      .map((option) => option.long!);
    checkFlagScope(commandPath(action), given);
    parsed(action, action.optsWithGlobals<GlobalFlags>());
  });

  // Commands made apart take the program's settings (output, help, exit override), as `.command()` would give them.
  const adopt = (command: Command): Command => {
    command.copyInheritedSettings(program);
    for (const sub of command.commands) adopt(sub);
    return command;
  };
  const only = scan && namedCommand(scan);
  for (const [name, make] of COMMANDS) if (only === undefined || only === name) program.addCommand(adopt(await make(f)));
  if (only !== undefined) return program;
  const { newCmdComplete, newCmdSandbox, newCmdHelp } = await others();
  program.addCommand(adopt(newCmdComplete(f, program)), { hidden: true });
  program.addCommand(adopt(newCmdSandbox(f)));
  program.addCommand(adopt(newCmdHelp(f, program)));
  return program;
}
