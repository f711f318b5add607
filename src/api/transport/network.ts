/** Which proxy a request takes (lower-case variables first, as curl), and network failures named: where, and what to check. */
import { GymApiError, usageError, type ErrorKind, type FailureReason } from '../errors.js';
import { isLoopbackHost } from './loopback.js';
import { peerCertificate } from './platform.js';
import { RETRYABLE_CODES } from './retry.js';
import type { Operation } from './types.js';

/** A proxy, shown in messages by its origin (never its credentials) and the variable it came from, e.g. HTTPS_PROXY. */
export interface ProxyChoice {
  url: URL;
  variable: string;
}

/** The host without brackets, named for SNI unless it is an IP address. */
export const hostOptions = (url: URL) => ({ host: url.hostname.replace(/^\[|\]$/g, ''), ...(/^[\d.]+$|:/.test(url.hostname) ? {} : { servername: url.hostname }) });

const variable = (env: NodeJS.ProcessEnv, name: string) => [name.toLowerCase(), name].map((key) => [key, env[key]?.trim() ?? ''] as const).find(([, value]) => value);

function bypassesProxy(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = hostOptions(target).host.toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const entry of noProxy.split(/[\s,]+/)) {
    if (entry === '*') return true;
    const [, name = '', entryPort] = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase().replace(/^\[|\](?=:|$)/g, ''))!;
    if (!entry || (entryPort && entryPort !== port)) continue;
    const domain = name.replace(/^\*?\./, '');
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/** The proxy for `target`, or none: unset, bypassed by NO_PROXY, or loopback (the key would leave the machine). */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): ProxyChoice | undefined {
  if (isLoopbackHost(target.hostname)) return undefined;
  const chosen = variable(env, target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY');
  if (!chosen || bypassesProxy(target, variable(env, 'NO_PROXY')?.[1])) return undefined;
  const [name, value] = chosen;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    const shown = value.includes('@') ? 'its value is not shown, as it may hold a password' : JSON.stringify(value);
    throw usageError(`${name} is not a proxy URL such as http://proxy.example.com:3128 (${shown})`, { reason: 'proxy' });
  }
  // undici sends the proxy's user and password percent-decoded: a `%` that starts no UTF-8 escape cannot be.
  try {
    for (const part of [url.username, url.password]) decodeURIComponent(part);
  } catch {
    throw usageError(`${name} has a user or password that cannot be percent-decoded: write a % in it as %25 (its value is not shown)`, { reason: 'proxy' });
  }
  return { url, variable: name };
}

/** Certificate errors that a missing CA explains. */
const TLS_TRUST_CODES = /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED)$/;

/** Errors of the HTTP parsers (llhttp's HPE_*, undici's) about the bytes the server sent. */
const MALFORMED_HTTP = /^(HPE_.*|UND_ERR_HEADERS_OVERFLOW|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|UND_ERR_INFO)$/;

type Cause = { code: string | undefined; detail: string; error: Record<string, unknown> };

function findCause(error: unknown): Cause {
  let current: unknown = error;
  let detail = error instanceof Error ? error.message : String(error);
  for (let depth = 0; current && depth < 5; depth++) {
    const node = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof node.message === 'string' && node.message) detail = node.message;
    if (typeof node.code === 'string') return { code: node.code, detail, error: node as Record<string, unknown> };
    current = node.cause;
  }
  return { code: undefined, detail, error: {} };
}

async function describe({ code, detail, error }: Cause, url: URL, proxy: ProxyChoice | undefined): Promise<{ text: string; reason: FailureReason; kind?: ErrorKind }> {
  const host = url.host;
  const tunnel = /Proxy response \((\d+)\)/.exec(detail)?.[1];
  const named = proxy && `the proxy ${proxy.url.origin} (from ${proxy.variable})`;
  if (proxy && tunnel) {
    if (tunnel !== '407') return { text: `${named} refused to open a tunnel to ${host} (it answered ${tunnel})`, reason: 'proxy' };
    const credentials = proxy.url.username ? `refused the credentials in ${proxy.variable}` : `wants credentials: put them in ${proxy.variable}, as http://user:password@host:port`;
    return { text: `${named} ${credentials}`, reason: 'proxy' };
  }
  // With a proxy, every connection goes to the proxy: failing to connect is failing to reach it.
  if (proxy && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')) {
    const what = code === 'ECONNREFUSED' ? 'connection refused' : code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' ? 'connect timed out' : 'its name does not resolve';
    return { text: `could not reach ${named}: ${what}`, reason: 'proxy' };
  }
  if (code === 'ECONNREFUSED') return { text: `could not connect to ${host} (connection refused)`, reason: 'connection_refused' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { text: `could not resolve ${host}`, reason: 'dns' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { text: `could not connect to ${host} (connect timed out)`, reason: 'timeout' };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return { text: `the connection to ${host} failed (${code})`, reason: 'connection_reset' };
  if (code !== undefined && MALFORMED_HTTP.test(code)) return { text: `the server sent malformed HTTP (${code})`, reason: 'network', kind: 'invalid_response' };
  if (code !== undefined && TLS_TRUST_CODES.test(code)) {
    if (proxy) {
      const fix = "the proxy intercepts TLS; if your company's CA signed its certificates, point NODE_EXTRA_CA_CERTS at that CA's PEM file";
      return { text: `the TLS certificate presented for ${host} through ${named} is not trusted (${code}): ${fix}`, reason: 'tls' };
    }
    // A certificate that names where its issuer's is published (Authority Information Access), yet comes alone, lacks its intermediates.
    if (code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' && (await peerCertificate(url, (certificate) => Boolean(certificate.infoAccess?.['CA Issuers - URI']?.length)))) {
      const fix = 'the server must send its whole chain, which is for whoever runs it to fix';
      return { text: `the TLS certificate of ${host} came without the intermediate certificates that link it to a trusted authority (${code}): ${fix}`, reason: 'tls' };
    }
    return { text: `the TLS certificate of ${host} is not trusted (${code}); if your own CA signed it, point NODE_EXTRA_CA_CERTS at the CA's PEM file`, reason: 'tls' };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = (error.cert as { subjectaltname?: string } | undefined)?.subjectaltname ?? /altnames: (.*)$/.exec(String(error.reason ?? ''))?.[1];
    return { text: `the TLS certificate of ${host} is for another name${names ? ` (${names})` : ''}: check the base URL's host`, reason: 'tls' };
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    const read = (certificate: import('node:tls').PeerCertificate) => (certificate.valid_to ? new Date(certificate.valid_to).toISOString().slice(0, 10) : undefined);
    const date = code === 'CERT_HAS_EXPIRED' && !proxy ? await peerCertificate(url, read) : undefined;
    const when = code === 'CERT_HAS_EXPIRED' ? `expired${date ? ` on ${date}` : ''}` : "is not valid yet (is this machine's clock right?)";
    return { text: `the TLS certificate of ${host} ${when}`, reason: 'tls' };
  }
  if (code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' || /no application protocol/i.test(detail))
    return { text: `the server at ${host} speaks only HTTP/2, and gymctl speaks HTTP/1.1`, reason: 'tls' };
  if (code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number|packet length too long/i.test(detail))
    return { text: `the server at ${host} does not speak TLS there: is the base URL meant to be http:?`, reason: 'tls' };
  return { text: `the connection to ${host} failed (${code ?? detail})`, reason: 'network' };
}

export async function networkError(error: unknown, url: string, operation: Operation<unknown>, proxy?: ProxyChoice): Promise<GymApiError> {
  const cause = findCause(error);
  const target = new URL(url);
  if (cause.detail === 'bad port') {
    const message = `${operation.subject}: fetch refuses to connect to port ${target.port} (a "bad port" of the fetch standard): serve the API on another port`;
    return usageError(message, { id: operation.id, cause: error });
  }
  const { text, reason, kind = 'unavailable' } = await describe(cause, target, proxy);
  const retryable = kind === 'unavailable' && cause.code !== undefined && RETRYABLE_CODES.has(cause.code) && reason !== 'proxy';
  return new GymApiError(kind, `${operation.subject}: ${text}`, { id: operation.id, cause: error, reason, retryable });
}
