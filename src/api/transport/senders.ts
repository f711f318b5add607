/**
 * The senders: the ways the transport can send a GET, all giving it the same view of the
 * answer:
 * - node:http(s) on a keep-alive agent: the default, as it costs almost
 *   nothing to load (undici's client costs tens of milliseconds at start-up,
 *   most of it compiling its WebAssembly HTTP parser, which a CLI pays on
 *   every call);
 * - undici's request API on a dispatcher: when a proxy is configured
 *   (EnvHttpProxyAgent brings HTTP_PROXY, HTTPS_PROXY and NO_PROXY), or the
 *   caller passes a dispatcher;
 * - any fetch (Node's global fetch, which nock intercepts in tests).
 */
import type http from 'node:http';
import type { Dispatcher } from 'undici';
import { DEFAULT_TIMEOUT_MS } from '../defaults.js';
import { proxyFor, type ProxyChoice } from './proxy.js';
import type { TransportOptions } from './types.js';

/** An HTTP answer as the transport reads it, whichever way it came. */
export interface Exchange {
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  body: AsyncIterable<Uint8Array> | null;
  /** The body was already decoded from its Content-Encoding (fetch does that itself). */
  decoded?: boolean;
  /** Stops reading the body and frees the connection. */
  cancel(): void;
}

export type Send = (url: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Exchange>;

export type FetchLike = (input: string, init: RequestInit & { dispatcher?: Dispatcher }) => Promise<Response>;

/** Reason phrases, which HTTP/1.1 undici does not hand over, for messages and traces. */
const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other',
  307: 'Temporary Redirect', 308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict', 422: 'Unprocessable Content',
  429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

type Headers = http.IncomingHttpHeaders;

const headerGetter = (headers: Headers) => ({
  get: (name: string) => {
    const value = headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  },
});

/** node:http and node:https, loaded on first use. */
let nodeHttp: { http: typeof import('node:http'); https?: typeof import('node:https') } | undefined;

/**
 * Sends through node:http(s) with keep-alive agents that hold at most
 * `maxConnections` sockets to the server. Redirects are not followed.
 */
export function viaNodeHttp(maxConnections?: number): Send & { close(): void } {
  const agents: http.Agent[] = [];
  const agentFor = async (protocol: string) => {
    nodeHttp ??= { http: await import('node:http') };
    const secure = protocol === 'https:';
    if (secure) nodeHttp.https ??= await import('node:https');
    const module = secure ? nodeHttp.https! : nodeHttp.http;
    // Offering only http/1.1 by ALPN makes a server that speaks only HTTP/2
    // fail the handshake, rather than answer in a way that looks like a 403.
    const agent = new module.Agent({
      keepAlive: true,
      ...(maxConnections ? { maxSockets: maxConnections } : {}),
      ...(secure ? { ALPNProtocols: ['http/1.1'] } : {}),
    });
    agents.push(agent);
    return { module, agent };
  };
  const pools = new Map<string, ReturnType<typeof agentFor>>();
  const send: Send = async (url, headers, signal) => {
    const target = new URL(url);
    let pool = pools.get(target.protocol);
    if (!pool) pools.set(target.protocol, (pool = agentFor(target.protocol)));
    const { module, agent } = await pool;
    return new Promise<Exchange>((resolve, reject) => {
      const request = module.request(target, { method: 'GET', headers, agent, signal }, (response) => {
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers: headerGetter(response.headers),
          body: response,
          cancel: () => void response.destroy(),
        });
      });
      request.on('error', reject);
      request.end();
    });
  };
  return Object.assign(send, { close: () => agents.forEach((agent) => agent.destroy()) });
}

type Undici = typeof import('undici');

/** undici, however the bundler wrapped its CommonJS exports. */
export async function loadUndici(): Promise<Undici> {
  const loaded = (await import('undici')) as Undici & { default?: Undici };
  return loaded.default ?? loaded;
}

/**
 * Sends through undici's request API on `dispatcher`; redirects are not
 * followed (undici never does unless told). undici is loaded whole, on first
 * use: its proxy agent needs the request API it installs on every dispatcher.
 */
export async function viaUndici(dispatcher: Dispatcher): Promise<Send> {
  const { request } = await loadUndici();
  return async (url, headers, signal) => {
    const response = await request(url, { dispatcher, method: 'GET', headers, signal });
    return {
      status: response.statusCode,
      statusText: REASONS[response.statusCode] ?? '',
      headers: headerGetter(response.headers),
      body: response.body,
      cancel: () => void response.body.destroy(),
    };
  };
}

/** Sends through a fetch, with redirects left unfollowed. */
export function viaFetch(fetch: FetchLike, dispatcher?: Dispatcher): Send {
  return async (url, headers, signal) => {
    const response = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal, ...(dispatcher ? { dispatcher } : {}) });
    return {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      body: response.body as AsyncIterable<Uint8Array> | null,
      decoded: true,
      cancel: () => void response.body?.cancel().catch(() => {}),
    };
  };
}

/** How requests go out, and how to let go of the connections when done. */
export interface Connection {
  send: Send;
  close(): Promise<void>;
  /** The proxy requests go through, if any. */
  proxy?: ProxyChoice | undefined;
}

/**
 * Picks the sender for these options: the caller's fetch or dispatcher;
 * undici's ProxyAgent when HTTPS_PROXY or HTTP_PROXY names a proxy for the
 * base URL (see proxy.ts: never for loopback, nor what NO_PROXY names);
 * else node:http.
 */
export async function openConnection(options: TransportOptions): Promise<Connection> {
  const { fetch, dispatcher, maxConnections } = options;
  if (fetch) return { send: viaFetch(fetch, dispatcher), close: async () => {} };
  if (dispatcher) return { send: await viaUndici(dispatcher), close: async () => {} };
  const proxy = proxyFor(new URL(options.baseUrl), options.env ?? process.env);
  if (proxy) {
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { ProxyAgent } = await loadUndici();
    const agent = new ProxyAgent({
      uri: proxy.url.href,
      connect: { timeout },
      proxyTls: { timeout },
      requestTls: { timeout, ALPNProtocols: ['http/1.1'] },
      headersTimeout: timeout,
      bodyTimeout: timeout,
      ...(maxConnections ? { connections: maxConnections } : {}),
    });
    return { send: await viaUndici(agent), close: () => agent.destroy(), proxy };
  }
  const send = viaNodeHttp(maxConnections);
  return { send, close: async () => send.close() };
}
