/** Where each setting comes from: a flag, else the environment, else the stored profile, else the default. Pure, so the rules are tested alone. */
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRIES, MAX_TIMEOUT_MS } from '../api/defaults.js';
import { durationMs } from '../cache/duration.js';
import { usageError } from '../failures.js';
import { parseWholeNumber } from '../files/system.js';
import { baseUrlProblem, schemeProblem } from '../api/base-url.js';
import { isLoopbackHost } from '../api/transport/loopback.js';
import { KEY_STORES, OUTPUT_FORMATS, PROFILE_NAME, type KeyStore, type OutputFormat } from './formats.js';
import type { ConfigFile, Profile } from './schema.js';
import type { GymctlError } from '../api/errors.js';
import { closest, didYouMean } from '../commands/shared/suggest.js';

export const DEFAULT_PROFILE = 'default';

/** The global options as commander hands them over. */
export interface GlobalFlags {
  json?: boolean;
  format?: string;
  /** -o, --output: --format by another name. */
  output?: string;
  baseUrl?: string;
  profile?: string;
  sandbox?: boolean;
  timeout?: string;
  retries?: string;
  color?: boolean;
  debug?: boolean;
  allowHttp?: boolean;
  jq?: string;
  slurp?: boolean;
  columns?: string;
  /** False with --no-headers. */
  headers?: boolean;
  /** True with --bom, false with --no-bom. */
  bom?: boolean;
  cache?: string;
  refresh?: boolean;
}

export type Source = 'flag' | 'env' | 'config' | 'keyring' | 'default';

export interface Setting<T> {
  value: T;
  source: Source;
  /** The flag or variable it came from, for messages. */
  origin?: string;
}

export interface ResolvedSettings {
  profile: Setting<string>;
  baseUrl: Setting<string> | undefined;
  apiKey: Setting<string> | undefined;
  format: Setting<OutputFormat>;
  timeoutMs: Setting<number>;
  retries: Setting<number>;
  /** --debug or GYMCTL_DEBUG=1: trace requests on stderr. */
  debug: boolean;
}

const first = <T>(...candidates: Array<Setting<T> | undefined>): Setting<T> | undefined => candidates.find((candidate) => candidate !== undefined);

const fromValue = <T>(value: T | undefined, source: Source, origin?: string): Setting<T> | undefined =>
  value === undefined || value === '' ? undefined : { value, source, ...(origin ? { origin } : {}) };

/** A flag given an empty value (`--timeout ''`) was given all the same: it is checked, and refused, rather than taken for unset. */
const fromFlag = (value: string | undefined, origin: string): Setting<string> | undefined => (value === undefined ? undefined : { value, source: 'flag', origin });

/** The active profile: --profile, else GYMCTL_PROFILE, else the stored default-profile, else `default`. */
export function resolveProfileName(flags: GlobalFlags, env: NodeJS.ProcessEnv, storedDefault?: string): Setting<string> {
  const chosen = first(fromFlag(flags.profile, '--profile'), fromValue(env.GYMCTL_PROFILE, 'env', 'GYMCTL_PROFILE'), fromValue(storedDefault, 'config', 'default-profile')) ?? {
    value: DEFAULT_PROFILE,
    source: 'default',
  };
  parseProfileName(chosen.value, chosen.origin);
  return chosen;
}

/** True for a base URL that sends the key in clear text off this machine. */
export function isInsecureBaseUrl(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

/**
 * A base URL: absolute, with no credentials, query or fragment, since the key is sent to it and paths are appended to it; and
 * https, but for loopback, unless `allowHttp` (--allow-http) says otherwise.
 */
export function parseBaseUrl(text: string, origin: string, allowHttp = false): string {
  // `localhost:4010` or `api.example.com`: a host with no scheme, which the URL parser would read as a scheme or refuse.
  const bare = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:\d{1,5})?(\/[^?#\s]*)?$/.exec(text);
  if (bare && !text.includes('://')) {
    const suggestion = `${isLoopbackHost(bare[1]!) ? 'http' : 'https'}://${text}`;
    throw usageError(`invalid base URL ${JSON.stringify(text)} (from ${origin}): it has no scheme; did you mean ${suggestion}?`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`invalid base URL ${JSON.stringify(text)} (from ${origin}): expected an absolute URL such as https://api.example.com`);
  }
  const rule = baseUrlProblem(url, allowHttp);
  const problem =
    rule && 'scheme' in rule
      ? schemeProblem(rule.scheme)
      : url.username || url.password
        ? 'it must not contain credentials'
        : url.search || text.includes('?')
          ? 'it must not contain a query'
          : url.hash || text.includes('#')
            ? 'it must not contain a fragment'
            : undefined;
  if (problem) throw usageError(`invalid base URL (from ${origin}): ${problem}`);
  if (rule && 'insecureHost' in rule)
    throw usageError(`refusing to send the API key over plain http to ${rule.insecureHost} (base URL from ${origin}): use https, or pass --allow-http if you must`);
  return url.href.replace(/\/+$/, '');
}

export function parseRetries(text: string, origin: string): number {
  const value = parseWholeNumber(text, 0, MAX_RETRIES);
  if (value === undefined) {
    throw usageError(`invalid retries ${JSON.stringify(text)} (from ${origin}): expected a whole number from 0 to ${MAX_RETRIES}`);
  }
  return value;
}

/**
 * A timeout: a bare number is seconds (`5`, `0.5`), as curl's --max-time and gh take it, or a duration (`5s`, `500ms`, `2m`),
 * as --cache takes them. From 1 ms to 2^31−1 ms (about 24 days), the longest timer Node has.
 */
export function parseTimeout(text: string, origin: string): number {
  const seconds = /^(?:0|[1-9]\d*)(?:\.\d+)?$/.test(text) ? Math.round(Number(text) * 1000) : undefined;
  const ms = seconds ?? durationMs(text);
  if (ms === undefined || !(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw usageError(
      `invalid timeout ${JSON.stringify(text)} (from ${origin}): expected seconds (a number such as 10 or 0.5) or a duration such as 500ms, 10s or 2m, from 1 ms to about 24 days`,
    );
  }
  return ms;
}

/** A stored timeout (milliseconds) as `config get` shows it, in a form `config set` and --timeout read back: `10s`, `1500ms`. */
export const showTimeout = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

export function parseFormat(text: string, origin: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(text)) return text as OutputFormat;
  throw usageError(`invalid format ${JSON.stringify(text)} (from ${origin}): expected one of ${OUTPUT_FORMATS.join(', ')}${didYouMean(text, OUTPUT_FORMATS)}`);
}

function parseKeyStore(text: string, origin: string): KeyStore {
  if ((KEY_STORES as readonly string[]).includes(text)) return text as KeyStore;
  throw usageError(`invalid key store ${JSON.stringify(text)} (from ${origin}): expected config (the config file) or keyring (the system keyring)${didYouMean(text, KEY_STORES)}`);
}

/** GYMCTL_DEBUG turns tracing on with any value but these, which say no. */
const OFF = new Set(['', '0', 'false', 'no', 'off']);

export const isDebug = (flags: GlobalFlags, env: NodeJS.ProcessEnv) => Boolean(flags.debug) || (env.GYMCTL_DEBUG !== undefined && !OFF.has(env.GYMCTL_DEBUG.trim().toLowerCase()));

/** The format the flags ask for: `--format` or `-o`, `--output` (its other name), or `--json` (which is `--format json`). */
export function resolveFormat(flags: GlobalFlags): Setting<OutputFormat> | undefined {
  const given = (['format', 'output'] as const).flatMap((name) => (flags[name] === undefined ? [] : [{ value: parseFormat(flags[name], `--${name}`), origin: `--${name}` }]));
  if (given.length === 2 && given[0]!.value !== given[1]!.value)
    throw usageError(`--format ${given[0]!.value} and --output ${given[1]!.value} ask for different formats: give one of them`);
  const format = given.at(-1);
  if (flags.json && format !== undefined && format.value !== 'json') {
    throw usageError(`--json and ${format.origin} ${format.value} ask for different formats: give one of them`);
  }
  if (flags.json) return { value: 'json', source: 'flag', origin: '--json' };
  return format && { ...format, source: 'flag' };
}

export function resolveSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv, profileName: Setting<string>, profile: Profile | undefined): ResolvedSettings {
  const configOrigin = `profile "${profileName.value}"`;
  // --sandbox brings its own base URL: others are not even checked.
  const baseUrl = flags.sandbox
    ? undefined
    : first(fromFlag(flags.baseUrl, '--base-url'), fromValue(env.GYMCTL_BASE_URL, 'env', 'GYMCTL_BASE_URL'), fromValue(profile?.baseUrl, 'config', configOrigin));
  /** A number from its flag, else the profile, else the default. */
  const numeric = (flag: string, text: string | undefined, parse: (text: string, origin: string) => number, stored: number | undefined, fallback: number): Setting<number> => {
    const given = fromFlag(text, flag);
    return given ? { ...given, value: parse(given.value, flag) } : (fromValue(stored, 'config', configOrigin) ?? { value: fallback, source: 'default' });
  };
  const timeoutMs = numeric('--timeout', flags.timeout, parseTimeout, profile?.timeout, DEFAULT_TIMEOUT_MS);
  const retries = numeric('--retries', flags.retries, parseRetries, profile?.retries, DEFAULT_RETRIES);
  const format = resolveFormat(flags) ?? fromValue(profile?.format, 'config', configOrigin) ?? { value: 'table', source: 'default' };
  return {
    profile: profileName,
    baseUrl: baseUrl && { ...baseUrl, value: parseBaseUrl(baseUrl.value, baseUrl.origin ?? baseUrl.source, flags.allowHttp) },
    // Surrounding whitespace is never part of a key (a pasted key often has a newline).
    apiKey: first(fromValue(env.GYMCTL_API_KEY?.trim(), 'env', 'GYMCTL_API_KEY'), fromValue(profile?.apiKey?.trim(), 'config', configOrigin)),
    format,
    timeoutMs,
    retries,
    debug: isDebug(flags, env),
  };
}

/** A profile not in the file, said as such (never as a missing key): the profiles there are, the nearest, and how to create it (only `auth login` does). */
export function noSuchProfile(name: string, origin: string | undefined, profiles: readonly string[]): GymctlError {
  const sorted = [...new Set([DEFAULT_PROFILE, ...profiles])].sort(); // `default` is always there, stored or not
  const nearest = closest(name, sorted);
  const known = `the profiles are ${sorted.join(', ')}${nearest ? ` (Did you mean ${nearest}?)` : ''}`;
  return usageError(`there is no profile ${JSON.stringify(name)}${origin ? ` (from ${origin})` : ''}: ${known}; create one with \`gymctl auth login --profile ${name}\``);
}

/** Refuses a profile the file does not hold; `default` is always there, stored or not: the environment's key and base URL are all a command needs. */
export function checkProfileExists(profile: Setting<string>, file: ConfigFile): void {
  const profiles = file.profiles ?? {};
  if (profile.value === DEFAULT_PROFILE || Object.hasOwn(profiles, profile.value)) return;
  throw noSuchProfile(profile.value, profile.origin, Object.keys(profiles));
}

export function parseProfileName(text: string, origin: string | undefined): string {
  if (!PROFILE_NAME.test(text)) {
    throw usageError(`invalid profile name ${JSON.stringify(text)}${origin ? ` (from ${origin})` : ''}: use letters, digits, '-' and '_' (at most 64)`);
  }
  return text;
}

/** The settings `gymctl config` reads and writes for the active profile, by their public names. */
export const CONFIG_KEYS = {
  'base-url': { field: 'baseUrl', parse: (text: string, allowHttp?: boolean) => parseBaseUrl(text, 'base-url', allowHttp) },
  format: { field: 'format', parse: (text: string) => parseFormat(text, 'format'), fallback: 'table' },
  timeout: { field: 'timeout', parse: (text: string) => parseTimeout(text, 'timeout'), fallback: DEFAULT_TIMEOUT_MS },
  retries: { field: 'retries', parse: (text: string) => parseRetries(text, 'retries'), fallback: DEFAULT_RETRIES },
  'key-store': { field: 'keyStore', parse: (text: string) => parseKeyStore(text, 'key-store'), fallback: 'config' },
} as const satisfies Record<string, { field: keyof Profile; parse: (text: string, allowHttp?: boolean) => unknown; fallback?: unknown }>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** true or false, as people write them (yes/no, on/off, 1/0). */
export function parseBoolean(text: string, origin: string): boolean {
  const value = text.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(value)) return true;
  if (['false', 'no', 'off', '0'].includes(value)) return false;
  throw usageError(`invalid ${origin} ${JSON.stringify(text)}: expected true or false`);
}

/** Settings of the whole file rather than of a profile. */
export const GLOBAL_CONFIG_KEYS = {
  'default-profile': { field: 'defaultProfile', parse: (text: string) => parseProfileName(text, 'default-profile'), fallback: DEFAULT_PROFILE },
  accessible: { field: 'accessible', parse: (text: string) => parseBoolean(text, 'accessible'), fallback: false },
  /** A UTF-8 byte-order mark before CSV output, as --bom: a spreadsheet's setting, the same for every profile. */
  'csv-bom': { field: 'csvBom', parse: (text: string) => parseBoolean(text, 'csv-bom'), fallback: false },
} as const;

export type GlobalConfigKey = keyof typeof GLOBAL_CONFIG_KEYS;

/** A config key by its name; the key itself is refused, naming the login to run instead, with `again()` (profileFlag's) after it. */
export function configKey(name: string, again = () => ''): ConfigKey | GlobalConfigKey {
  if (Object.hasOwn(CONFIG_KEYS, name) || Object.hasOwn(GLOBAL_CONFIG_KEYS, name)) return name as ConfigKey | GlobalConfigKey;
  if (name === 'api-key' || name === 'key') {
    throw usageError(`the API key is not a config setting: store it with \`gymctl auth login${again()}\`, which keeps it out of the command line`);
  }
  const names = [...Object.keys(CONFIG_KEYS), ...Object.keys(GLOBAL_CONFIG_KEYS)];
  throw usageError(`unknown config key ${JSON.stringify(name)}: expected one of ${names.join(', ')}${didYouMean(name, names)}`);
}

/**
 * ` --profile NAME`, for a command named in a message to act on this profile as typed: none for the profile a command without
 * --profile uses (default-profile, else `default`); GYMCTL_PROFILE may have been set for one run only, so it is named.
 */
export const profileFlag = (profile: string, file: Pick<ConfigFile, 'defaultProfile'>) => (profile === (file.defaultProfile ?? DEFAULT_PROFILE) ? '' : ` --profile ${profile}`);

/** The login to name in a message, as it works when typed: `flags` (profileFlag's), and with no base URL known, the one `auth login` needs. */
export const loginFor = (baseUrl: Setting<string> | undefined, flags = '') => `gymctl auth login${flags}${baseUrl ? '' : ' --base-url URL'}`;

/** The key masked to its last 4 characters; short keys are masked whole. */
export const maskKey = (key: string): string => (key.length >= 12 ? `****${key.slice(-4)}` : '****');
