/**
 * What commands are made of, as gh's Factory: plain functions, each built the first time it is called. It is made once
 * a run, before the parser has read the flags, and reads them only when a piece is built, which only a command does:
 * every piece is built from the parsed flags (a failure reported before then takes the pre-scan's). `--help` or
 * `config path` never read the key, load the HTTP client or start a server. Each command takes only the pieces it
 * uses (a `Pick` of Factory), so a test can hand it doubles.
 */
import { createClient, type GymClient } from './api/client.js';
import { API_KEY_FORM } from './api/defaults.js';
import { GymctlError } from './api/errors.js';
import { usageError } from './failures.js';
import type { ResponseCache } from './api/transport/types.js';
import { openCache } from './cache/store.js';
import { once } from './api/once.js';
import { ConfigStore, configDir } from './config/store.js';
import { checkProfileExists, isInsecureBaseUrl, loginFor, resolveProfileName, resolveSettings, type GlobalFlags, type ResolvedSettings, type Setting } from './config/settings.js';
import { resolveOutput, type OutputChoice } from './output/choice.js';
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
}

/** The system keyring, as commands see it: the key of a profile that keeps it there. */
export interface KeyringPort {
  /** The profile's key, when the config file says it is kept in the keyring; undefined when it holds none. */
  read(profile: string): Promise<Setting<string> | undefined>;
}

export interface Factory {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  /** Aborted, with an Interrupted reason, when the user interrupts: every client's requests stop. */
  readonly signal: AbortSignal;
  readonly flags: Readonly<GlobalFlags>;
  config(): ConfigStore;
  profileName(): Setting<string>;
  settings(): Promise<ResolvedSettings>;
  output(): Promise<OutputChoice>;
  /** Prints a JSON document a command makes itself (a status, the settings, a schema), through --jq when it is given. */
  printJson(text: string): Promise<void>;
  readonly keyring: KeyringPort;
  /** The failure with its next step (where the refused key or the unreachable base URL came from), once client() has found them. */
  explain(failure: GymctlError): GymctlError;
  /** A client for one base URL and key; closed when the command ends, its requests aborted on an interrupt. With `readCacheMs` (Tab's), answers that young come from the response cache, which is only read, and silently. */
  makeClient(baseUrl: string, apiKey: string, use?: { readCacheMs?: number }): Promise<GymClient>;
  /** The client of an API command, with the settings it was made from; `maxConnections` bounds the pool of a batch. */
  client(maxConnections?: number): Promise<ApiSession>;
  onDispose(dispose: () => Promise<void>): void;
}

export interface FactoryOptions {
  io: IO;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** The flags of the run: the pre-scan's until the parser has read them, the parser's from then on (before any command runs). */
  flags(): Readonly<GlobalFlags>;
  /** Where closers go, closed last opened first when the run ends. */
  disposers: Array<() => Promise<void>>;
}

export function createFactory(options: FactoryOptions): Factory {
  const { io, env, signal, disposers, flags } = options;
  const onDispose = (dispose: () => Promise<void>) => void disposers.push(dispose);

  const config = once(() => new ConfigStore(configDir(env), { warn: (message) => io.err(`gymctl: ${message}\n`), signal }));
  const profileName = () => {
    const given = flags();
    // Only read the file for its default-profile when nothing else names one.
    return resolveProfileName(given, env, given.profile || env.GYMCTL_PROFILE ? undefined : config().read().defaultProfile);
  };
  const settings = once(async () => {
    const name = profileName();
    return resolveSettings(flags(), env, name, config().profile(name.value));
  });
  const compileJq = once(async (): Promise<JqFilter> => {
    const filter = await (await import('./output/jq.js')).compileJq(flags().jq ?? '.', signal);
    onDispose(() => filter.close());
    return filter;
  });
  const output = once(async () => resolveOutput(flags(), (await settings()).format, compileJq, config().read().csvBom === true));

  const keyring: KeyringPort = {
    async read(profile) {
      if (config().profile(profile)?.keyStore !== 'keyring') return undefined;
      const { readKeyringKey } = await import('./keyring/client.js');
      const key = (await readKeyringKey(profile, { env, signal }))?.trim();
      return key ? { value: key, source: 'keyring', origin: 'the system keyring' } : undefined;
    },
  };

  /** Where the key and base URL in use came from (`GYMCTL_API_KEY`, `profile "work"`…), once credentials() has found them: for explain(). */
  let keyFrom: string | undefined;
  let baseUrlFrom: string | undefined;
  let baseUrlInUse: string | undefined;
  /** The base URL and key of an API command: the sandbox's with --sandbox, else from the flag or environment, the file, or the keyring that the file names. */
  const credentials = once(async (): Promise<Omit<ApiSession, 'client'>> => {
    const resolved = await settings();
    const profile = resolved.profile.value;
    let { baseUrl, apiKey } = resolved;
    if (flags().sandbox) {
      if (flags().baseUrl) throw usageError('--sandbox and --base-url cannot be used together');
      const [{ startSandbox }, { DEMO_KEY }] = await Promise.all([import('./sandbox/server.js'), import('./sandbox/demo-data.js')]);
      const server = await startSandbox({ host: '127.0.0.1', port: 0 });
      onDispose(() => server.close());
      baseUrl = { value: server.url, source: 'flag', origin: '--sandbox' };
      apiKey = { value: DEMO_KEY, source: 'flag', origin: '--sandbox' };
    } else {
      // A mistyped --profile is said as such, not as a missing key.
      checkProfileExists(resolved.profile, config().read());
      apiKey ??= await keyring.read(profile);
      if (!apiKey && config().profile(profile)?.keyStore === 'keyring') {
        throw new GymctlError(
          'unauthorized',
          `no API key in the system keyring for profile "${profile}", which keeps its key there: run \`gymctl auth login --keyring\` (or --no-keyring to keep it in the config file)`,
        );
      }
    }
    if (!apiKey) throw new GymctlError('unauthorized', `no API key for profile "${profile}": run \`${loginFor(baseUrl)}\` or set GYMCTL_API_KEY (or try --sandbox)`);
    if (!API_KEY_FORM.test(apiKey.value)) {
      throw usageError(
        `the API key from ${apiKey.origin ?? apiKey.source} contains characters an API key cannot have (spaces, control or non-ASCII characters); the key is not shown`,
      );
    }
    if (!baseUrl) {
      throw usageError(`no API base URL for profile "${profile}": pass --base-url, set GYMCTL_BASE_URL, or run \`gymctl config set base-url URL\``);
    }
    keyFrom = apiKey.origin ?? apiKey.source;
    baseUrlFrom = baseUrl.origin ?? baseUrl.source;
    // The sandbox's is its own, never a wrong one.
    baseUrlInUse = flags().sandbox ? undefined : baseUrl.value;
    return { settings: resolved, baseUrl, apiKey };
  });

  /** --cache DURATION, checked before anything is sent; with --refresh, answers are only stored, never read. */
  const cacheLifetime = once(async (): Promise<{ lifetimeMs: number | undefined } | undefined> => {
    const { cache, refresh } = flags();
    if (cache === undefined && !refresh) return undefined;
    const { parseDuration } = await import('./cache/duration.js');
    const lifetime = cache === undefined ? undefined : parseDuration(cache, '--cache');
    return { lifetimeMs: refresh ? undefined : lifetime };
  });

  /** The response cache for a base URL and key, if it can be used; read-only (Tab's), it never warns. */
  function openResponseCache(origin: string, apiKey: string, lifetimeMs: number | undefined, readOnly: boolean): ResponseCache | undefined {
    const warn = readOnly ? () => {} : (message: string) => io.err(`gymctl: warning: ${message}\n`);
    try {
      return openCache({ env, baseUrl: origin, apiKey, lifetimeMs, warn, readOnly });
    } catch (error) {
      // The cache is a convenience: when it cannot be used (a read-only or foreign folder, a full disk), the answer comes from the server.
      warn(`the cache cannot be used, so the answer comes from the server: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  async function newClient(baseUrl: string, apiKey: string, maxConnections?: number, responseCache?: ResponseCache): Promise<GymClient> {
    const resolved = await settings();
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
    onDispose(() => client.close());
    return client;
  }

  return {
    io,
    env,
    signal,
    get flags() {
      return flags();
    },
    config,
    profileName,
    settings,
    output,
    async printJson(text) {
      if (flags().jq === undefined) return io.out(text);
      await (await compileJq()).print((out) => io.out(out), text, io.stdoutIsTTY, io.stdout);
    },
    keyring,
    explain: (failure) => withNextStep(failure, { keyOrigin: keyFrom, baseUrlOrigin: baseUrlFrom, baseUrl: baseUrlInUse }),
    makeClient: async (baseUrl, apiKey, use = {}) =>
      newClient(baseUrl, apiKey, undefined, use.readCacheMs === undefined ? undefined : openResponseCache(baseUrl, apiKey, use.readCacheMs, true)),
    async client(maxConnections) {
      // --cache is checked before anything else is done.
      const lifetime = await cacheLifetime();
      const session = await credentials();
      // The sandbox listens on a new port each run, and its answers never change: its entries go under one name.
      const origin = flags().sandbox ? 'sandbox' : session.baseUrl.value;
      const responseCache = lifetime && openResponseCache(origin, session.apiKey.value, lifetime.lifetimeMs, false);
      return { ...session, client: await newClient(session.baseUrl.value, session.apiKey.value, maxConnections, responseCache) };
    },
    onDispose,
  };
}
