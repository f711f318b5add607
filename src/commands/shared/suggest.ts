/** Suggestions for a mistyped command, topic, option, profile or value, and the gymctl way of another CLI's habit. */
import type { GymctlError } from '../../api/errors.js';
import type { ArgvScan } from '../../argv.js';
import { usageError } from '../../failures.js';
import { commandNames } from '../../operations/declare.js';
import { OPERATIONS } from '../../operations/index.js';

/** The closest of `names` to a mistyped `word`, if one is close enough to suggest. */
export function closest(word: string, names: readonly string[]): string | undefined {
  // Edits, with two neighbours swapped counted as one (`wrok` is one from `work`), as typos most often are.
  const distance = (a: string, b: string) => {
    let before: number[] = [];
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) {
        next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) next[j] = Math.min(next[j]!, before[j - 2]! + 1);
      }
      before = row;
      row = next;
    }
    return row[b.length]!;
  };
  // Case aside: `JSON` is json, as a shell user means it.
  const [best] = names.map((name) => ({ name, d: distance(word.toLowerCase(), name.toLowerCase()) })).sort((x, y) => x.d - y.d);
  return best && best.d <= Math.max(1, Math.floor(word.length / 3)) ? best.name : undefined;
}

/** ` (Did you mean csv?)`, to end a message about a mistyped `word`, or '' when no name is close enough. */
export function didYouMean(word: string, names: readonly string[]): string {
  const suggestion = closest(word, names);
  return suggestion ? ` (Did you mean ${suggestion}?)` : '';
}

const DEBUG = 'gymctl has no verbose mode: --debug traces each request on stderr, the key redacted';
const PROFILES = 'gymctl has profiles, not contexts:';

/**
 * What users of gh, kubectl and the Stripe CLI type that gymctl says another way, and that way, in one line: the habit is
 * the command's words then an option (`*`: after any command), matched once the parser has refused argv.
 */
const HABITS: ReadonlyArray<readonly [habit: string, answer: string | ((rest: readonly string[]) => string)]> = [
  ['--template', "gymctl has no --template: --jq (-q) picks from the JSON, as --jq '.name'"],
  ['--verbose', DEBUG],
  ['* -v', DEBUG],
  ['--api-key', 'gymctl takes no key as an option (shell history and ps would keep it): pipe it to `gymctl auth login --with-key`, or set GYMCTL_API_KEY'],
  [
    'auth login *',
    'gymctl auth login takes no argument: pipe the key to `gymctl auth login --with-key` (an argument stays in shell history and ps), and name a profile with --profile',
  ],
  ['api --paginate', 'the API has no pages: gymctl api prints each answer whole'],
  ['version --short', 'gymctl version has no --short: `gymctl --version` prints the version alone'],
  ['status', 'gymctl has no status command: `gymctl auth status` checks the key, `gymctl whoami` shows what it sees'],
  ['get', (rest) => `gymctl has no get command: name what to read, as \`gymctl ${OPERATIONS.flatMap(commandNames).includes(rest[0]!) ? rest.join(' ') : 'academies'}\``],
  ['config use-context', `${PROFILES} --profile NAME picks one for a run, \`gymctl config set default-profile NAME\` for every run`],
  ['config get-contexts', `${PROFILES} \`gymctl auth status --all\` lists them`],
];

/** The answer to a habit of another CLI in argv that the parser refused, if it holds one. */
export function habitAnswer({ operands, options }: ArgvScan): GymctlError | undefined {
  const given = (option: string) => [...options].some((word) => word === option || word.startsWith(`${option}=`));
  for (const [habit, answer] of HABITS) {
    const words = habit.split(' ');
    const option = words.at(-1)!.startsWith('-') ? words.pop() : undefined;
    const command = words.every((word, i) => (word === '*' ? operands[i] !== undefined : word === operands[i]));
    if (command && (option === undefined || given(option))) return usageError(typeof answer === 'string' ? answer : answer(operands.slice(words.length)));
  }
  return undefined;
}
