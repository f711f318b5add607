/**
 * The dependencies of a command, each built the first time it is asked for:
 * `--help` or `config path` never read the key, load the HTTP client or
 * start a server.
 */
import { createClient, type GymClient } from './api/client.js';
import type { ResponseCache } from './api/transport/types.js';
import { API_KEY_FORM } from './api/defaults.js';
import { GymctlError, usageError } from './api/errors.js';
import { ConfigStore, configDir } from './config/store.js';
import type { OutputFormat } from './config/formats.js';
import { isDebug, isInsecureBaseUrl, resolveFormat, resolveProfileName, resolveSettings, type GlobalFlags, type ResolvedSettings, type Setting } from './config/settings.js';
import { resolveOutput, type OutputChoice } from './output/choice.js';
import type { JqFilter } from './output/jq.js';
import { sanitizeLine } from './output/sanitize.js';
import type { IO } from './terminal/io.js';
import { VERSION } from './version.js';

export interface ApiSession {
  client: GymClient;
  settings: ResolvedSettings;
  baseUrl: Setting<string>;
  apiKey: Setting<string>;
}

export class Context {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  #flags: GlobalFlags = {};
  #store: ConfigStore | undefined;
  #settings: ResolvedSettings | undefined;
  #output: Promise<OutputChoice> | undefined;
  #jq: Promise<JqFilter> | undefined;
  #disposers: Array<() => Promise<void>> = [];
  /** Aborted, with an Interrupted reason, when the user interrupts: every client's requests stop. */
  readonly signal: AbortSignal;
  /** Set by a command that stops by itself when interrupted (the sandbox server), so that it can finish. */
  handlesInterrupt = false;

  constructor(io: IO, env: NodeJS.ProcessEnv, signal: AbortSignal = new AbortController().signal) {
    this.io = io;
    this.env = env;
    this.signal = signal;
  }

  setFlags(flags: GlobalFlags): void {
    this.#flags = flags;
  }

  get flags(): GlobalFlags {
    return this.#flags;
  }

  /** --debug or GYMCTL_DEBUG: trace requests, and show the stack of an unexpected error. */
  get debug(): boolean {
    return isDebug(this.#flags, this.env);
  }

  /**
   * The output format for reporting an error, whenever it happened: from the
   * flags, else the stored profile, even when the command failed before it
   * read its settings, or because of one of them.
   */
  async errorFormat(): Promise<OutputFormat> {
    if (this.#settings) return this.#settings.format.value;
    try {
      const fromFlags = resolveFormat(this.#flags);
      if (fromFlags) return fromFlags.value;
      return (await this.store()).profile(this.profileName().value)?.format ?? 'table';
    } catch {
      return 'table';
    }
  }

  profileName(): Setting<string> {
    const flagOrEnv = this.#flags.profile || this.env.GYMCTL_PROFILE;
    // Only read the file for its default-profile when nothing else names one.
    return resolveProfileName(this.#flags, this.env, flagOrEnv ? undefined : this.#configStore().read().defaultProfile);
  }

  #configStore(): ConfigStore {
    this.#store ??= new ConfigStore(configDir(this.env), { warn: (message) => this.io.err(`gymctl: ${message}\n`), signal: this.signal });
    return this.#store;
  }

  /** The config store, for code that cannot wait (completion). */
  storeSync(): ConfigStore {
    return this.#configStore();
  }

  async store(): Promise<ConfigStore> {
    return this.#configStore();
  }

  async settings(): Promise<ResolvedSettings> {
    if (!this.#settings) {
      const profileName = this.profileName();
      const profile = (await this.store()).profile(profileName.value);
      this.#settings = resolveSettings(this.#flags, this.env, profileName, profile);
    }
    return this.#settings;
  }

  /** What the command prints (format, --jq, --columns, --no-headers), checked before anything is sent. */
  async output(): Promise<OutputChoice> {
    this.#output ??= this.settings().then((settings) => resolveOutput(this.#flags, settings.format, () => this.#compileJq()));
    return this.#output;
  }

  /** --jq, compiled once (jq is loaded only then). */
  #compileJq(): Promise<JqFilter> {
    const expression = this.#flags.jq ?? '.';
    this.#jq ??= import('./output/jq.js').then(({ compileJq }) => compileJq(expression));
    return this.#jq;
  }

  /**
   * Prints a JSON document a command makes itself (a status, the settings,
   * a schema), through --jq when it is given.
   */
  async printJson(text: string): Promise<void> {
    if (this.#flags.jq === undefined) return this.io.out(text);
    (await this.#compileJq()).print((out) => this.io.out(out), text, this.io.stdoutIsTTY);
  }

  /** A client for one base URL and key; closed when the command ends, its requests aborted on an interrupt. */
  async createClient(baseUrl: string, apiKey: string, maxConnections?: number, cache?: ResponseCache): Promise<GymClient> {
    const settings = await this.settings();
    if (isInsecureBaseUrl(baseUrl)) this.io.err(`gymctl: warning: sending the API key over plain http to ${new URL(baseUrl).host} (--allow-http)\n`);
    const client = createClient({
      baseUrl,
      apiKey,
      timeoutMs: settings.timeoutMs.value,
      retries: settings.retries.value,
      maxConnections,
      userAgent: `gymctl/${VERSION}`,
      signal: this.signal,
      env: this.env,
      // The base URL passed the https rule already; --allow-http is the only way here off loopback.
      allowInsecureHttp: true,
      ...(cache ? { cache } : {}),
      // Trace lines quote the server (a Retry-After reason, a status text): made safe like error lines.
      ...(settings.debug ? { debug: (line: string) => this.io.err(`${sanitizeLine(`debug: ${line}`)}\n`) } : {}),
    });
    this.onDispose(() => client.close());
    return client;
  }

  /**
   * The client for an API command, with the settings it was made from. With
   * --sandbox, a sandbox is started in-process and used with the demo key.
   * With no key, or no base URL, nothing is sent. `maxConnections` bounds
   * the connection pool, for a batch of that concurrency.
   */
  async api(maxConnections?: number): Promise<ApiSession> {
    const settings = await this.settings();
    const caching = this.#flags.cache !== undefined || this.#flags.refresh ? await this.#cacheLifetime() : undefined;
    let { baseUrl, apiKey } = settings;
    if (this.#flags.sandbox) {
      if (this.#flags.baseUrl) throw usageError('--sandbox and --base-url cannot be used together');
      const [{ startSandbox }, { DEMO_KEY }] = await Promise.all([import('./sandbox/server.js'), import('./sandbox/demo-data.js')]);
      const sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
      this.onDispose(() => sandbox.close());
      baseUrl = { value: sandbox.url, source: 'flag', origin: '--sandbox' };
      apiKey = { value: DEMO_KEY, source: 'flag', origin: '--sandbox' };
    }
    if (!apiKey && !this.#flags.sandbox) apiKey = await this.#keyFromKeyring(settings.profile.value);
    if (!apiKey) {
      throw new GymctlError('unauthorized', `no API key for profile "${settings.profile.value}": run \`gymctl auth login\` or set GYMCTL_API_KEY (or try --sandbox)`);
    }
    if (!API_KEY_FORM.test(apiKey.value)) {
      throw usageError(
        `the API key from ${apiKey.origin ?? apiKey.source} contains characters an API key cannot have (spaces, control or non-ASCII characters); the key is not shown`,
      );
    }
    if (!baseUrl) {
      throw usageError(`no API base URL for profile "${settings.profile.value}": pass --base-url, set GYMCTL_BASE_URL, or run \`gymctl config set base-url URL\``);
    }
    // The sandbox listens on a new port each run, and its answers never change: its entries go under one name.
    const cacheOrigin = this.#flags.sandbox ? 'sandbox' : baseUrl.value;
    const cache = caching ? await this.#openCache(cacheOrigin, apiKey.value, caching.lifetimeMs) : undefined;
    const client = await this.createClient(baseUrl.value, apiKey.value, maxConnections, cache);
    return { client, settings, baseUrl, apiKey };
  }

  /** --cache DURATION, checked before anything else is done; with --refresh, answers are only stored, never read. */
  async #cacheLifetime(): Promise<{ lifetimeMs: number | undefined }> {
    const { parseDuration } = await import('./cache/duration.js');
    const lifetime = this.#flags.cache === undefined ? undefined : parseDuration(this.#flags.cache, '--cache');
    return { lifetimeMs: this.#flags.refresh ? undefined : lifetime };
  }

  /** The cache of this base URL and key (loaded only with --cache or --refresh). */
  async #openCache(baseUrl: string, apiKey: string, lifetimeMs: number | undefined): Promise<ResponseCache> {
    const { openCache } = await import('./cache/store.js');
    return openCache({ env: this.env, configDir: configDir(this.env), baseUrl, apiKey, lifetimeMs, warn: (message) => this.io.err(`gymctl: warning: ${message}\n`) });
  }

  /**
   * The profile's key from the system keyring, when the config file says it
   * is kept there (the keyring is asked for no other profile); undefined
   * when it holds none. A keyring that cannot be reached is said to be so.
   */
  async keyringKey(profile: string): Promise<Setting<string> | undefined> {
    if ((await this.store()).profile(profile)?.keyStore !== 'keyring') return undefined;
    const { readKeyringKey } = await import('./keyring/client.js');
    const key = (await readKeyringKey(profile, { env: this.env, signal: this.signal }))?.trim();
    return key ? { value: key, source: 'keyring', origin: 'the system keyring' } : undefined;
  }

  /** The key of a profile that keeps it in the keyring: one that is not there is said to be missing from there. */
  async #keyFromKeyring(profile: string): Promise<Setting<string> | undefined> {
    const key = await this.keyringKey(profile);
    if (!key && (await this.store()).profile(profile)?.keyStore === 'keyring') {
      throw new GymctlError(
        'unauthorized',
        `no API key in the system keyring for profile "${profile}", which keeps its key there: run \`gymctl auth login --keyring\` (or --no-keyring to keep it in the config file)`,
      );
    }
    return key;
  }

  onDispose(dispose: () => Promise<void>): void {
    this.#disposers.push(dispose);
  }

  /** Closes clients and servers, last opened first. */
  async dispose(): Promise<void> {
    for (const dispose of this.#disposers.splice(0).reverse()) await dispose().catch(() => {});
  }
}
