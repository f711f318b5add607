/** `gymctl help exit-codes` and `gymctl help environment`: reference tables, as `gh help` has. */
import { EXIT_CODES } from '../failures.js';

/** How a failure is written, and why CSV's are JSON (the contract's rule). */
const ERROR_LINES = [
  'Each failure is one line on stderr (a system keyring out of reach adds the ways around it, indented, below it): text with table output, `gymctl: <message> (HTTP <status>, correlation ID <id>)`; one JSON line with json, ndjson and csv, and with --jq, `{"error":{…}}` with its message, correlationId, status, kind and id.',
  'CSV is output for programs (a script, a spreadsheet import), as JSON is: a program reads a failure by its kind and status, which the JSON line gives whole. stdout holds the CSV alone either way, so `> file` keeps data and nothing else; the error stays on the screen.',
].join('\n\n');

/** The exit codes, from the one table failures are mapped with (failures.ts's EXIT_CODES). */
function exitCodesTopic(): string {
  const rows = EXIT_CODES.map(({ code, kind, when }) => `  ${String(code).padEnd(5)}${kind ? `${kind}: ` : ''}${when}`);
  return `Exit codes\n\n${rows.join('\n')}\n\nWith several ids, the exit code is that of the first failure in argument order; a refused key (401, 403) stops the batch at once, in one error line that counts the ids not tried (notTried in JSON).\n\n${ERROR_LINES}\n`;
}

/** Each environment variable and what it is: a row of `help environment`, an item of the man page. */
export const ENVIRONMENT: ReadonlyArray<readonly [name: string, what: string]> = [
  ['GYMCTL_API_KEY', 'an API key that overrides the stored one (there is no key flag)'],
  ['GYMCTL_BASE_URL', 'the API base address (--base-url wins over it)'],
  ['GYMCTL_PROFILE', 'the stored profile to use (--profile wins over it)'],
  ['GYMCTL_CONFIG_DIR', 'the config folder (default $XDG_CONFIG_HOME/gymctl, else ~/.config/gymctl; Windows: %APPDATA%\\gymctl)'],
  ['GYMCTL_DEBUG', '1: trace requests on stderr, the key redacted (as --debug); 0, false, no or off: no trace'],
  ['GYMCTL_FORCE_TTY', 'any value: format output as for a terminal, even in a pipe'],
  ['GYMCTL_NO_PROGRESS', 'any value: no progress line for long batches'],
  ['GYMCTL_NO_INPUT', 'any value: never ask at a terminal (gymctl academy with no id is a usage error; auth login needs the key piped in, with --with-key)'],
  ['GYMCTL_ACCESSIBLE', '1: accessible output (no borders, plain cards, progress lines appended); also ACCESSIBLE'],
  ['GYMCTL_NO_CODE_CACHE', "1: no compile cache of gymctl's code (Node 22.1+; in $XDG_CACHE_HOME/gymctl-code-cache)"],
  ['GYMCTL_MCP_TOKEN', 'the bearer token of gymctl mcp --http (16 to 512 visible ASCII characters); unset: one made and printed at start'],
  ['NO_COLOR', 'any value: no colour (as --no-color)'],
  ['FORCE_COLOR', 'colour even when not on a terminal; 0 turns it off'],
  ['HTTPS_PROXY', 'proxy for https base URLs (also https_proxy)'],
  ['HTTP_PROXY', 'proxy for http base URLs (also http_proxy)'],
  ['NO_PROXY', 'hosts to reach without the proxy (also no_proxy)'],
  ['NODE_EXTRA_CA_CERTS', 'a PEM file of extra certificate authorities to trust'],
  ['APPDATA', 'Windows: where the config folder goes by default (%APPDATA%\\gymctl)'],
  ['LOCALAPPDATA', 'Windows: where the caches go by default (%LOCALAPPDATA%\\gymctl, gymctl-code-cache)'],
  ['XDG_CONFIG_HOME', 'where the config folder goes by default, on every system'],
  ['XDG_CACHE_HOME', 'where --cache keeps answers ($XDG_CACHE_HOME/gymctl, default ~/.cache/gymctl), and gymctl its code cache ($XDG_CACHE_HOME/gymctl-code-cache)'],
  ['DBUS_SESSION_BUS_ADDRESS', 'the D-Bus session bus of the Secret Service (Linux), for keys kept in the keyring'],
];

/** A row `  NAME   what it is`, its meaning from the 25th column; a longer name has it on a line of its own. */
function environmentTopic(): string {
  const row = ' '.repeat(24);
  const rows = ENVIRONMENT.map(([name, what]) => `  ${name.length > 20 ? `${name}\n${row}` : name.padEnd(22)}${what.replaceAll('\n', `\n${row}`)}\n`);
  return `Environment variables\n\n${rows.join('')}\nEach setting comes from its flag, else the environment, else the stored profile, else the default.\n`;
}

export const HELP_TOPICS = {
  'exit-codes': exitCodesTopic(),
  environment: environmentTopic(),
} as const;

/** A topic wrapped to `width` at word boundaries: a row `  NAME   what it is` continues under its second column, any other line under its indent. */
export function wrapTopic(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.length <= width) return line;
      const hanging = /^(\s*\S+\s{2,})/.exec(line)?.[1]?.length ?? /^\s*/.exec(line)![0].length;
      const indent = ' '.repeat(hanging < width / 2 ? hanging : 2);
      const lines: string[] = [];
      let current = line.slice(0, hanging);
      for (const word of line.slice(hanging).split(/ +/)) {
        if (current.trim() !== '' && current.length + 1 + word.length > width && current.length > indent.length) {
          lines.push(current.trimEnd());
          current = indent + word;
        } else current += (current.length === hanging || current === indent ? '' : ' ') + word;
      }
      lines.push(current.trimEnd());
      return lines.join('\n');
    })
    .join('\n');
}
