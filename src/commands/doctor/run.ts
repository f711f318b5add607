/**
 * `gymctl doctor`: the README's troubleshooting table as a command, as
 * `fly doctor` is. Read-only, never prompting, never printing the key:
 * each check in the order failures happen, with what to do about it.
 */
import type { ErrorKind } from '../../api/errors.js';
import { operations } from '../../api/client.js';
import { proxyFor } from '../../api/transport/proxy.js';
import { AlreadyReported, toFailure } from '../../failures.js';
import type { Factory } from '../../factory.js';
import { printDocument } from '../../output/document.js';
import { recordsText } from '../../output/human.js';
import type { Column } from '../../output/tsv.js';
import { currentUid } from '../../system.js';

const fs = process.getBuiltinModule('node:fs');

export type DoctorDeps = Pick<Factory, 'io' | 'env' | 'config' | 'profileName' | 'settings' | 'keyring' | 'makeClient' | 'output' | 'printJson' | 'signal'>;

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

/** The config file: there, a regular file (or a link to one) of the user's own, closed to others, readable, and no lock left. */
function configCheck(f: Pick<Factory, 'config'>): Outcome[] {
  const store = f.config();
  let stat: import('node:fs').Stats;
  try {
    stat = fs.statSync(store.path);
  } catch {
    return [result('config file', 'pass', `none yet (${store.path})`)];
  }
  const out: Outcome[] = [];
  const link = fs.lstatSync(store.path).isSymbolicLink() ? `, a link to ${fs.realpathSync(store.path)}` : '';
  try {
    store.read();
  } catch (error) {
    return [result('config file', 'fail', toFailure(error).message, `fix or remove ${store.path}`, 'usage')];
  }
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

/** The certificate of an https base URL reached directly: trusted, for this name, and how long it has left. */
function tlsCheck(baseUrl: URL, signal: AbortSignal): Promise<Outcome> {
  const tls = process.getBuiltinModule('node:tls');
  return new Promise((resolve) => {
    const host = baseUrl.hostname.replace(/^\[|\]$/g, '');
    const socket = tls.connect({ host, port: Number(baseUrl.port) || 443, servername: /^[\d.]+$|:/.test(host) ? undefined : host, ALPNProtocols: ['http/1.1'], timeout: 5000 });
    const done = (outcome: Outcome) => {
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
    socket.once('timeout', () => done(result('TLS', 'fail', `no TLS handshake with ${baseUrl.host} within 5 s`, 'check the base URL, the network or the proxy', 'unavailable')));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const fix = /CERT|SELF_SIGNED|ISSUER|LEAF/.test(error.code ?? '')
        ? 'trust the CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem'
        : /ALTNAME/.test(error.code ?? '')
          ? 'use the host name the certificate names'
          : 'check the base URL and the network';
      done(result('TLS', 'fail', `${baseUrl.host}: ${error.code ?? error.message}`, fix, 'unavailable'));
    });
    signal.addEventListener('abort', () => socket.destroy(), { once: true });
  });
}

async function apiCheck(f: Pick<Factory, 'makeClient' | 'signal'>, baseUrl: string, apiKey: string): Promise<Outcome> {
  const started = Date.now();
  try {
    const client = await f.makeClient(baseUrl, apiKey);
    const response = await client.request(operations.me(), f.signal);
    return result('API', 'pass', `GET /me: ${response.status} in ${Date.now() - started} ms${response.correlationId ? `, correlation ID ${response.correlationId}` : ''}`);
  } catch (error) {
    const failure = toFailure(error);
    const fix =
      failure.kind === 'unauthorized'
        ? 'gymctl auth login with a valid key'
        : failure.kind === 'not_found'
          ? 'check the base URL and its path prefix'
          : 'see gymctl help exit-codes and the README Troubleshooting';
    return result('API', 'fail', failure.message, fix, failure.kind === 'unauthorized' ? 'unauthorized' : 'unavailable');
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

export async function runDoctor(f: DoctorDeps, options: { offline?: boolean }): Promise<void> {
  await f.output(); // --jq and the format are checked first
  const results: Outcome[] = [nodeCheck(), ...configCheck(f)];
  const failedEarly = results.some((r) => r.status === 'fail');
  if (!failedEarly) results.push(...(await profileAndKeyChecks(f)));
  const settings = failedEarly ? undefined : await f.settings();
  const baseUrl = settings?.baseUrl ? new URL(settings.baseUrl.value) : undefined;
  if (!baseUrl)
    results.push(
      result(
        'base URL',
        failedEarly ? 'skip' : 'fail',
        failedEarly ? 'not checked' : 'no base URL',
        'pass --base-url, set GYMCTL_BASE_URL, or gymctl config set base-url URL',
        failedEarly ? undefined : 'usage',
      ),
    );
  else {
    results.push(result('base URL', 'pass', baseUrl.href.replace(/\/$/, '')), proxyCheck(baseUrl, f.env));
    const extra = extraCaCheck(f.env);
    if (extra) results.push(extra);
    const network = options.offline ? 'skipped (--offline)' : undefined;
    if (baseUrl.protocol === 'https:') {
      const direct = !results.some((r) => r.check === 'proxy' && r.detail.includes('_PROXY:'));
      results.push(network ? result('TLS', 'skip', network) : direct ? await tlsCheck(baseUrl, f.signal) : result('TLS', 'skip', 'through the proxy: checked by the API call'));
    }
    const key = settings?.apiKey?.value ?? (await f.keyring.read(f.profileName().value).catch(() => undefined))?.value;
    results.push(network ? result('API', 'skip', network) : key ? await apiCheck(f, baseUrl.href, key) : result('API', 'skip', 'no key to call it with'));
  }
  results.push(await cacheCheck(f.env));
  const rows: CheckResult[] = results.map(({ kind: _kind, ...row }) => row);
  await printDocument(
    f,
    () => `${JSON.stringify(rows, null, 2)}\n`,
    () => recordsText(f.io, COLUMNS, rows),
  );
  const failure = results.find((r) => r.status === 'fail');
  if (failure) throw new AlreadyReported(failure.kind ?? 'internal');
}
