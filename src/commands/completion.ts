/** `gymctl completion <shell>` and the hidden `gymctl __complete` it calls: the definitions; the handlers load when one runs. */
import { Command } from 'commander';
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdCompletion = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'completion',
      description: 'print a shell completion script',
      arguments: [['<shell>', 'bash, zsh or fish']],
      examples: ['source <(gymctl completion bash)', 'source <(gymctl completion zsh)', 'gymctl completion fish > ~/.config/fish/completions/gymctl.fish'],
    },
    async (shell: string) => (await import('./completion/run.js')).runCompletion(f(), shell),
  );

/** What can come next on a command line, read from `program` itself. */
export const newCmdComplete = (f: FactoryRef, program: Command) =>
  new Command('__complete')
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[]) => (await import('./complete/run.js')).runComplete(f(), program, words));
