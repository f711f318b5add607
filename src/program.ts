/**
 * The command tree and the global options, registered in one place. The
 * read commands, which scripts call in loops, are loaded with the parser;
 * the others only when they run.
 */
import { Command, Help, type Option } from 'commander';
import { usageError } from './api/errors.js';
import { runAcademies } from './commands/academies.js';
import { runAcademy } from './commands/academy.js';
import { runFamily } from './commands/family.js';
import { runWhoami } from './commands/whoami.js';
import type { GlobalFlags } from './config/settings.js';
import type { Context } from './context.js';
import { HELP_TOPICS, type HelpTopic } from './commands/help-topics.js';
import { FAULTS } from './sandbox/faults.js';
import { appliesTo, checkFlagScope, GLOBAL_FLAGS } from './flags.js';
import { closest, helpForGroup } from './commands/shared/suggest.js';
import { VERSION } from './version.js';

const commandPath = (command: Command) => {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
};

/** Help with global options once, under "Global options", exactly where they apply (the flag table says where). */
const helpConfiguration = {
  showGlobalOptions: true,
  visibleGlobalOptions(this: Help, command: Command): Option[] {
    const path = commandPath(command);
    return Help.prototype.visibleGlobalOptions.call(this, command).filter((option) => option.long !== '--version' && appliesTo(option.long!, path));
  },
  styleTitle: (title: string) => (title === 'Global Options:' ? 'Global options:' : title),
};

/** Two or three real examples at the end of a command's help, as gh has. */
const examples = (...lines: string[]) => `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

export function buildProgram(ctx: Context): Command {
  const program = new Command('gymctl')
    .description('Read the gym (academy) management API: your key, academies and family links.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .configureHelp(helpConfiguration)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.out(text),
      writeErr: (text) => ctx.io.err(text),
      // Errors are reported by the entry point, in gymctl's own format.
      outputError: () => {},
    })
    .addHelpText(
      'after',
      `${examples('gymctl academy 1 --sandbox', 'gymctl auth login --base-url https://api.example.com', 'gymctl academies --format csv > academies.csv')}
Learn more: gymctl help exit-codes, gymctl help environment
`,
    );

  for (const flag of GLOBAL_FLAGS) program.option(flag.flags, flag.description);

  program.hook('preAction', (_program, action) => {
    const given = program.options.filter((option) => program.getOptionValueSource(option.attributeName()) === 'cli').map((option) => option.long!);
    checkFlagScope(commandPath(action), given);
    ctx.setFlags(action.optsWithGlobals<GlobalFlags>());
  });

  program
    .command('whoami')
    .description('show the API key in use, the academies it is scoped to, and its owner')
    .addHelpText('after', examples('gymctl whoami', "gymctl whoami --json | jq -r '.academyIds[]'", 'gymctl whoami --profile work'))
    .action(() => runWhoami(ctx));

  program
    .command('academy')
    .description('show academies by id, in argument order; - reads ids from stdin')
    .argument('<academyId...>', 'academy ids (positive whole numbers), or - to read them from stdin')
    .option('--concurrency <n>', 'requests at once, 1 to 64 (default 8)')
    .addHelpText('after', examples('gymctl academy 1', 'gymctl academy 1 2 3 --json', 'seq 1 4 | gymctl academy - --format ndjson'))
    .action((academyIds: string[], options: { concurrency?: string }) => runAcademy(ctx, academyIds, options));

  program
    .command('academies')
    .description('show every academy the key is scoped to, in the order of its academyIds')
    .option('--concurrency <n>', 'requests at once, 1 to 64 (default 8)')
    .addHelpText('after', examples('gymctl academies', 'gymctl academies --format csv > academies.csv', "gymctl academies --json | jq -r '.[].name'"))
    .action((options: { concurrency?: string }) => runAcademies(ctx, options));

  program
    .command('family')
    .description("list the members linked to a member's family (the member itself excluded)")
    .argument('<memberId...>', 'member ids (positive whole numbers, or comma-separated), or - to read them from stdin')
    .option('--concurrency <n>', 'requests at once, 1 to 64 (default 8)')
    .addHelpText('after', examples('gymctl family 501', 'gymctl family 501,530 --format ndjson', "gymctl family 501 --json | jq '.[] | select(.primaryFamilyMember)'"))
    .action((memberIds: string[], options: { concurrency?: string }) => runFamily(ctx, memberIds, options));

  const auth: Command = program
    .command('auth')
    .description('store, check and forget the API key of a profile')
    .helpCommand(false)
    .argument('[command]')
    .usage('<command> [options]')
    .action((word?: string): void => helpForGroup(auth)(word))
    .addHelpText('after', examples('gymctl auth login --base-url https://api.example.com', 'gymctl auth status --all', 'gymctl auth logout --profile work'));
  const authCommands = () => import('./commands/auth.js');
  auth
    .command('login')
    .description('store an API key for the profile, after checking it with the API')
    .option('--with-key', 'read the key from stdin instead of a hidden prompt')
    .option('--keyring', 'keep the key in the system keyring instead of the config file (later logins keep it there)')
    .option('--no-keyring', 'keep the key in the config file (moves it out of the keyring)')
    .addHelpText(
      'after',
      examples(
        'gymctl auth login --base-url https://api.example.com',
        'gymctl auth login --keyring --with-key --base-url https://api.example.com < key.txt',
        'gymctl auth login --profile work --base-url https://api.example.com',
      ),
    )
    .action(async (options: { withKey?: boolean; keyring?: boolean }) => (await authCommands()).runLogin(ctx, options));
  auth
    .command('status')
    .description("show the profile, base URL, masked key, where it comes from, and the key's owner")
    .option('--all', 'every stored profile, each checked with its own key')
    .addHelpText('after', examples('gymctl auth status', 'gymctl auth status --all', 'gymctl auth status --json'))
    .action(async (options: { all?: boolean }) => (await authCommands()).runStatus(ctx, { json: ctx.flags.json, all: options.all }));
  auth
    .command('logout')
    .description("forget the profile's stored API key (other settings stay)")
    .addHelpText('after', examples('gymctl auth logout', 'gymctl auth logout --profile work'))
    .action(async () => (await authCommands()).runLogout(ctx));

  const configKeys = 'base-url, format, timeout, retries, key-store or default-profile';
  const config: Command = program
    .command('config')
    .helpCommand(false)
    .argument('[command]')
    .usage('<command> [options]')
    .action((word?: string): void => helpForGroup(config)(word))
    .description('read and change settings of the profile (base-url, format, timeout, retries, key-store) and the default profile')
    .addHelpText('after', examples('gymctl config list', 'gymctl config set format json', 'gymctl config set default-profile work'));
  const configCommands = () => import('./commands/config.js');
  config
    .command('list')
    .description('print every setting')
    .addHelpText('after', examples('gymctl config list', 'gymctl config list --json', 'gymctl config list --profile work'))
    .action(async () => (await configCommands()).runConfigList(ctx, { json: ctx.flags.json }));
  config
    .command('get')
    .description('print one setting')
    .argument('<key>', configKeys)
    .addHelpText('after', examples('gymctl config get base-url', 'gymctl config get format --profile work'))
    .action(async (key: string) => (await configCommands()).runConfigGet(ctx, key));
  config
    .command('set')
    .description('change one setting')
    .argument('<key>', configKeys)
    .argument('<value>', 'the new value')
    .addHelpText('after', examples('gymctl config set base-url https://api.example.com', 'gymctl config set timeout 10000', 'gymctl config set default-profile work'))
    .action(async (key: string, value: string) => (await configCommands()).runConfigSet(ctx, key, value));
  config
    .command('unset')
    .description('remove one setting, so its default applies')
    .argument('<key>', configKeys)
    .addHelpText('after', examples('gymctl config unset format', 'gymctl config unset default-profile'))
    .action(async (key: string) => (await configCommands()).runConfigUnset(ctx, key));
  config
    .command('path')
    .description('print the path of the config file')
    .addHelpText('after', examples('gymctl config path', 'chmod 600 "$(gymctl config path)"'))
    .action(async () => (await configCommands()).runConfigPath(ctx));

  program
    .command('api')
    .description('send an authenticated GET to any path under the base URL and print the body as received')
    .argument('<path>', 'a path under the base URL, such as /me or /academies/1')
    .addHelpText('after', examples('gymctl api /me', 'gymctl api /academies/1 --sandbox', "gymctl api /members/501/family | jq '.data'"))
    .action(async (path: string) => (await import('./commands/api.js')).runApi(ctx, path));

  const cache: Command = program
    .command('cache')
    .description('manage the answers --cache keeps')
    .helpCommand(false)
    .argument('[command]')
    .usage('<command> [options]')
    .action((word?: string): void => helpForGroup(cache)(word));
  cache
    .command('clear')
    .description('remove every cached answer')
    .addHelpText('after', examples('gymctl cache clear'))
    .action(async () => (await import('./commands/cache.js')).runCacheClear(ctx));

  program
    .command('schema')
    .description("print the JSON Schema of a command's --json output")
    .argument('<command>', 'whoami, academy or family')
    .addHelpText('after', examples('gymctl schema academy', 'gymctl schema family > family.schema.json'))
    .action(async (name: string) => (await import('./commands/schema.js')).runSchema(ctx, name));

  program
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', examples('source <(gymctl completion bash)', 'source <(gymctl completion zsh)', 'gymctl completion fish > ~/.config/fish/completions/gymctl.fish'))
    .action(async (shell: string) => (await import('./commands/completion.js')).runCompletion(ctx, shell));

  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[]) => (await import('./commands/complete.js')).runComplete(ctx, program, words));

  program
    .command('sandbox')
    .description('serve the reference API with demo data on loopback until Ctrl-C')
    .option('--port <n>', 'port to listen on, 0 for any free one (default 4010)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--data <file>', 'serve this JSON file of keys, academies, members and families instead of the demo data')
    .option(
      '--fault <spec>',
      `misbehave, for testing: KIND[=VALUE][*TIMES], KIND one of ${Object.keys(FAULTS).join(', ')} (repeatable)`,
      (spec: string, previous: string[] | undefined) => [...(previous ?? []), spec],
    )
    .addHelpText('after', examples('gymctl sandbox', 'gymctl sandbox --port 0 --data fixtures.json', "gymctl sandbox --fault 'unavailable*2' --fault 'slow=3000'"))
    .action(async (options: { port?: string; host?: string; data?: string; fault?: string[] }) => (await import('./commands/sandbox.js')).runSandbox(ctx, options));

  program
    .command('help')
    .description('show help for a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'a command (such as academy or auth login) or a topic')
    .addHelpText('after', examples('gymctl help academy', 'gymctl help exit-codes', 'gymctl help environment'))
    .action((topic: string[]) => {
      const [first] = topic;
      if (first === undefined) return program.outputHelp();
      if (topic.length === 1 && Object.hasOwn(HELP_TOPICS, first)) return ctx.io.out(HELP_TOPICS[first as HelpTopic]);
      let command: Command | undefined = program;
      for (const name of topic) command = command?.commands.find((c) => c.name() === name && name !== '__complete');
      if (!command) {
        const suggestion =
          topic.length === 1 ? closest(first, [...program.commands.filter((c) => c.name() !== '__complete').map((c) => c.name()), ...Object.keys(HELP_TOPICS)]) : undefined;
        throw usageError(
          `no help for ${JSON.stringify(topic.join(' '))}${suggestion ? ` (Did you mean ${suggestion}?)` : ''}: try a command, or one of the topics ${Object.keys(HELP_TOPICS).join(', ')}`,
        );
      }
      return command.outputHelp();
    });

  return program;
}
