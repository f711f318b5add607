// Writes gymctl.1, the man page, from the built CLI's own help: the
// top-level help, each command's (found by walking the "Commands:" lists,
// so none is left out), and the help topics. `npm run build` runs it, so
// the page cannot drift from `gymctl --help`.
import { spawnSync } from 'node:child_process';

/** The help text of `gymctl ...args`, as the CLI prints it (80 columns: no terminal). */
function help(bin, args) {
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', input: '', env: { ...process.env, COLUMNS: '80' } });
  if (run.status !== 0) throw new Error(`gymctl ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/** The command names a help text lists under "Commands:". */
function commandsIn(text) {
  const section = text.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
    .filter((name) => name && name !== 'help');
}

/** Every command path, groups' subcommands in place of the group. */
function commandPaths(bin) {
  const paths = [];
  for (const name of commandsIn(help(bin, ['--help']))) {
    const subcommands = commandsIn(help(bin, [name, '--help']));
    if (subcommands.length === 0) paths.push([name]);
    else for (const sub of subcommands) paths.push([name, sub]);
  }
  return paths;
}

/** Text for roff: backslashes escaped, hyphens as minus signs (copyable options), no line taken for a request. */
const roff = (text) =>
  text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');

/** A block shown as it is, as the terminal shows it. */
const verbatim = (text) => `.nf\n${roff(text.replace(/\n+$/, ''))}\n.fi\n`;

export function manPage(bin, version) {
  const top = help(bin, ['--help']);
  const description = top.split('\n\n')[1]?.trim() ?? '';
  const sections = [
    `.TH GYMCTL 1 "" "gymctl ${version}" "User Commands"`,
    '.SH NAME',
    `gymctl \\- ${roff(description.replace(/\.$/, '').replace(/^Read/, 'read'))}`,
    '.SH SYNOPSIS',
    '.B gymctl',
    '\\fIcommand\\fR [\\fIarguments\\fR] [\\fIoptions\\fR]',
    '.SH DESCRIPTION',
    verbatim(top),
    '.SH COMMANDS',
    ...commandPaths(bin).map((path) => `.SS "gymctl ${path.join(' ')}"\n${verbatim(help(bin, [...path, '--help']))}`),
    '.SH EXIT STATUS',
    verbatim(help(bin, ['help', 'exit-codes'])),
    '.SH ENVIRONMENT',
    verbatim(help(bin, ['help', 'environment'])),
    '.SH FILES',
    '.TP',
    '.I $XDG_CONFIG_HOME/gymctl/config.json',
    `Profiles and settings (${roff('~/.config/gymctl/config.json')} by default, or in ${roff('$GYMCTL_CONFIG_DIR')}), written 0600; \\fBgymctl config path\\fR prints it.`,
    '.SH SEE ALSO',
    '.BR jq (1)',
  ];
  return `${sections.map((section) => section.replace(/\n$/, '')).join('\n')}\n`;
}
