/**
 * `gymctl completion bash|zsh|fish`: completion scripts generated from the
 * command tree itself, so they never fall behind it. They complete
 * commands, subcommands, options, --format values, the arguments that have
 * fixed choices, and profile names (asked of `gymctl __complete profiles`
 * when needed, so new profiles complete at once).
 */
import type { Command } from 'commander';
import { usageError } from '../api/errors.js';
import { OUTPUT_FORMATS } from '../config/formats.js';
import { CONFIG_KEYS, GLOBAL_CONFIG_KEYS } from '../config/settings.js';
import type { Context } from '../context.js';
import { HELP_TOPICS } from './help-topics.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Node {
  /** Words after `gymctl` that lead here, e.g. "auth login". */
  path: string;
  subcommands: string[];
  options: string[];
  /** Fixed choices for the first argument. */
  choices: string[];
}

/** The subcommands help lists (commander's public Help API), without commander's own `help` of a group. */
const visible = (command: Command) =>
  command.createHelp().visibleCommands(command).filter((c) => c.name() !== 'help' || command.parent === null);

function optionsOf(command: Command): string[] {
  return command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => Boolean(flag)));
}

/** Every command path with what can follow it. */
function tree(program: Command): Node[] {
  const configKeys = [...Object.keys(CONFIG_KEYS), ...Object.keys(GLOBAL_CONFIG_KEYS)];
  const choices: Record<string, string[]> = {
    completion: [...SHELLS],
    schema: ['whoami', 'academy', 'family'],
    help: [...Object.keys(HELP_TOPICS), ...visible(program).map((c) => c.name())],
    'config get': configKeys,
    'config set': configKeys,
    'config unset': configKeys,
  };
  const globals = [...optionsOf(program), '--help'];
  const nodes: Node[] = [];
  const walk = (command: Command, path: string) => {
    nodes.push({
      path,
      subcommands: visible(command).map((c) => c.name()),
      options: [...new Set([...optionsOf(command), ...globals])],
      choices: choices[path] ?? [],
    });
    for (const sub of visible(command)) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  return nodes;
}

/** Options that take a value: the word after them is not a command. */
function valued(program: Command): string[] {
  const all: string[] = [];
  const walk = (command: Command) => {
    for (const option of command.options) if (option.required || option.optional) all.push(option.long!);
    visible(command).forEach(walk);
  };
  walk(program);
  return [...new Set(all)];
}

function bash(program: Command): string {
  const nodes = tree(program);
  const values = valued(program);
  // Options when the word begins with -, else subcommands and choices.
  const cases = nodes
    .map(
      (node) =>
        `    ${JSON.stringify(node.path)}) words=${JSON.stringify([...node.subcommands, ...node.choices].join(' '))}; options=${JSON.stringify(node.options.join(' '))} ;;`,
    )
    .join('\n');
  const groups = nodes.filter((node) => node.subcommands.length > 0).map((node) => JSON.stringify(node.path));
  return `# gymctl completion for bash. Load it with: source <(gymctl completion bash)
_gymctl_completions() {
  # zsh (through bashcompinit) counts array elements from 1, bash from 0.
  local o=0
  [[ -n "\${ZSH_VERSION-}" && ! -o ksharrays ]] && o=1
  local cur="\${COMP_WORDS[COMP_CWORD+o]}" prev="\${COMP_WORDS[COMP_CWORD-1+o]}"
  case "$prev" in
    --format) COMPREPLY=($(compgen -W ${JSON.stringify(OUTPUT_FORMATS.join(' '))} -- "$cur")); return 0 ;;
    --profile) COMPREPLY=($(compgen -W "$(gymctl __complete profiles 2>/dev/null)" -- "$cur")); return 0 ;;
    ${values.filter((v) => v !== '--format' && v !== '--profile').join('|')}) COMPREPLY=(); return 0 ;;
  esac
  local path="" word skip="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i+o]}"
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    case "$word" in
      ${values.join('|')}) skip=1 ;;
      -*) ;;
      *)
        case "$path" in
          ${groups.join('|')}) path="\${path:+$path }$word" ;;
          *) break ;;
        esac ;;
    esac
  done
  local words="" options=""
  case "$path" in
${cases}
  esac
  [[ "$cur" == -* ]] && words="$options"
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _gymctl_completions gymctl
`;
}

function zsh(program: Command): string {
  return `#compdef gymctl
# gymctl completion for zsh: the bash completion, through zsh's bashcompinit.
# Load it with: source <(gymctl completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(program)}`;
}

function fish(program: Command): string {
  const nodes = tree(program);
  const quote = (text: string) => `'${text.replace(/'/g, "\\'")}'`;
  const lines = ['# gymctl completion for fish. Load it with: gymctl completion fish | source', 'complete -c gymctl -f'];
  const top = nodes.find((node) => node.path === '')!;
  lines.push(`complete -c gymctl -n '__fish_use_subcommand' -a ${quote(top.subcommands.join(' '))}`);
  for (const node of nodes.filter((n) => n.path !== '' && !n.path.includes(' '))) {
    const words = [...node.subcommands, ...node.choices];
    if (words.length > 0) {
      lines.push(`complete -c gymctl -n ${quote(`__fish_seen_subcommand_from ${node.path}`)} -a ${quote(words.join(' '))}`);
    }
  }
  for (const node of nodes.filter((n) => n.path.includes(' ') && n.choices.length > 0)) {
    const [group, sub] = node.path.split(' ');
    lines.push(`complete -c gymctl -n ${quote(`__fish_seen_subcommand_from ${group}; and __fish_seen_subcommand_from ${sub}`)} -a ${quote(node.choices.join(' '))}`);
  }
  const flags = new Set(nodes.flatMap((node) => node.options.filter((o) => o.startsWith('--'))));
  for (const flag of flags) {
    const name = flag.slice(2);
    if (name === 'format') lines.push(`complete -c gymctl -l format -x -a ${quote(OUTPUT_FORMATS.join(' '))}`);
    else if (name === 'profile') lines.push(`complete -c gymctl -l profile -x -a '(gymctl __complete profiles 2>/dev/null)'`);
    else lines.push(`complete -c gymctl -l ${name}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function runCompletion(ctx: Context, program: Command, shell: string): Promise<void> {
  const scripts = { bash, zsh, fish };
  if (!Object.hasOwn(scripts, shell)) throw usageError(`no completion for ${JSON.stringify(shell)}: expected one of ${SHELLS.join(', ')}`);
  ctx.io.out(scripts[shell as (typeof SHELLS)[number]](program));
}

/** `gymctl __complete profiles`: the stored profile names, one a line, for the scripts above. */
export async function runCompleteValues(ctx: Context, what: string): Promise<void> {
  if (what !== 'profiles') throw usageError(`nothing to complete for ${JSON.stringify(what)}`);
  const profiles = (await ctx.store()).read().profiles ?? {};
  ctx.io.out(Object.keys(profiles).sort().map((name) => `${name}\n`).join(''));
}
