/**
 * The man page's source, markdown in ronn's form (`# gymctl(1) -- …`), written from the command tree, the flag table, the
 * exit codes and the environment topic, so that it cannot drift from the help; scripts/manpage.mjs makes roff of it.
 */
import type { Command } from 'commander';
import { EXIT_CODES } from '../failures.js';
import { GLOBAL_FLAGS } from '../flags.js';
import { ENVIRONMENT } from './help-topics.js';
import { examplesOf } from './shared/define.js';
import { listed } from '../output/listed.js';
import { OPERATIONS } from '../operations/index.js';

const COUNT = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** Markdown's special characters in running text, escaped. */
const text = (value: string) => value.replace(/([\\`*_[\]<>|])/g, '\\$1');
const code = (value: string) => `\`${value}\``;

/** Every command a user types: a group's subcommands in its place; no hidden or help command. */
function leaves(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  return command.commands
    .filter((sub) => sub.name() !== 'help' && !sub.name().startsWith('__'))
    .flatMap((sub) => (sub.commands.length > 0 ? leaves(sub, [...path, sub.name()]) : [{ path: [...path, sub.name()], command: sub }]));
}

/** An example as a shell line of at most 72 columns (the page's code is indented): a longer one continues with a backslash. */
function exampleLines(line: string): string[] {
  const lines: string[] = [];
  let rest = line;
  while (rest.length > 72) {
    const cut = rest.lastIndexOf(' ', 68);
    if (cut <= 0) break;
    lines.push(`${rest.slice(0, cut)} \\`);
    rest = `  ${rest.slice(cut + 1)}`;
  }
  return [...lines, rest];
}

/** Examples as an indented code block. */
const exampleBlock = (examples: readonly string[]) => examples.flatMap((example) => exampleLines(example).map((line) => `    ${line}\n`)).join('');

/** A term and what it is, as a list item (marked-man renders it as a tagged paragraph). */
const item = (term: string, what: string) => `* ${term}:\n  ${what}\n`;

function commandSection({ path, command }: { path: string[]; command: Command }): string {
  const args = command.registeredArguments.map((argument) => {
    const name = `${argument.name()}${argument.variadic ? '...' : ''}`;
    return argument.required ? `<${name}>` : `[${name}]`;
  });
  const parts = [`### gymctl ${[...path, ...args].join(' ')}\n`, `${text(command.description())}.\n`];
  for (const argument of command.registeredArguments) if (argument.description) parts.push(item(code(argument.name()), text(argument.description)));
  for (const option of command.options) parts.push(item(code(option.flags), text(option.description)));
  const examples = examplesOf(command);
  if (examples.length > 0) parts.push(`Examples:\n\n${exampleBlock(examples)}`);
  return parts.join('\n');
}

/** Where each global option applies, as the flag table says. */
const appliesTo = (commands: readonly string[]) => `Applies to: ${commands.map((name) => `gymctl ${name}`).join(', ')}.`;

export function manualMarkdown(program: Command, topExamples: readonly string[]): string {
  const description = program.description().replace(/\.$/, '');
  return [
    `# gymctl(1) -- ${text(description.charAt(0).toLowerCase() + description.slice(1))}\n`,
    '## SYNOPSIS\n',
    '`gymctl` <command> [<arguments>] [<options>]\n',
    '## DESCRIPTION\n',
    `${text(program.description())} It answers ${COUNT[OPERATIONS.length] ?? OPERATIONS.length} questions: ${listed(OPERATIONS.map((d) => `${text(d.question)} (${code(`gymctl ${d.command.name}`)})`))}. At a terminal it prints tables; in a pipe, the API's JSON or tab-separated lines, errors on standard error only, and the exit codes below.\n`,
    '## COMMANDS\n',
    ...leaves(program).map(commandSection),
    '## OPTIONS\n',
    'These options are taken where they apply; elsewhere they are a usage error.\n',
    ...GLOBAL_FLAGS.map((flag) => item(code(flag.flags), `${text(flag.description)}. ${text(appliesTo(flag.commands))}`)),
    item(code('-V, --version'), 'print the version.'),
    item(code('-h, --help'), 'show help, for gymctl or any command.'),
    '## EXIT STATUS\n',
    ...EXIT_CODES.map(({ code: exit, kind, when }) => item(code(String(exit)), text(`${kind ? `${kind}: ` : ''}${when}.`))),
    'With several ids, the exit code is that of the first failure in argument order.\n',
    '## ENVIRONMENT\n',
    ...ENVIRONMENT.map(([name, what]) => item(code(name), text(what.replaceAll('\n', ' ')))),
    '## FILES\n',
    item(
      code('$XDG_CONFIG_HOME/gymctl/config.json'),
      `profiles and settings (${code('~/.config/gymctl/config.json')} by default, or in ${code('$GYMCTL_CONFIG_DIR')}), written 0600; ${code('gymctl config path')} prints it.`,
    ),
    item(code('$XDG_CACHE_HOME/gymctl'), `answers kept by ${code('--cache')} (${code('~/.cache/gymctl')} by default).`),
    item(code('$XDG_CACHE_HOME/gymctl-code-cache'), `Node's compile cache of gymctl's code (Node 22.1 and later); ${code('GYMCTL_NO_CODE_CACHE=1')} turns it off.`),
    item(
      code('%APPDATA%\\gymctl, %LOCALAPPDATA%\\gymctl'),
      `on Windows, the config folder and the caches (unless ${code('$XDG_CONFIG_HOME')} or ${code('$XDG_CACHE_HOME')} is set); a config that an older gymctl kept in ${code('~\\.config\\gymctl')} is used until it is moved.`,
    ),
    '## EXAMPLES\n',
    exampleBlock(topExamples),
    '## SEE ALSO\n',
    'jq(1)\n',
  ].join('\n');
}
