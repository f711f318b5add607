/**
 * `gymctl __complete -- WORD…`: what can come after `gymctl WORD…` (the last word under the cursor), one candidate a line, then
 * `:files` (the shell completes file names) or `:none`. A candidate may carry a description after a tab (an academy's name),
 * except for bash, whose script says so in SHELL_VARIABLE (an older script, which does not, is answered as zsh's).
 */
import type { Command, Option } from 'commander';
import { GymApiError } from '../../api/errors.js';
import { KEY_STORES, OUTPUT_FORMATS, PROFILE_NAME } from '../../config/formats.js';
import { CONFIG_KEYS, GLOBAL_CONFIG_KEYS } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import { appliesTo, GLOBAL_FLAGS, longOf } from '../../flags.js';
import { columnNames } from '../../output/columns.js';
import { viewsOf } from '../../output/views.js';
import { commandNames, type OperationDeclaration } from '../../operations/declare.js';
import { OPERATIONS } from '../../operations/index.js';
import { sanitizeLine } from '../../output/sanitize.js';
import { HELP_TOPICS } from '../help-topics.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'pwsh'] as const;
/** The shell that asks: a variable rather than an argument, so that an older gymctl still completes with a newer script. */
export const SHELL_VARIABLE = 'GYMCTL_COMPLETE_SHELL';

type CompleteDeps = Pick<Factory, 'io' | 'env' | 'config' | 'settings' | 'makeClient'>;
/** Shell words after which a file name comes. */
const REDIRECTIONS = new Set(['<', '>', '>>', '2>', '2>>', '&>', '<<<', '>|']);

/** Candidates (the ids an operation lists are fetched), or file names. */
type Answer = readonly string[] | Promise<readonly string[]> | 'files';

type Values = Readonly<Record<string, readonly string[]>>;
const BOOLEAN = ['true', 'false'];
const CONFIG_KEY_NAMES = [...Object.keys(CONFIG_KEYS), ...Object.keys(GLOBAL_CONFIG_KEYS)];
/** The values of an option that takes one of a few; the first argument of a command, by its path; the value of `config set KEY`. */
const OPTION_VALUES: Values = { '--format': OUTPUT_FORMATS, '--cache': ['30s', '5m', '1h', '1d'], '--shell': SHELLS };
const FIRST_ARGUMENT: Values = {
  completion: SHELLS,
  schema: OPERATIONS.map((d) => d.name),
  'config get': CONFIG_KEY_NAMES,
  'config unset': CONFIG_KEY_NAMES,
  'config set': CONFIG_KEY_NAMES,
};
const SET_VALUES: Values = { format: OUTPUT_FORMATS, 'key-store': KEY_STORES, accessible: BOOLEAN, 'csv-bom': BOOLEAN };
/** A table's values for a word, which may be anything typed. */
const valuesOf = (table: Values, word = '') => (Object.hasOwn(table, word) ? table[word]! : []);

/** The subcommands help lists (commander's public Help API), without commander's own `help` of a group. */
const visibleCommands = (command: Command) =>
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
  if (long === '--columns') {
    // A list: the names already given stay, the last one is completed, with none of those already chosen.
    const declaration = BY_COMMAND.get(path.join(' '));
    const before = current.slice(0, current.lastIndexOf(',') + 1);
    const chosen = new Set(before.split(',').filter(Boolean));
    return declaration ? columnNames(viewsOf(declaration).many).flatMap((name) => (chosen.has(name) ? [] : [before + name])) : [];
  }
  if (long === '--data') return 'files';
  if (long === '--profile') return profileNames(f);
  return valuesOf(OPTION_VALUES, long);
}

/** Values for the next argument of the command at `path`, given the arguments before it and every word typed. */
function argumentValues(f: CompleteDeps, program: Command, path: string, before: string[], typed: readonly string[], current: string): Answer {
  const declaration = BY_COMMAND.get(path);
  // Ids an operation's declaration lists (the key's academies); never ids that are personal (member ids).
  if (declaration?.values && path === declaration.command.name) return valueCandidates(f, declaration, typed, current);
  if (path === 'help') {
    // `help auth ` offers what `auth` has, as `gymctl auth ` would.
    const command = before.reduce<Command | undefined>((at, name) => at?.commands.find((c) => c.name() === name), program);
    return command ? [...(before.length === 0 ? Object.keys(HELP_TOPICS) : []), ...visibleCommands(command).map((c) => c.name())] : [];
  }
  if (before.length === 0) return valuesOf(FIRST_ARGUMENT, path);
  if (path !== 'config set' || before.length > 1) return [];
  return before[0] === 'default-profile' ? profileNames(f) : valuesOf(SET_VALUES, before[0]);
}

function complete(f: CompleteDeps, program: Command, words: readonly string[]): Answer {
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
  if (current.startsWith('-')) return flagsOf(optionsFor(command, path));
  if (operands.length === 0 && command.commands.length > 0) return visibleCommands(command).map((c) => c.name());
  return argumentValues(f, program, path.join(' '), operands, typed, current);
}

export async function runComplete(f: CompleteDeps, program: Command, words: readonly string[]): Promise<void> {
  const answer = complete(f, program, words.length === 0 ? [''] : words);
  if (answer === 'files') return f.io.out(':files\n');
  const current = words.at(-1) ?? '';
  const matching = (await answer).filter((word) => word.startsWith(current));
  f.io.out([...matching, ':none'].map((line) => `${line}\n`).join(''));
}

/** How long Tab may wait for the ids: about half a second, then nothing. */
export const VALUES_WAIT_MS = 500;
/**
 * The end of Tab's wait, asked for as the first request starts, so that a slow start (Wine, a cold disk, an antivirus) is not
 * taken from the server's half second. In-process tests put their own here.
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
    const { ids } = await values.load((d, id) => client.ask(d, id) as never);
    const wanted = ids.filter((id) => String(id).startsWith(current) && !typed.includes(String(id)));
    const { label } = values;
    const named = label && f.env[SHELL_VARIABLE] !== 'bash' ? wanted.slice(0, MAX_NAMED) : [];
    const unnamed = (error: unknown) => void (GymApiError.isUnauthorized(error) && client.close());
    const names = await Promise.all(named.map((id) => client.ask(declaration, id).then(label!, unnamed)));
    // Names come from the server: made safe, and never able to break a line or add a field.
    return wanted.map((id, i) => (names[i] ? `${id}\t${sanitizeLine(names[i]!).replace(/\t/g, ' ')}` : String(id)));
  } catch {
    return [];
  }
}

/** At most this many ids are named (each name is a request when the cache has none); the others are offered alone. */
const MAX_NAMED = 50;
