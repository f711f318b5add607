/**
 * The pre-scan: what argv says before the parser has read it (for the one command to build, the report of the parser's
 * errors and the `--json FIELDS` hint), by the parser's own rules for the global options, as commander applies them:
 * - `--` ends the options: every word after it is an operand.
 * - A global option that takes a value takes the next word, whatever it is (`--profile academy`, `--jq -`), or what
 *   follows `=` in its own word (`--format=json`), or, for a short one, the rest of its word (`-q.id`).
 * - `-`, and every word that does not start with `-`, is an operand; the first is the command (`gymctl -- version` too).
 * - Every other word starting with `-` is an option that takes no value: the table's (`--json`), a command's own
 *   (`academy --concurrency 4 1`: `4` is read as an operand, after the command, which is all the scan's users read), or a
 *   mistake the parser reports.
 */
import { GLOBAL_FLAGS } from './flags.js';

/** The global options that take a value, by every name (`-q`, `--jq`), each to its long name (`-o`, `--output`: `--format`'s): from the flag table. */
export const VALUE_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(
  GLOBAL_FLAGS.filter((flag) => flag.flags.includes('<')).flatMap((flag) => {
    const names = flag.flags.split(/[ ,]/).filter((word) => word.startsWith('-'));
    return names.map((name) => [name, flag.sameAs ?? names.at(-1)!]);
  }),
);

export interface ArgvScan {
  /** The operands in order: the command, its subcommands and their arguments, those after `--` included. */
  readonly operands: readonly string[];
  /** The first operand: the command argv names, if any. */
  readonly command: string | undefined;
  /** Every option given: those that take a value by their long name (`-q` is `--jq`, `-o` is `--format`), the others as written (`--json`, `--bogus=1`). */
  readonly options: ReadonlySet<string>;
  /** The value of each option given with one, by long name; the last one given wins, as in the parser. */
  readonly values: ReadonlyMap<string, string>;
  /** The operand right after an option that takes no value, by the option: `--json id,name`. */
  readonly operandAfter: ReadonlyMap<string, string>;
  /** -h or --help was given as an option. */
  readonly help: boolean;
}

/** What argv says, by the rules above. */
export function scanArgv(argv: readonly string[]): ArgvScan {
  const operands: string[] = [];
  const options = new Set<string>();
  const values = new Map<string, string>();
  const operandAfter = new Map<string, string>();
  /** The option that takes no value given just before this word. */
  let flag: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const before = flag;
    flag = undefined;
    if (word === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (word === '-' || !word.startsWith('-')) {
      operands.push(word);
      if (before !== undefined && !operandAfter.has(before)) operandAfter.set(before, word);
      continue;
    }
    const long = VALUE_FLAGS[word];
    if (long !== undefined) {
      options.add(long);
      if (i + 1 < argv.length) values.set(long, argv[++i]!);
      continue;
    }
    // `--format=json`, `-q.id`: the option and its value in one word.
    const equals = word.startsWith('--') ? word.indexOf('=') : -1;
    const joined = equals > 0 ? VALUE_FLAGS[word.slice(0, equals)] : word.startsWith('--') ? undefined : VALUE_FLAGS[word.slice(0, 2)];
    if (joined !== undefined) {
      options.add(joined);
      values.set(joined, word.slice(equals > 0 ? equals + 1 : 2));
      continue;
    }
    options.add(word);
    flag = word;
  }
  return { operands, command: operands[0], options, values, operandAfter, help: options.has('-h') || options.has('--help') };
}
