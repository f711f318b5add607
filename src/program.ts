/**
 * The command tree and the global options, registered in one place. The
 * read commands, which scripts call in loops, are loaded with the parser;
 * the others (auth, config, sandbox) only when they run.
 */
import { Command } from 'commander';
import type { GlobalFlags } from './config/settings.js';
import type { Context } from './context.js';
import { runAcademies } from './commands/academies.js';
import { runAcademy } from './commands/academy.js';
import { runFamily } from './commands/family.js';
import { runWhoami } from './commands/whoami.js';
import { FAULTS } from './sandbox/faults.js';
import { VERSION } from './version.js';

export function buildProgram(ctx: Context): Command {
  const program = new Command('gymctl')
    .description('Read the gym (academy) management API: your key, academies and family links.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--format <format>', 'output format: table, json, ndjson or csv (default table)')
    .option('--json', 'print JSON: the response data exactly as received (same as --format json)')
    .option('--base-url <url>', 'API base address (env GYMCTL_BASE_URL)')
    .option('--profile <name>', 'stored profile to use (env GYMCTL_PROFILE; default "default")')
    .option('--sandbox', 'run against an in-process sandbox API with the demo key')
    .option('--timeout <ms>', 'time limit of each request in milliseconds (default 30000)')
    .option('--retries <n>', 'retries of 429, 502, 503, 504 and dropped connections, 0 to 10 (default 2)')
    .option('--allow-http', 'allow a plain http base URL that is not loopback (the key is sent in clear)')
    .option('--debug', 'trace requests on stderr, the key redacted (also GYMCTL_DEBUG=1)')
    .option('--no-color', 'no colour in tables (also NO_COLOR=1)')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.out(text),
      writeErr: (text) => ctx.io.err(text),
      // Errors are reported by the entry point, in gymctl's own format.
      outputError: () => {},
    });

  program.hook('preAction', (_program, action) => ctx.setFlags(action.optsWithGlobals<GlobalFlags>()));

  program
    .command('whoami')
    .description('show the API key in use, the academies it is scoped to, and its owner')
    .action(() => runWhoami(ctx));

  program
    .command('academy')
    .description('show academies by id, in argument order; - reads ids from stdin')
    .argument('<academyId...>', 'academy ids (positive whole numbers), or - to read them from stdin')
    .option('--concurrency <n>', 'requests at once, 1 to 64 (default 8)')
    .action(async (academyIds: string[], options: { concurrency?: string }) =>
      runAcademy(ctx, academyIds, options),
    );

  program
    .command('academies')
    .description('show every academy the key is scoped to, in the order of its academyIds')
    .option('--concurrency <n>', 'requests at once, 1 to 64 (default 8)')
    .action((options: { concurrency?: string }) => runAcademies(ctx, options));

  program
    .command('family')
    .description("list the members linked to a member's family (the member itself excluded)")
    .argument('<memberId>', 'member id, a positive whole number')
    .action((memberId: string) => runFamily(ctx, memberId));

  const auth = program.command('auth').description('store, check and forget the API key of a profile');
  auth
    .command('login')
    .description('store an API key for the profile, after checking it with the API')
    .option('--with-key', 'read the key from stdin instead of a hidden prompt')
    .action(async (options: { withKey?: boolean }) => (await import('./commands/auth.js')).runLogin(ctx, options));
  auth
    .command('status')
    .description("show the profile, base URL, masked key, where it comes from, and the key's owner")
    .action(async () => (await import('./commands/auth.js')).runStatus(ctx, { json: ctx.flags.json }));
  auth
    .command('logout')
    .description("forget the profile's stored API key (other settings stay)")
    .action(async () => (await import('./commands/auth.js')).runLogout(ctx));

  const config = program.command('config').description('read and change settings of the profile (base-url, format, timeout, retries)');
  const configCommands = () => import('./commands/config.js');
  config
    .command('list')
    .description('print every setting')
    .action(async () => (await configCommands()).runConfigList(ctx, { json: ctx.flags.json }));
  config
    .command('get')
    .description('print one setting')
    .argument('<key>', 'base-url, format, timeout or retries')
    .action(async (key: string) => (await configCommands()).runConfigGet(ctx, key));
  config
    .command('set')
    .description('change one setting')
    .argument('<key>', 'base-url, format, timeout or retries')
    .argument('<value>', 'the new value')
    .action(async (key: string, value: string) => (await configCommands()).runConfigSet(ctx, key, value));
  config
    .command('unset')
    .description('remove one setting, so its default applies')
    .argument('<key>', 'base-url, format, timeout or retries')
    .action(async (key: string) => (await configCommands()).runConfigUnset(ctx, key));
  config
    .command('path')
    .description('print the path of the config file')
    .action(async () => (await configCommands()).runConfigPath(ctx));

  program
    .command('sandbox')
    .description('serve the reference API with demo data on loopback until Ctrl-C')
    .option('--port <n>', 'port to listen on, 0 for any free one (default 4010)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--data <file>', 'serve this JSON file of keys, academies, members and families instead of the demo data')
    .option(
      '--fault <spec>',
      `misbehave, for testing: KIND[=VALUE][*TIMES], KIND one of ${Object.keys(FAULTS).join(', ')} (repeatable)`,
      (spec: string, previous: string[]) => [...previous, spec],
      [] as string[],
    )
    .action(async (options: { port?: string; host?: string; data?: string; fault?: string[] }) =>
      (await import('./commands/sandbox.js')).runSandbox(ctx, options),
    );

  return program;
}
