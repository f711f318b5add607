/**
 * `gymctl __complete -- WORD…`: what can come next after `gymctl WORD…`, the last word under the cursor, for the completion
 * scripts: one candidate a line, filtered by what was typed, then `:files` (the shell completes file names) or `:none`. A
 * candidate may carry a description after a tab (an academy's name), which zsh, fish and PowerShell show. Bash shows values
 * alone: its script says so in SHELL_VARIABLE, and no name is asked for (an older script, which does not, is answered as zsh's).
 */
import type { Command, Option } from 'commander';
import { GymApiError } from '../../api/errors.js';
import { KEY_STORES, OUTPUT_FORMATS, PROFILE_NAME } from '../../config/formats.js';
import { CONFIG_KEYS, GLOBAL_CONFIG_KEYS } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { appliesTo, GLOBAL_FLAGS, longOf } from '../../flags.js';
import { columnNames } from '../../output/columns.js';
import { viewsOf } from '../../output/views.js';
import { type Ask, commandNames, type OperationDeclaration } from '../../operations/declare.js';
import { OPERATIONS } from '../../operations/index.js';
import { sanitizeLine } from '../../output/sanitize.js';
import { HELP_TOPICS } from '../help-topics.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'pwsh'] as const;
/**
 * The shell that asks, set by its script for `__complete` alone: an environment variable rather than an argument, so that an
 * older gymctl, which does not read it, still completes with a newer script.
 */
export const SHELL_VARIABLE = 'GYMCTL_COMPLETE_SHELL';

/** What completion reads: the profiles in the config file, stdout, the shell that asks, and for academy ids the settings and a client. */
export type CompleteDeps = Pick<Factory, 'io' | 'env' | 'config' | 'settings' | 'makeClient'>;
const SCHEMAS = OPERATIONS.map((declaration) => declaration.name);
const CONFIG_KEY_NAMES = [...Object.keys(CONFIG_KEYS), ...Object.keys(GLOBAL_CONFIG_KEYS)];
/** Shell words after which a file name comes. */
const REDIRECTIONS = new Set(['<', '>', '>>', '2>', '2>>', '&>', '<<<', '>|']);

/** Candidates; file names; or the ids an operation's declaration lists (its `values`). */
type Answer = { words: string[] } | 'files' | { values: OperationDeclaration };

/** The subcommands help lists (commander's public Help API), without commander's own `help` of a group. */
export const visibleCommands = (command: Command) =>
  command
    .createHelp()
    .visibleCommands(command)
    .filter((c) => c.name() !== 'help' || command.parent === null);

/** The options of a command, and the global options the flag table says apply to it. */
function optionsFor(command: Command, path: readonly string[]): Option[] {
  const options: Option[] = [];
  for (let current: Command | null = command; current; current = current.parent) {
    const global = current.parent === null;
    // --version is the top level's alone, as help shows it.
    options.push(...current.options.filter((option) => !global || (appliesTo(option.long ?? '', path.join(' ')) && (path.length === 0 || option.long !== '--version'))));
  }
  return options;
}

const flagsOf = (options: readonly Option[]) =>
  [...new Set(options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => Boolean(flag))))].concat('--help');

/** Profile names from the config file that are valid names: what does not fit is never offered. */
function profileNames(f: CompleteDeps): string[] {
  try {
    return Object.keys(f.config().read().profiles ?? {})
      .filter((name) => PROFILE_NAME.test(name))
      .sort();
  } catch {
    return [];
  }
}

/** The operation of each command that prints records. */
const BY_COMMAND = new Map(OPERATIONS.flatMap((declaration) => commandNames(declaration).map((name) => [name, declaration] as const)));

/** A flag that is another name of one (`--output` of `--format`), to the one it names. */
const SAME_AS = new Map(GLOBAL_FLAGS.flatMap((flag) => (flag.sameAs ? [[longOf(flag), flag.sameAs] as const] : [])));

/** Values for an option that takes one, `current` being what is typed of it. */
function optionValues(f: CompleteDeps, long: string | undefined, path: readonly string[], current: string): Answer {
  if (long === '--format') return { words: [...OUTPUT_FORMATS] };
  if (long === '--cache') return { words: ['30s', '5m', '1h', '1d'] };
  if (long === '--columns') {
    // A list: the names already given stay, the last one is completed, with none of those already chosen.
    const declaration = BY_COMMAND.get(path.join(' '));
    const view = declaration && viewsOf(declaration).many;
    const before = current.slice(0, current.lastIndexOf(',') + 1);
    const chosen = new Set(before.split(',').filter(Boolean));
    return {
      words: view
        ? columnNames(view)
            .filter((name) => !chosen.has(name))
            .map((name) => before + name)
        : [],
    };
  }
  if (long === '--profile') return { words: profileNames(f) };
  if (long === '--shell') return { words: [...SHELLS] };
  if (long === '--data') return 'files';
  return { words: [] };
}

/** Values for the `index`th argument of the command at `path`, given the arguments before it. */
function argumentValues(f: CompleteDeps, program: Command, path: string[], before: string[]): Answer {
  const [first] = before;
  const declaration = BY_COMMAND.get(path.join(' '));
  // Ids an operation's declaration lists (the key's academies); never ids that are personal (member ids).
  if (declaration?.values && path.join(' ') === declaration.command.name) return { values: declaration };
  switch (path.join(' ')) {
    case 'completion':
      return { words: before.length === 0 ? [...SHELLS] : [] };
    case 'schema':
      return { words: before.length === 0 ? SCHEMAS : [] };
    case 'config get':
    case 'config unset':
      return { words: before.length === 0 ? CONFIG_KEY_NAMES : [] };
    case 'config set':
      if (before.length === 0) return { words: CONFIG_KEY_NAMES };
      if (before.length === 1 && first === 'format') return { words: [...OUTPUT_FORMATS] };
      if (before.length === 1 && first === 'key-store') return { words: [...KEY_STORES] };
      if (before.length === 1 && first === 'default-profile') return { words: profileNames(f) };
      if (before.length === 1 && (first === 'accessible' || first === 'csv-bom')) return { words: ['true', 'false'] };
      return { words: [] };
    case 'help': {
      // `help auth ` offers what `auth` has, as `gymctl auth ` would.
      let command: Command | undefined = program;
      for (const name of before) command = command?.commands.find((c) => c.name() === name);
      if (!command) return { words: [] };
      return { words: [...(before.length === 0 ? Object.keys(HELP_TOPICS) : []), ...visibleCommands(command).map((c) => c.name())] };
    }
    default:
      return { words: [] };
  }
}

export function complete(f: CompleteDeps, program: Command, words: readonly string[]): Answer {
  const current = words.at(-1) ?? '';
  const typed = words.slice(0, -1);
  if (REDIRECTIONS.has(typed.at(-1) ?? '')) return 'files';
  let command = program;
  const path: string[] = [];
  const operands: string[] = [];
  for (let i = 0; i < typed.length; i++) {
    const word = typed[i]!;
    if (word.startsWith('-')) {
      const option = optionsFor(command, path).find((o) => o.long === word || o.short === word);
      if (option && (option.required || option.optional)) {
        if (i === typed.length - 1) return optionValues(f, (option.long && SAME_AS.get(option.long)) ?? option.long, path, current);
        i++; // its value
      }
      continue;
    }
    const sub = operands.length === 0 ? visibleCommands(command).find((c) => c.name() === word) : undefined;
    if (sub) {
      command = sub;
      path.push(word);
    } else {
      operands.push(word);
    }
  }
  if (current.startsWith('-')) return { words: flagsOf(optionsFor(command, path)) };
  if (operands.length === 0 && command.commands.length > 0) return { words: visibleCommands(command).map((c) => c.name()) };
  return argumentValues(f, program, path, operands);
}

export async function runComplete(f: CompleteDeps, program: Command, words: readonly string[]): Promise<void> {
  const answer = complete(f, program, words.length === 0 ? [''] : words);
  const current = words.at(-1) ?? '';
  if (answer === 'files') return f.io.out(':files\n');
  const candidates = 'values' in answer ? await valueCandidates(f, answer.values, words.slice(0, -1), current) : answer.words;
  const matching = candidates.filter((word) => word.startsWith(current));
  f.io.out([...matching, ':none'].map((line) => `${line}\n`).join(''));
}

/** How long Tab may wait for the ids: about half a second, then nothing. */
export const VALUES_WAIT_MS = 500;
/**
 * The end of Tab's wait, asked for as the first request starts, after gymctl has loaded and made its client, so that a slow
 * start (Wine, a cold disk, an antivirus) is not taken from the server's half second. In-process tests put their own here, so
 * that what they check does not hang on the machine's speed.
 */
export const tabWait = { deadline: (): AbortSignal => AbortSignal.timeout(VALUES_WAIT_MS) };
/** A cached answer this young is used rather than asking the server. */
const CACHED_VALUES_MS = 60 * 60_000;

/**
 * The listed ids (the key's academies) that start with what is typed, the first MAX_NAMED with their names after a tab but for
 * bash, which would not show them: from the response cache when fresh (only read), else from the server within tabWait. Never a
 * key from the keyring, which might ask to be unlocked. Nothing on any failure; a refused key (401, 403) ends every request.
 */
async function valueCandidates(f: CompleteDeps, declaration: OperationDeclaration, typed: readonly string[], current: string): Promise<string[]> {
  const values = declaration.values!;
  try {
    const settings = await f.settings();
    if (!settings.apiKey || !settings.baseUrl) return [];
    const client = await f.makeClient(settings.baseUrl.value, settings.apiKey.value, { readCacheMs: CACHED_VALUES_MS });
    const deadline = tabWait.deadline();
    // The deadline stops the client, and with it every request in flight: one listener. A request given the deadline's
    // signal adds one of its own to it, and past ten names at once Node warned of a leak on stderr.
    if (deadline.aborted) return [];
    deadline.addEventListener('abort', () => void client.close(), { once: true });
    const ask: Ask = (d, id) => client.ask(d, id) as never;
    const { ids } = await values.load(ask);
    const wanted = ids.filter((id) => String(id).startsWith(current) && !typed.includes(String(id)));
    const { label } = values;
    const named = label && f.env[SHELL_VARIABLE] !== 'bash' ? wanted.slice(0, MAX_NAMED) : [];
    const names = await Promise.all(
      named.map((id) =>
        client.ask(declaration, id).then(
          (record) => label!(record) ?? undefined,
          (error: unknown) => {
            // Refused for one id, the key is refused for all: the others stop now, as the deadline stops them.
            if (GymApiError.isUnauthorized(error)) void client.close();
            return undefined;
          },
        ),
      ),
    );
    // Names come from the server: made safe, and never able to break a line or add a field.
    return wanted.map((id, i) => (names[i] ? `${id}\t${sanitizeLine(names[i]!).replace(/\t/g, ' ')}` : String(id)));
  } catch {
    return [];
  }
}

/** At most this many ids are named (each name is a request when the cache has none); the others are offered alone. */
const MAX_NAMED = 50;
