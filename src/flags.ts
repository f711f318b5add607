/**
 * Every global flag, declared once, with the commands (by path: `academy`, `auth status`) it applies to: what the parser
 * defines, each command's help shows and Tab offers. Elsewhere it is a usage error, as gh refuses a flag a command does not define.
 */
import { usageError } from './failures.js';
import { commandNames } from './operations/declare.js';
import { OPERATIONS } from './operations/index.js';

/** The commands that print records, every declared operation's: every output flag applies to them. */
const RECORDS = OPERATIONS.flatMap(commandNames);
/** The commands that talk to the API with the profile's settings. */
const NETWORK = [...RECORDS, 'api', 'auth status', 'auth login', 'doctor', 'mcp'];
/** The commands that take a format. */
const FORMATTED = [...RECORDS, 'auth status'];

export interface GlobalFlag {
  flags: string;
  description: string;
  /** The commands it applies to; a command group that lists it shows it in its help, for its subcommands. */
  commands: readonly string[];
  /** Commands that refuse it with a reason of their own. */
  refusals?: Readonly<Record<string, string>>;
  /** The flag it is another name of (`--output` of `--format`), whose value the pre-scan reads it as. */
  sameAs?: string;
}

export const GLOBAL_FLAGS: readonly GlobalFlag[] = [
  {
    flags: '--format <format>',
    description:
      'output format: table, json, ndjson or csv (default table); with json, ndjson and csv, each error is one JSON line on stderr, for the program that reads the output (gymctl help exit-codes)',
    commands: FORMATTED,
  },
  { flags: '-o, --output <format>', description: 'same as --format, as kubectl and the Stripe CLI name it', commands: FORMATTED, sameAs: '--format' },
  { flags: '--json', description: 'print JSON: the response data exactly as received (same as --format json)', commands: [...RECORDS, 'auth status', 'config list', 'doctor'] },
  {
    flags: '-q, --jq <expression>',
    description: 'filter JSON output with jq (implies --json); strings print raw, one result a line',
    commands: [...RECORDS, 'api', 'auth status', 'config list', 'schema', 'doctor'],
  },
  { flags: '--slurp', description: 'run --jq once over all the records as one array (as jq -s), to count, group or sum a batch', commands: RECORDS },
  { flags: '--columns <list>', description: 'fields of table and csv output, in order, such as id,name,address.city', commands: RECORDS },
  { flags: '--no-headers', description: 'no header row in table, tab-separated and csv output', commands: RECORDS },
  {
    flags: '--bom',
    description: 'start csv output with a UTF-8 byte-order mark, so that Excel reads accented names right (config set csv-bom true: every run)',
    commands: RECORDS,
  },
  { flags: '--no-bom', description: 'no byte-order mark before csv output, even with config set csv-bom true', commands: RECORDS },
  { flags: '--cache <duration>', description: 'answer from a local cache when it holds an answer younger than this (30s, 5m, 1h)', commands: [...RECORDS, 'api'] },
  { flags: '--refresh', description: 'fetch from the server even when the cache holds an answer, and cache it', commands: [...RECORDS, 'api'] },
  { flags: '--base-url <url>', description: 'API base address (env GYMCTL_BASE_URL)', commands: NETWORK },
  {
    flags: '--profile <name>',
    description: 'stored profile to use (env GYMCTL_PROFILE; default "default")',
    commands: [...NETWORK, 'auth', 'auth logout', 'config', 'config list', 'config get', 'config set', 'config unset'],
  },
  {
    flags: '--sandbox',
    description: 'run against an in-process sandbox API with the demo key',
    commands: [...RECORDS, 'api', 'auth status', 'mcp'],
    refusals: {
      'auth login': '--sandbox cannot be used with auth login: run `gymctl sandbox` and log in against the base URL it prints',
      'auth logout': '--sandbox cannot be used with auth logout: the sandbox keeps no key',
    },
  },
  { flags: '--timeout <duration>', description: 'time limit of each request: seconds (10, 0.5) or 500ms, 5s, 2m (default 30s)', commands: NETWORK },
  { flags: '--retries <n>', description: 'retries of 408, 429, 5xx, timeouts and dropped connections, 0 to 10 (default 2)', commands: NETWORK },
  { flags: '--allow-http', description: 'allow a plain http base URL that is not loopback (the key is sent in clear)', commands: [...NETWORK, 'config set', 'config list'] },
  { flags: '--debug', description: 'trace requests on stderr, the key redacted (also GYMCTL_DEBUG=1)', commands: NETWORK },
  { flags: '--no-color', description: 'no colour in tables (also NO_COLOR=1)', commands: [...RECORDS, 'auth status', 'doctor'] },
];

/** `--format` of `--format <format>`, `--jq` of `-q, --jq <expression>`. */
export const longOf = (flag: GlobalFlag) => flag.flags.split(/[ ,]+/).find((word) => word.startsWith('--'))!;

const byLong = new Map(GLOBAL_FLAGS.map((flag) => [longOf(flag), flag]));

/** Whether the global flag `long` applies to the command at `path` (the top level, '', takes them all). */
export const appliesTo = (long: string, path: string): boolean => path === '' || (byLong.get(long)?.commands.includes(path) ?? true);

/** A global flag given to a command it does nothing for is a usage error, naming where it does apply. */
export function checkFlagScope(path: string, given: readonly string[]): void {
  for (const long of given) {
    const flag = byLong.get(long);
    if (!flag || appliesTo(long, path)) continue;
    const refusal = flag.refusals?.[path];
    if (refusal) throw usageError(refusal);
    const where = flag.commands.filter((name) => !['auth', 'config'].includes(name)).map((name) => `\`gymctl ${name}\``);
    throw usageError(`${long} does not apply to \`gymctl ${path}\`: it applies to ${where.join(', ')}`);
  }
}
