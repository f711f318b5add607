/**
 * The doctor checks that look past this machine: the environment's proxy and extra CAs, the TLS handshake, and GET /me, each
 * within a time budget, with a line on stderr saying what is awaited, and a fix that names where the base URL came from.
 */
import { type FailureReason, GymApiError, type GymctlError } from '../../api/errors.js';
import { operations } from '../../api/client.js';
import { isLoopbackHost } from '../../api/transport/loopback.js';
import { hostOptions, proxyFor } from '../../api/transport/network.js';
import { profileFlag, type Setting } from '../../config/settings.js';
import { toFailure } from '../../failures.js';
import type { Factory } from '../../factory.js';
import type { IO } from '../../terminal/io.js';
import { type Outcome, result } from './outcome.js';

export function proxyCheck(baseUrl: URL, env: NodeJS.ProcessEnv): Outcome {
  try {
    const proxy = proxyFor(baseUrl, env);
    if (proxy) return result('proxy', 'pass', `${proxy.variable}: ${proxy.url.origin}${proxy.url.username ? ' (with credentials, not shown)' : ''}`);
    const set = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => env[name]);
    return result('proxy', 'pass', set ? `none for ${baseUrl.host} (loopback, or NO_PROXY matches)` : 'none');
  } catch (error) {
    return result('proxy', 'fail', toFailure(error).message, 'fix the proxy variable', 'unavailable');
  }
}

/** NODE_EXTRA_CA_CERTS, when set: a readable file of PEM certificates (a row; none when unset). */
export function extraCaCheck(env: NodeJS.ProcessEnv): Outcome[] {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    const count = process.getBuiltinModule('node:fs').readFileSync(file, 'utf8').split('-----BEGIN CERTIFICATE-----').length - 1;
    return count > 0
      ? [result('extra CAs', 'pass', `NODE_EXTRA_CA_CERTS: ${count} certificate(s) in ${file}`)]
      : [result('extra CAs', 'warn', `NODE_EXTRA_CA_CERTS: no PEM certificate in ${file}`, 'point it at a PEM file')];
  } catch (error) {
    return [result('extra CAs', 'warn', `NODE_EXTRA_CA_CERTS: ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`, 'point it at a readable PEM file')];
  }
}

/** How long a check that waits on the network may take, unless --timeout asks for another: a report within seconds, never 30 s of nothing. */
export const CHECK_BUDGET_MS = 5_000;

export const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * What doctor waits on, on stderr, so that a silent server is never a silent screen: a line redrawn in place and erased after,
 * on a terminal only (appended, in accessible mode). Nothing off a terminal or with GYMCTL_NO_PROGRESS.
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
export async function tlsCheck(baseUrl: URL, signal: AbortSignal, budgetMs: number): Promise<Outcome> {
  const target = hostOptions(baseUrl);
  const budget = AbortSignal.timeout(budgetMs);
  const socket = process.getBuiltinModule('node:tls').connect({ ...target, port: Number(baseUrl.port) || 443, ALPNProtocols: ['http/1.1'] });
  try {
    await process.getBuiltinModule('node:events').once(socket, 'secureConnect', { signal: AbortSignal.any([signal, budget]) });
    const days = Math.floor((new Date(socket.getPeerCertificate().valid_to).getTime() - Date.now()) / 86_400_000);
    const detail = `trusted, for ${target.host}; expires in ${days} days`;
    return days < 14 ? result('TLS', 'warn', detail, 'renew the certificate') : result('TLS', 'pass', detail);
  } catch (caught) {
    // Ctrl-C is the run's to report: the row is the budget's, as the API check after it stops the run.
    if (budget.aborted || signal.aborted)
      return result('TLS', 'fail', `no TLS handshake with ${baseUrl.host} within ${seconds(budgetMs)}`, 'check the base URL, the network or the proxy', 'unavailable');
    const error = caught as NodeJS.ErrnoException;
    const fix = /CERT|SELF_SIGNED|ISSUER|LEAF/.test(error.code ?? '')
      ? 'trust the CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem'
      : /ALTNAME/.test(error.code ?? '')
        ? 'use the host name the certificate names'
        : 'check the base URL and the network';
    return result('TLS', 'fail', `${baseUrl.host}: ${error.code ?? error.message}`, fix, 'unavailable');
  } finally {
    socket.destroy();
  }
}

/** How to point gymctl at another base URL, where this one came from; `again`: profileFlag's, for the commands named. */
const changeBaseUrl = (setting: Setting<string>, again: string): string =>
  setting.source === 'flag' ? `gymctl doctor --base-url URL${again}` : setting.source === 'env' ? 'export GYMCTL_BASE_URL=URL' : `gymctl config set base-url URL${again}`;

/** The fix for a base URL that does not answer (a timeout, a refused connection, a name that does not resolve): where it came from, what to run next. */
function unreachableFix(failure: GymctlError, baseUrl: Setting<string>, again: string): string | undefined {
  const url = new URL(baseUrl.value);
  const shown = url.href.replace(/\/$/, '');
  const failed = `the connection to ${shown} failed`;
  const whats: Partial<Record<FailureReason, string>> = {
    timeout: `nothing answered at ${shown}`,
    connection_refused: `nothing listens at ${shown}`,
    dns: `${url.hostname} does not resolve`,
    connection_reset: failed,
    network: failed,
  };
  const what = failure.reason && whats[failure.reason];
  if (!what) return undefined;
  const sandbox =
    failure.reason === 'connection_refused' && isLoopbackHost(url.hostname) ? `; for the reference API, run \`gymctl sandbox --port ${url.port || 80}\` in another terminal` : '';
  return `${what} (the base URL, from ${baseUrl.origin ?? baseUrl.source}): start the API there, or use the right URL: \`${changeBaseUrl(baseUrl, again)}\`${sandbox}; then run \`gymctl doctor${again}\` again`;
}

type ApiCheckDeps = Pick<Factory, 'makeClient' | 'signal' | 'config'>;

export async function apiCheck(f: ApiCheckDeps, baseUrl: Setting<string>, profile: string, apiKey: string, budgetMs: number): Promise<Outcome> {
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
    const again = profileFlag(profile, f.config().read()); // each command named keeps the profile
    const fix =
      failure.kind === 'unauthorized'
        ? `gymctl auth login${again} with a valid key`
        : failure.kind === 'not_found'
          ? 'check the base URL and its path prefix'
          : (unreachableFix(failure, baseUrl, again) ?? 'see gymctl help exit-codes and the README Troubleshooting');
    return result('API', 'fail', failure.message, fix, failure.kind === 'unauthorized' ? 'unauthorized' : 'unavailable');
  } finally {
    clearTimeout(timer);
  }
}
