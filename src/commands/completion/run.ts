/**
 * `gymctl completion bash|zsh|fish|pwsh`: scripts that ask gymctl itself what comes next (`gymctl __complete -- WORD…`), as gh
 * and kubectl do, so they never fall behind the command tree. They only read lines: no candidate is ever evaluated by the shell
 * (in bash, nothing goes through `compgen -W`, which expands `$(…)`). PowerShell's script is pwsh.ts.
 */
import { usageError } from '../../failures.js';
import type { Factory } from '../../factory.js';
import { SHELL_VARIABLE, SHELLS } from '../complete/run.js';
import { PWSH } from './pwsh.js';

const BASH = `# gymctl completion for bash. Load it with: source <(gymctl completion bash)
_gymctl_completions() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" line directive=":none"
  local -a candidates=()
  # The words after gymctl up to the cursor, as arguments: never expanded.
  while IFS= read -r line; do
    case "$line" in
      :files|:none) directive="$line" ;;
      # Bash shows values alone, and says so: no names are fetched. Any description after a tab is dropped.
      *) candidates+=("\${line%%$'\\t'*}") ;;
    esac
  done < <(${SHELL_VARIABLE}=bash gymctl __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  if [[ "$directive" == ":files" ]]; then
    # File names, as readline completes them (quoted, a slash after a folder); bash without compopt lists them itself.
    COMPREPLY=()
    compopt -o default 2>/dev/null && return 0
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
    return 0
  fi
  # Only what gymctl offered: nothing when it offered nothing (ids it could not fetch), never the current folder's files.
  COMPREPLY=("\${candidates[@]}")
  return 0
}
complete -o nosort -F _gymctl_completions gymctl 2>/dev/null || complete -F _gymctl_completions gymctl
`;

const ZSH = `#compdef gymctl
# gymctl completion for zsh. Load it with: source <(gymctl completion zsh)
_gymctl() {
  local -a lines candidates
  local directive=":none" line
  # The words after gymctl up to the cursor, as arguments: never expanded.
  lines=("\${(@f)$(gymctl __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    case "$line" in
      :files|:none) directive="$line" ;;
      ?*) candidates+=("$line") ;;
    esac
  done
  if [[ "$directive" == ":files" ]]; then
    _files
    return
  fi
  # A description after a tab (an academy's name) is shown beside its value.
  local -a values displays
  for line in "\${candidates[@]}"; do
    values+=("\${line%%$'\\t'*}")
    if [[ "$line" == *$'\\t'* ]]; then
      displays+=("\${line%%$'\\t'*}  -- \${line#*$'\\t'}")
    else
      displays+=("$line")
    fi
  done
  (( \${#values} )) && compadd -l -d displays -- "\${values[@]}"
}
if (( ! $+functions[compdef] )); then
  autoload -U +X compinit && compinit
fi
compdef _gymctl gymctl
`;

const FISH = `# gymctl completion for fish. Load it with: gymctl completion fish | source
function __gymctl_complete
    # The words after gymctl up to the cursor, as arguments: never evaluated.
    set -l words (commandline -opc) (commandline -ct)
    set -l lines (gymctl __complete -- $words[2..-1] 2>/dev/null)
    if test "$lines[-1]" = ":files"
        __fish_complete_path (commandline -ct)
        return
    end
    # A description after a tab (an academy's name) is shown beside its value, as fish does.
    for line in $lines
        test "$line" != ":none"; and printf '%s\\n' $line
    end
end
complete -c gymctl -f -a '(__gymctl_complete)'
`;

const SCRIPTS: Record<(typeof SHELLS)[number], string> = { bash: BASH, zsh: ZSH, fish: FISH, pwsh: PWSH };
/** Other names a shell goes by: Windows PowerShell is `powershell`. */
const ALIASES: Record<string, (typeof SHELLS)[number]> = { powershell: 'pwsh' };

/** The shell as the argument or `--shell` names it (both: the same one). */
export async function runCompletion(f: Pick<Factory, 'io'>, argument: string | undefined, option: string | undefined): Promise<void> {
  const [name, other] = [argument, option].filter((given) => given !== undefined).map((given) => (Object.hasOwn(ALIASES, given) ? ALIASES[given]! : given));
  if (name === undefined) throw usageError("missing required argument 'shell'; usage: gymctl completion [options] <shell>");
  if (other !== undefined && other !== name) throw usageError(`two shells named, ${JSON.stringify(argument)} and --shell ${JSON.stringify(option)}: name one`);
  if (!Object.hasOwn(SCRIPTS, name)) throw usageError(`no completion for ${JSON.stringify(option ?? argument)}: expected one of ${SHELLS.join(', ')}`);
  f.io.out(SCRIPTS[name as (typeof SHELLS)[number]]);
}
