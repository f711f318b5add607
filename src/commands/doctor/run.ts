/**
 * `gymctl doctor`: the README's troubleshooting table as a command, as
 * `fly doctor` is. Read-only, never prompting, never printing the key:
 * each check in the order failures happen, with what to do about it.
 */
import { GymApiError, type ErrorKind, type GymctlError } from '../../api/errors.js';
import { operations } from '../../api/client.js';
import { isLoopbackHost } from '../../api/transport/loopback.js';
import { proxyFor } from '../../api/transport/proxy.js';
import { checkProfileExists, type Setting } from '../../config/settings.js';
import { AlreadyReported, toFailure } from '../../failures.js';
import type { Factory } from '../../factory.js';
import { resolveOutput } from '../../output/choice.js';
import { recordsText } from '../../output/human.js';
import type { Column } from '../../output/tsv.js';
import { currentUid } from '../../system.js';
import type { IO } from '../../terminal/io.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

export type DoctorDeps = Pick<Factory, 'io' | 'env' | 'flags' | 'config' | 'profileName' | 'settings' | 'keyring' | 'makeClient' | 'output' | 'printJson' | 'signal'>;

type Status = 'pass' | 'warn' | 'fail' | 'skip';
export interface CheckResult {
  check: string;
  status: Status;
  detail: string;
  fix: string | null;
}
/** A result, and the exit code's kind of a failure in its area. */
type Outcome = CheckResult & { kind?: ErrorKind };

const ENGINES = 'Node 20.19 or newer, 22.12 or newer, or 24 and later';
const COLUMNS: Column<CheckResult>[] = [
  { key: 'check', label: 'Check', value: (row) => row.check },
  { key: 'status', label: 'Status', value: (row) => row.status },
  { key: 'detail', label: 'Detail', value: (row) => row.detail },
  { key: 'fix', label: 'Fix', value: (row) => row.fix },
];

const result = (check: string, status: Status, detail: string, fix: string | null = null, kind?: ErrorKind): Outcome => ({ check, status, detail, fix, ...(kind ? { kind } : {}) });

function nodeCheck(): Outcome {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
  return supported
    ? result('node', 'pass', `Node ${process.versions.node}`)
    : result('node', 'fail', `Node ${process.versions.node} is not supported`, `install ${ENGINES}`, 'usage');
}

function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return true; // not there yet: made on the first write
  }
}

/** The config file: there, a regular file (or a link to one) of the user's own, closed to others, readable, and no lock left. */
function configCheck(f: Pick<Factory, 'config'>): Outcome[] {
  const store = f.config();
  try {
    store.read(); // first: a folder that is a file, or a file that is not JSON, is a failing row, not "none yet"
  } catch (error) {
    const fix = isFolder(store.dir) ? `fix or remove ${store.path}` : 'point GYMCTL_CONFIG_DIR at a folder';
    return [result('config file', 'fail', toFailure(error).message, fix, 'usage')];
  }
  let stat: import('node:fs').Stats;
  try {
    stat = fs.statSync(store.path);
  } catch {
    return [result('config file', 'pass', `none yet (${store.path})`)];
  }
  const out: Outcome[] = [];
  const link = fs.lstatSync(store.path).isSymbolicLink() ? `, a link to ${fs.realpathSync(store.path)}` : '';
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid)
    out.push(result('config file', 'warn', `${store.path} belongs to another user (uid ${stat.uid})${link}`, 'use a config folder of your own (GYMCTL_CONFIG_DIR)'));
  else if ((stat.mode & 0o077) !== 0)
    out.push(result('config file', 'warn', `${store.path} is mode ${(stat.mode & 0o777).toString(8)}: others can read the key${link}`, `chmod 600 ${store.path}`));
  else out.push(result('config file', 'pass', `${store.path} (mode 600)${link}`));
  if (fs.existsSync(`${store.path}.lock`)) {
    out.push(result('config lock', 'warn', `${store.path}.lock is there: another gymctl is writing, or one was stopped`, 'wait; gymctl takes over a stale lock on its next write'));
  }
  return out;
}

const PROFILE_SOURCES: Record<string, string> = { flag: '--profile', env: 'GYMCTL_PROFILE', config: 'default-profile in the config file', default: 'the default' };

async function profileAndKeyChecks(f: Pick<Factory, 'config' | 'keyring' | 'profileName' | 'settings'>): Promise<Outcome[]> {
  const name = f.profileName();
  try {
    checkProfileExists(name, f.config().read());
  } catch (error) {
    // As every other command refuses it: a mistyped profile is said as such, not as a missing key.
    return [result('profile', 'fail', toFailure(error).message, `gymctl auth login --profile ${name.value}`, 'usage')];
  }
  const out = [result('profile', 'pass', `"${name.value}" (from ${PROFILE_SOURCES[name.source] ?? name.source})`)];
  const stored = f.config().profile(name.value);
  const settings = await f.settings();
  if (settings.apiKey?.source === 'env' && (stored?.apiKey || stored?.keyStore === 'keyring')) {
    out.push(result('key', 'warn', `GYMCTL_API_KEY overrides the key stored for profile "${name.value}"`, 'unset GYMCTL_API_KEY to use the stored key'));
    return out;
  }
  if (settings.apiKey)
    return [
      ...out,
      result(
        'key',
        'pass',
        `from ${settings.apiKey.source === 'env' ? 'GYMCTL_API_KEY' : settings.apiKey.source === 'config' ? 'the config file' : (settings.apiKey.origin ?? settings.apiKey.source)}`,
      ),
    ];
  if (stored?.keyStore === 'keyring') {
    try {
      const key = await f.keyring.read(name.value);
      return [
        ...out,
        key
          ? result('key', 'pass', 'from the system keyring, which answered')
          : result('key', 'fail', 'the system keyring holds no key for this profile', 'gymctl auth login --keyring', 'unauthorized'),
      ];
    } catch (error) {
      return [...out, result('key', 'fail', toFailure(error).message, 'unlock the keyring, or gymctl auth login --no-keyring', 'unauthorized')];
    }
  }
  return [...out, result('key', 'fail', `no API key for profile "${name.value}"`, 'gymctl auth login, or set GYMCTL_API_KEY', 'unauthorized')];
}

function proxyCheck(baseUrl: URL, env: NodeJS.ProcessEnv): Outcome {
  try {
    const proxy = proxyFor(baseUrl, env);
    if (proxy) return result('proxy', 'pass', `${proxy.variable}: ${proxy.shown}${proxy.url.username ? ' (with credentials, not shown)' : ''}`);
    const set = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => env[name]);
    return result('proxy', 'pass', set ? `none for ${baseUrl.host} (loopback, or NO_PROXY matches)` : 'none');
  } catch (error) {
    return result('proxy', 'fail', toFailure(error).message, 'fix the proxy variable', 'unavailable');
  }
}

/** NODE_EXTRA_CA_CERTS, when set: a readable file of PEM certificates. */
function extraCaCheck(env: NodeJS.ProcessEnv): Outcome | undefined {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return undefined;
  try {
    const text = fs.readFileSync(file, 'utf8');
    const count = text.split('-----BEGIN CERTIFICATE-----').length - 1;
    return count > 0
      ? result('extra CAs', 'pass', `NODE_EXTRA_CA_CERTS: ${count} certificate(s) in ${file}`)
      : result('extra CAs', 'warn', `NODE_EXTRA_CA_CERTS: no PEM certificate in ${file}`, 'point it at a PEM file');
  } catch (error) {
    return result('extra CAs', 'warn', `NODE_EXTRA_CA_CERTS: ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`, 'point it at a readable PEM file');
  }
}

/** How long a check that waits on the network may take, unless --timeout asks for another: a report within seconds, never 30 s of nothing. */
export const CHECK_BUDGET_MS = 5_000;

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * What doctor is waiting on, on stderr while a check that uses the network
 * runs, so that a silent server is never a silent screen: a line redrawn in
 * place and erased after, on a terminal only; in accessible mode a line
 * appended, never redrawn. Nothing off a terminal or with GYMCTL_NO_PROGRESS.
 */
export function checkProgress(io: IO, env: NodeJS.ProcessEnv): { show(what: string): void; done(): void } {
  if (!io.stderrIsTTY || env.GYMCTL_NO_PROGRESS) return { show() {}, done() {} };
  if (io.accessible) return { show: (what) => io.err(`${what}…\n`), done() {} };
  let shown = false;
  const erase = () => {
    if (shown) io.err('\r\u001b[K');
    shown = false;
  };
  return {
    show(what) {
      if (!shown) process.once('exit', erase);
      io.err(`\r\u001b[K${what}…`);
      shown = true;
    },
    done() {
      erase();
      process.off('exit', erase);
    },
  };
}

/** The certificate of an https base URL reached directly: trusted, for this name, and how long it has left. */
function tlsCheck(baseUrl: URL, signal: AbortSignal, budgetMs: number): Promise<Outcome> {
  const tls = process.getBuiltinModule('node:tls');
  return new Promise((resolve) => {
    const host = baseUrl.hostname.replace(/^\[|\]$/g, '');
    const socket = tls.connect({ host, port: Number(baseUrl.port) || 443, servername: /^[\d.]+$|:/.test(host) ? undefined : host, ALPNProtocols: ['http/1.1'] });
    const timer = setTimeout(
      () => done(result('TLS', 'fail', `no TLS handshake with ${baseUrl.host} within ${seconds(budgetMs)}`, 'check the base URL, the network or the proxy', 'unavailable')),
      budgetMs,
    );
    const onAbort = () => socket.destroy();
    const done = (outcome: Outcome) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    socket.once('secureConnect', () => {
      const days = Math.floor((new Date(socket.getPeerCertificate().valid_to).getTime() - Date.now()) / 86_400_000);
      done(
        days < 14
          ? result('TLS', 'warn', `trusted, for ${host}; expires in ${days} days`, 'renew the certificate')
          : result('TLS', 'pass', `trusted, for ${host}; expires in ${days} days`),
      );
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const fix = /CERT|SELF_SIGNED|ISSUER|LEAF/.test(error.code ?? '')
        ? 'trust the CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem'
        : /ALTNAME/.test(error.code ?? '')
          ? 'use the host name the certificate names'
          : 'check the base URL and the network';
      done(result('TLS', 'fail', `${baseUrl.host}: ${error.code ?? error.message}`, fix, 'unavailable'));
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Where a setting came from, as a user would name it. */
const originOf = (setting: Setting<string>, profile: string) =>
  setting.source === 'flag' ? '--base-url' : setting.source === 'env' ? 'GYMCTL_BASE_URL' : setting.source === 'config' ? `profile "${profile}"` : 'the default';

/** How to point gymctl at another base URL, where this one came from. */
function changeBaseUrl(setting: Setting<string>, profile: string): string {
  if (setting.source === 'flag') return 'gymctl doctor --base-url URL';
  if (setting.source === 'env') return 'export GYMCTL_BASE_URL=URL';
  return `gymctl config set base-url URL${profile === 'default' ? '' : ` --profile ${profile}`}`;
}

/**
 * The fix for a base URL that does not answer (a timeout, a refused
 * connection, a name that does not resolve): the URL, where it came from,
 * and the commands to run next.
 */
function unreachableFix(failure: GymctlError, baseUrl: Setting<string>, profile: string): string | undefined {
  const url = new URL(baseUrl.value);
  const shown = url.href.replace(/\/$/, '');
  const what =
    failure.reason === 'timeout'
      ? `nothing answered at ${shown}`
      : failure.reason === 'connection_refused'
        ? `nothing listens at ${shown}`
        : failure.reason === 'dns'
          ? `${url.hostname} does not resolve`
          : failure.reason === 'connection_reset' || failure.reason === 'network'
            ? `the connection to ${shown} failed`
            : undefined;
  if (!what) return undefined;
  const sandbox =
    failure.reason === 'connection_refused' && isLoopbackHost(url.hostname) ? `; for the reference API, run \`gymctl sandbox --port ${url.port || 80}\` in another terminal` : '';
  return `${what} (the base URL, from ${originOf(baseUrl, profile)}): start the API there, or use the right URL: \`${changeBaseUrl(baseUrl, profile)}\`${sandbox}; then run \`gymctl doctor\` again`;
}

async function apiCheck(f: Pick<Factory, 'makeClient' | 'signal'>, baseUrl: Setting<string>, profile: string, apiKey: string, budgetMs: number): Promise<Outcome> {
  const started = Date.now();
  // The check's budget, whatever the client's own timeout and retries would wait.
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(new GymApiError('unavailable', `GET /me: no answer within ${seconds(budgetMs)}`, { reason: 'timeout' })), budgetMs);
  try {
    const client = await f.makeClient(baseUrl.value, apiKey);
    const response = await client.request(operations.me(), AbortSignal.any([f.signal, budget.signal]));
    return result('API', 'pass', `GET /me: ${response.status} in ${Date.now() - started} ms${response.correlationId ? `, correlation ID ${response.correlationId}` : ''}`);
  } catch (error) {
    // Ctrl-C is the run's to report, not a failing row.
    if (f.signal.aborted) throw error;
    const failure = toFailure(error);
    const fix =
      failure.kind === 'unauthorized'
        ? 'gymctl auth login with a valid key'
        : failure.kind === 'not_found'
          ? 'check the base URL and its path prefix'
          : (unreachableFix(failure, baseUrl, profile) ?? 'see gymctl help exit-codes and the README Troubleshooting');
    return result('API', 'fail', failure.message, fix, failure.kind === 'unauthorized' ? 'unauthorized' : 'unavailable');
  } finally {
    clearTimeout(timer);
  }
}

function cacheCheck(env: NodeJS.ProcessEnv): Promise<Outcome> {
  return import('../../cache/store.js').then(({ cacheDir }) => {
    const dir = cacheDir(env);
    let stat: import('node:fs').Stats;
    try {
      stat = fs.lstatSync(dir);
    } catch {
      return result('cache folder', 'pass', `none yet (${dir})`);
    }
    const uid = currentUid();
    if (!stat.isDirectory()) return result('cache folder', 'warn', `${dir} is not a folder`, `remove ${dir}`);
    if (uid !== undefined && stat.uid !== uid)
      return result('cache folder', 'warn', `${dir} belongs to another user (uid ${stat.uid})`, 'set XDG_CACHE_HOME to a folder of your own');
    if ((stat.mode & 0o077) !== 0) return result('cache folder', 'warn', `${dir} is mode ${(stat.mode & 0o777).toString(8)}`, `chmod 700 ${dir}`);
    return result('cache folder', 'pass', `${dir} (mode 700)`);
  });
}

/** The response cache's secret, read as every `--cache` run reads it: what would make those runs warn is a warning here. */
async function cacheSecretCheck(configDir: string): Promise<Outcome> {
  const { hasCacheSecret } = await import('../../cache/store.js');
  const file = path.join(configDir, 'cache-secret');
  try {
    return result('cache secret', 'pass', hasCacheSecret(configDir) ? file : `none yet (${file})`);
  } catch (error) {
    // What every --cache run warns of, before it asks the server instead.
    return result('cache secret', 'warn', toFailure(error).message, `rm ${file}`);
  }
}

/**
 * The V8 code cache's folder, trusted only as a folder of the user's own
 * closed to others (boot/code-cache.ts): anything else turns the code
 * cache off without a word, and every start compiles gymctl again.
 */
async function codeCacheCheck(env: NodeJS.ProcessEnv): Promise<Outcome> {
  if (env.GYMCTL_NO_CODE_CACHE === '1') return result('code cache', 'pass', 'turned off (GYMCTL_NO_CODE_CACHE=1)');
  const { codeCacheDir } = await import('../../boot/code-cache.js');
  const dir = codeCacheDir(env);
  let stat: import('node:fs').Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    return result('code cache', 'pass', `none yet (${dir})`);
  }
  const off = 'so the code cache is off: every start compiles gymctl again';
  const uid = currentUid();
  if (stat.isSymbolicLink() || !stat.isDirectory())
    return result('code cache', 'warn', `${dir} is not a folder (a link, or a file), ${off}`, `rm ${dir} (gymctl makes the folder again)`);
  if (uid !== undefined && stat.uid !== uid)
    return result('code cache', 'warn', `${dir} belongs to another user (uid ${stat.uid}), ${off}`, 'set XDG_CACHE_HOME to a folder of your own');
  if ((stat.mode & 0o077) !== 0) return result('code cache', 'warn', `${dir} is mode ${(stat.mode & 0o777).toString(8)}: others can open it, ${off}`, `chmod 700 ${dir}`);
  return result('code cache', 'pass', `${dir} (mode 700)`);
}

/**
 * JSON, or the table: from the flags and the stored format, as every
 * command takes them; when the config file cannot be read, from the flags
 * alone (checked the same way), so that the broken file is a failing row
 * of the report, not the end of it.
 */
async function printsJson(f: Pick<Factory, 'flags' | 'output'>, configReadable: boolean): Promise<boolean> {
  if (configReadable) {
    const { format, jq } = await f.output();
    return jq !== undefined || format === 'json';
  }
  // The filter itself is compiled when the report is printed through it (printJson).
  const { format } = await resolveOutput(f.flags, { value: 'table', source: 'default' }, () => Promise.resolve(undefined as never));
  return f.flags.jq !== undefined || format === 'json';
}

export async function runDoctor(f: DoctorDeps, options: { offline?: boolean }): Promise<void> {
  const results: Outcome[] = [nodeCheck(), ...configCheck(f)];
  const configReadable = !results.some((r) => r.check === 'config file' && r.status === 'fail');
  const json = await printsJson(f, configReadable); // --jq and the format are checked before anything is sent
  const failedEarly = results.some((r) => r.status === 'fail');
  if (!failedEarly) results.push(...(await profileAndKeyChecks(f)));
  const settings = failedEarly ? undefined : await f.settings();
  const baseUrl = settings?.baseUrl ? new URL(settings.baseUrl.value) : undefined;
  const progress = checkProgress(f.io, f.env);
  if (failedEarly) results.push(result('base URL', 'skip', `not checked: ${configReadable ? 'Node is not supported' : 'the config file cannot be read'}`));
  else if (!baseUrl) results.push(result('base URL', 'fail', 'no base URL', 'pass --base-url, set GYMCTL_BASE_URL, or gymctl config set base-url URL', 'usage'));
  else {
    const profile = settings!.profile.value;
    results.push(result('base URL', 'pass', `${baseUrl.href.replace(/\/$/, '')} (from ${originOf(settings!.baseUrl!, profile)})`), proxyCheck(baseUrl, f.env));
    const extra = extraCaCheck(f.env);
    if (extra) results.push(extra);
    const network = options.offline ? 'skipped (--offline)' : undefined;
    // --timeout on the command line sets the budget; a stored or default timeout (30 s) is for commands, not for a report.
    const budgetMs = settings!.timeoutMs.source === 'flag' ? settings!.timeoutMs.value : CHECK_BUDGET_MS;
    try {
      if (baseUrl.protocol === 'https:') {
        const direct = !results.some((r) => r.check === 'proxy' && r.detail.includes('_PROXY:'));
        if (!network && direct) progress.show(`Checking TLS with ${baseUrl.host} (at most ${seconds(budgetMs)})`);
        results.push(
          network ? result('TLS', 'skip', network) : direct ? await tlsCheck(baseUrl, f.signal, budgetMs) : result('TLS', 'skip', 'through the proxy: checked by the API call'),
        );
      }
      const key = settings?.apiKey?.value ?? (await f.keyring.read(profile).catch(() => undefined))?.value;
      if (!network && key) progress.show(`Checking the API: GET ${baseUrl.href.replace(/\/$/, '')}/me (at most ${seconds(budgetMs)})`);
      results.push(
        network ? result('API', 'skip', network) : key ? await apiCheck(f, settings!.baseUrl!, profile, key, budgetMs) : result('API', 'skip', 'no key to call it with'),
      );
    } finally {
      progress.done();
    }
  }
  results.push(await cacheCheck(f.env), await cacheSecretCheck(f.config().dir), await codeCacheCheck(f.env));
  const rows: CheckResult[] = results.map(({ kind: _kind, ...row }) => row);
  if (json) await f.printJson(`${JSON.stringify(rows, null, 2)}\n`);
  else {
    // On a terminal, a column that holds nothing (Fix, when all is well) is left out, and its room goes to the others; a pipe keeps every column, for scripts.
    const columns = f.io.stdoutIsTTY ? COLUMNS.filter((column) => rows.some((row) => column.value(row) !== null && column.value(row) !== '')) : COLUMNS;
    // At a terminal, Detail and Fix are sentences to read whole (a command to run): wrapped in their column, never cut.
    f.io.out(
      f.io.stdoutIsTTY
        ? (await import('../../output/table.js')).renderTable(f.io, columns, rows, true, undefined, { wrap: ['detail', 'fix'] })
        : await recordsText(f.io, columns, rows),
    );
  }
  const failure = results.find((r) => r.status === 'fail');
  if (failure) throw new AlreadyReported(failure.kind ?? 'internal');
}
