/** `gymctl completion <shell>` and the hidden `gymctl __complete` it calls: the definitions; the handlers load when one runs. */
import type { Command } from 'commander';
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdCompletion = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'completion',
      description: 'print a shell completion script',
      arguments: [['[shell]', 'bash, zsh, fish or pwsh (PowerShell; also powershell)']],
      options: [['-s, --shell <shell>', 'the shell, named as an option rather than an argument']],
      examples: ['source <(gymctl completion bash)', 'gymctl completion fish > ~/.config/fish/completions/gymctl.fish', 'gymctl completion pwsh | Out-String | Invoke-Expression'],
    },
    async (shell: string | undefined, options: { shell?: string }) => (await import('./completion/run.js')).runCompletion(f(), shell, options.shell),
  ).usage('[options] <shell>');

/** What can come next on a command line, read from `program` itself. */
export const newCmdComplete = (f: FactoryRef, program: Command) =>
  program
    .createCommand('__complete')
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[]) => (await import('./complete/run.js')).runComplete(f(), program, words));
