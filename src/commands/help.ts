/** `gymctl help [command | topic]`: help for a command, or a reference topic (exit-codes, environment). */
import type { Command } from 'commander';
import { usageError } from '../failures.js';
import { HELP_TOPICS, wrapTopic } from './help-topics.js';
import { examples, type FactoryRef } from './shared/define.js';
import { didYouMean } from './shared/suggest.js';

export const newCmdHelp = (f: FactoryRef, program: Command) =>
  program
    .createCommand('help')
    .description('show help for a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'a command (such as academy or auth login) or a topic')
    .addHelpText('after', examples('gymctl help academy', 'gymctl help exit-codes', 'gymctl help environment'))
    .action((topic: string[]) => {
      const [first] = topic;
      if (first === undefined) return program.outputHelp();
      if (topic.length === 1 && Object.hasOwn(HELP_TOPICS, first)) {
        // Wrapped to the terminal's width, as commander wraps help; 80 columns elsewhere.
        const { io } = f();
        return io.out(wrapTopic(HELP_TOPICS[first as keyof typeof HELP_TOPICS], (io.stdoutIsTTY && io.stdout.columns) || 80));
      }
      const command = topic.reduce<Command | undefined>((at, name) => at?.commands.find((c) => c.name() === name && name !== '__complete'), program);
      if (!command) {
        const names = [...program.commands.filter((c) => c.name() !== '__complete').map((c) => c.name()), ...Object.keys(HELP_TOPICS)];
        const hint = topic.length === 1 ? didYouMean(first, names) : '';
        throw usageError(`no help for ${JSON.stringify(topic.join(' '))}${hint}: try a command, or one of the topics ${Object.keys(HELP_TOPICS).join(', ')}`);
      }
      return command.outputHelp();
    });
