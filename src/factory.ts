/**
 * What commands are made of, as gh's Factory: plain lazy members, each built once, when first asked for, so `--help`
 * never reads the key or loads the HTTP client. A command takes only the members it uses, a `Pick` of Factory.
 */
import { createClient, type GymClient } from './api/client.js';
import { API_KEY_FORM } from './api/defaults.js';
import { GymctlError } from './api/errors.js';
import { once } from './api/once.js';
import type { ResponseCache } from './api/transport/types.js';
import { parseDuration } from './cache/duration.js';
import {
  checkProfileExists,
  type GlobalFlags,
  isInsecureBaseUrl,
  loginFor,
  profileFlag,
  type ResolvedSettings,
  resolveProfileName,
  resolveSettings,
  type Setting,
} from './config/settings.js';
import { ConfigStore, configDir } from './config/store.js';
import { usageError } from './failures.js';
import { type OutputChoice, resolveOutput } from './output/choice.js';
import { withNextStep } from './output/errors.js';
import type { JqFilter } from './output/jq.js';
import { sanitizeLine } from './output/sanitize.js';
import type { IO } from './terminal/io.js';
import { VERSION } from './version.js';

/** The client of an API command, with the settings, base URL and key it was made from (each with where it came from). */
export interface ApiSession {
  settings: ResolvedSettings;
  baseUrl: Setting<string>;
  apiKey: Setting<string>;
  client: GymClient;
  /** A failure with its next step: where the refused key or the unreachable base URL came from. Anything else as it is. */
  explain<E>(error: E): E;
}

export interface Factory {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  /** Aborted, with an Interrupted reason, when the user interrupts: every client's requests stop. */
  readonly signal: AbortSignal;
  config(): ConfigStore;
  profileName(): Setting<string>;
  settings(): Promise<ResolvedSettings>;
  output(): Promise<OutputChoice>;
  /** Prints a JSON document a command makes itself (a status, the settings, a schema), through --jq when it is given. */
  printJson(text: string): Promise<void>;
  /** The system keyring: the key of a profile whose config says it is kept there (undefined for none). */
  readonly keyring: { read(profile: string): Promise<Setting<string> | undefined> };
  /** A client for one base URL and key; closed when the command ends, its requests aborted on an interrupt. With `readCacheMs` (Tab's), answers that young come from the response cache, which is only read, and silently. */
  makeClient(baseUrl: string, apiKey: string, use?: { readCacheMs?: number }): Promise<GymClient>;
  /** The client of an API command, built once a run; `maxConnections` (the first call's) bounds the pool of a batch. */
  client(maxConnections?: number): Promise<ApiSession>;
  onDispose(dispose: () => Promise<void>): void;
}

export interface FactoryOptions extends Pick<Factory, 'io' | 'env' | 'signal'> {
  flags: Readonly<GlobalFlags>;
  /** Where closers go, closed last opened first when the run ends. */
  disposers: Array<() => Promise<void>>;
}

export function createFactory({ io, env, signal, flags, disposers }: FactoryOptions): Factory {
  const onDispose = (dispose: () => Promise<void>) => void disposers.push(dispose);
  const config = once(() => new ConfigStore(configDir(env), { warn: (message) => io.err(`gymctl: ${message}\n`), signal }));
  // Only read the file for its default-profile when nothing else names one.
  const profileName = () => resolveProfileName(flags, env, flags.profile || env.GYMCTL_PROFILE ? undefined : config().read().defaultProfile);
  const settings = once(async () => resolveSettings(flags, env, profileName(), config().profile(profileName().value)));
  const compileJq = once(async (): Promise<JqFilter> => {
    const filter = await (await import('./output/jq.js')).compileJq(flags.jq ?? '.', signal);
    onDispose(() => filter.close());
    return filter;
  });
  let made: Promise<ApiSession> | undefined;
  const factory: Factory = {
    io,
    env,
    signal,
    config,
    profileName,
    settings,
    output: once(async () => resolveOutput(flags, (await settings()).format, compileJq, config().read().csvBom === true)),
    async printJson(text) {
      if (flags.jq === undefined) return io.out(text);
      await (await compileJq()).print((out) => io.out(out), text, io.stdoutIsTTY, io.stdout);
    },
    keyring: {
      async read(profile) {
        if (config().profile(profile)?.keyStore !== 'keyring') return undefined;
        const key = (await (await import('./keyring/client.js')).readKeyringKey(profile, { env, signal }))?.trim();
        return key ? { value: key, source: 'keyring', origin: 'the system keyring' } : undefined;
      },
    },
    makeClient: async (baseUrl, apiKey, use = {}) =>
      newClient(factory, baseUrl, apiKey, undefined, use.readCacheMs === undefined ? undefined : await openResponseCache(factory, baseUrl, apiKey, use.readCacheMs, true)),
    client: (maxConnections) => (made ??= apiSession(factory, flags, maxConnections)),
    onDispose,
  };
  return factory;
}

/**
 * The session of an API command: --cache checked first, then the base URL and key (the sandbox's with --sandbox, else
 * from the flag or environment, the file, or the keyring that the file names), then the client.
 */
async function apiSession(f: Factory, flags: Readonly<GlobalFlags>, maxConnections: number | undefined): Promise<ApiSession> {
  const lifetimeMs = flags.cache === undefined ? undefined : parseDuration(flags.cache, '--cache');
  const settings = await f.settings();
  const profile = settings.profile.value;
  let { baseUrl, apiKey } = settings;
  // Each command a message names keeps the profile (--sandbox, with its own key and base URL, names none).
  const again = flags.sandbox ? '' : profileFlag(profile, f.config().read());
  // A mistyped --profile is said as such, not as a missing key (with --sandbox too, as the profile's settings still apply).
  checkProfileExists(settings.profile, f.config().read());
  if (flags.sandbox) {
    if (flags.baseUrl) throw usageError('--sandbox and --base-url cannot be used together');
    const [{ startSandbox }, { DEMO_KEY }] = await Promise.all([import('./sandbox/server.js'), import('./sandbox/demo-data.js')]);
    const server = await startSandbox({ host: '127.0.0.1', port: 0 });
    f.onDispose(() => server.close());
    baseUrl = { value: server.url, source: 'flag', origin: '--sandbox' };
    apiKey = { value: DEMO_KEY, source: 'flag', origin: '--sandbox' };
  } else {
    apiKey ??= await f.keyring.read(profile);
    const login = `\`gymctl auth login --keyring${again}\` (or --no-keyring to keep it in the config file)`;
    if (!apiKey && f.config().profile(profile)?.keyStore === 'keyring')
      throw new GymctlError('unauthorized', `no API key in the system keyring for profile "${profile}", which keeps its key there: run ${login}`);
  }
  if (!apiKey) throw new GymctlError('unauthorized', `no API key for profile "${profile}": run \`${loginFor(baseUrl, again)}\` or set GYMCTL_API_KEY (or try --sandbox)`);
  const keyOrigin = apiKey.origin ?? apiKey.source;
  if (!API_KEY_FORM.test(apiKey.value))
    throw usageError(`the API key from ${keyOrigin} contains characters an API key cannot have (spaces, control or non-ASCII characters); the key is not shown`);
  if (!baseUrl) throw usageError(`no API base URL for profile "${profile}": pass --base-url, set GYMCTL_BASE_URL, or run \`gymctl config set base-url URL${again}\``);
  // With --refresh, answers are only stored, never read. The sandbox listens on a new port each run, and its answers never change: its entries go under one name.
  const cached = flags.cache !== undefined || flags.refresh;
  const cache = cached ? await openResponseCache(f, flags.sandbox ? 'sandbox' : baseUrl.value, apiKey.value, flags.refresh ? undefined : lifetimeMs, false) : undefined;
  const client = await newClient(f, baseUrl.value, apiKey.value, maxConnections, cache);
  // The sandbox's base URL is its own, never a wrong one.
  const context = { keyOrigin, baseUrlOrigin: baseUrl.origin ?? baseUrl.source, baseUrl: flags.sandbox ? undefined : baseUrl.value, profileFlag: again };
  return { settings, baseUrl, apiKey, client, explain: (error) => (error instanceof GymctlError ? (withNextStep(error, context) as typeof error) : error) };
}

/** The response cache for a base URL and key, if it can be used; read-only (Tab's), it never warns. */
async function openResponseCache({ io, env }: Factory, origin: string, apiKey: string, lifetimeMs: number | undefined, readOnly: boolean): Promise<ResponseCache | undefined> {
  const warn = readOnly ? () => {} : (message: string) => io.err(`gymctl: warning: ${message}\n`);
  try {
    return (await import('./cache/store.js')).openCache({ env, baseUrl: origin, apiKey, lifetimeMs, warn, readOnly });
  } catch (error) {
    // The cache is a convenience: when it cannot be used (a read-only or foreign folder, a full disk), the answer comes from the server.
    warn(`the cache cannot be used, so the answer comes from the server: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

async function newClient(f: Factory, baseUrl: string, apiKey: string, maxConnections?: number, responseCache?: ResponseCache): Promise<GymClient> {
  const { io, env, signal } = f;
  const resolved = await f.settings();
  if (isInsecureBaseUrl(baseUrl)) io.err(`gymctl: warning: sending the API key over plain http to ${new URL(baseUrl).host} (--allow-http)\n`);
  const client = createClient({
    baseUrl,
    apiKey,
    timeoutMs: resolved.timeoutMs.value,
    retries: resolved.retries.value,
    maxConnections,
    userAgent: `gymctl/${VERSION}`,
    signal,
    env,
    // The base URL passed the https rule already; --allow-http is the only way here off loopback.
    allowInsecureHttp: true,
    ...(responseCache ? { cache: responseCache } : {}),
    // Trace lines quote the server (a Retry-After reason, a status text): made safe like error lines.
    ...(resolved.debug ? { debug: (line: string) => io.err(`${sanitizeLine(`debug: ${line}`)}\n`) } : {}),
  });
  f.onDispose(() => client.close());
  return client;
}
