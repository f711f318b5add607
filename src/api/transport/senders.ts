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
import { proxyFor } from './proxy.js';
import type { Connection, Exchange, FetchLike, Send, SendWith, TransportOptions } from './types.js';

/** Reason phrases, for messages and traces when the server (or a fake dispatcher) sent none. */
const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

type Headers = http.IncomingHttpHeaders;

const headerGetter = (headers: Headers) => ({
  get: (name: string) => {
    const value = headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  },
});

/** Reads headers given as names and values in turn (undici's `responseHeaders: 'raw'`); a repeated one's values joined with `, `. */
const rawHeaderGetter = (raw: readonly string[]) => ({
  get: (name: string) => {
    const wanted = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === wanted) value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]}`;
    return value;
  },
});

/**
 * Sends through node:http(s) with a keep-alive agent that holds at most
 * `maxConnections` sockets to the origin of `baseUrl`, parsed once: a
 * request is the path alone, with no URL to build. Redirects are not
 * followed. The transport stops a request by destroying it: no
 * AbortController or listener per request.
 */
export function viaNodeHttp(baseUrl: string | URL, maxConnections?: number): Send & { sendWith: SendWith; close(): void } {
  const base = new URL(baseUrl);
  const secure = base.protocol === 'https:';
  // process.getBuiltinModule, not import(): on Node 22 and later the ESM
  // namespace of node:http loads Node's undici, tls, http2 and zlib through
  // its getters, tens of milliseconds a call spent on nothing.
  const module = secure ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  // Offering only http/1.1 by ALPN makes a server that speaks only HTTP/2
  // fail the handshake, rather than answer in a way that looks like a 403.
  const agent = new module.Agent({
    keepAlive: true,
    ...(maxConnections ? { maxSockets: maxConnections } : {}),
    ...(secure ? { ALPNProtocols: ['http/1.1'] } : {}),
  });
  const target = {
    protocol: base.protocol,
    hostname: base.hostname.replace(/^\[|\]$/g, ''),
    port: base.port,
    ...(secure && !/^[\d.]+$|:/.test(base.hostname) ? { servername: base.hostname } : {}),
  };
  // With a callback (a batch's fast path), and as a promise on top of it.
  const sendWith: SendWith = (path, headers, control, done) => {
    let request: http.ClientRequest | undefined;
    let stopped = false;
    // Destroying the request fails it, and the response it may have handed over, with the reason: it settles.
    // Stopped before it was made, it is not made at all (no connection is opened for it).
    control.onStop((reason) => {
      stopped = true;
      if (request) request.destroy(reason);
      else done(reason);
    });
    if (stopped) return;
    request = module.request({ ...target, path, method: 'GET', headers, agent }, (response) => {
      done(undefined, {
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        headers: headerGetter(response.headers),
        rawHeaders: response.rawHeaders,
        httpVersion: response.httpVersion,
        body: response,
        cancel: () => void response.destroy(),
      });
    });
    request.on('error', done);
    request.end();
  };
  const send: Send = (path, headers, control) =>
    new Promise<Exchange>((resolve, reject) => sendWith(path, headers, control, (error, exchange) => (error === undefined ? resolve(exchange!) : reject(error))));
  return Object.assign(send, { sendWith, close: () => agent.destroy() });
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
export async function viaUndici(dispatcher: Dispatcher, origin: string): Promise<Send> {
  const { request } = await loadUndici();
  return (path, headers, control) =>
    new Promise<Exchange>((resolve, reject) => {
      const controller = new AbortController();
      let body: (NodeJS.ReadableStream & { destroy(error?: Error): unknown }) | undefined;
      // undici may not settle on its own once aborted (a proxy that drops every CONNECT): settled here, with the body.
      control.onStop((reason) => {
        controller.abort(reason);
        body?.destroy(reason);
        reject(reason);
      });
      // Stopped before it was sent: nothing is sent.
      if (controller.signal.aborted) return;
      // Headers as received (`raw`): in order, as spelled, repeated ones kept, for `gymctl api -i`.
      request(origin + path, { dispatcher, method: 'GET', headers, signal: controller.signal, responseHeaders: 'raw' }).then((response) => {
        body = response.body;
        const raw = response.headers as unknown as string[];
        resolve({
          status: response.statusCode,
          // undici reads the reason phrase as UTF-8: given back as one character a byte, as node:http gives it.
          statusText: response.statusText ? Buffer.from(response.statusText, 'utf8').toString('latin1') : (REASONS[response.statusCode] ?? ''),
          headers: rawHeaderGetter(raw),
          rawHeaders: raw,
          body: response.body,
          cancel: () => void response.body.destroy(),
        });
      }, reject);
    });
}

/** Sends through a fetch, with redirects left unfollowed. */
export function viaFetch(fetch: FetchLike, origin: string, dispatcher?: Dispatcher): Send {
  return (path, headers, control) =>
    new Promise<Exchange>((resolve, reject) => {
      const controller = new AbortController();
      // Aborting fails the fetch, or its body once handed over; the promise is settled here all the same.
      control.onStop((reason) => {
        controller.abort(reason);
        reject(reason);
      });
      if (controller.signal.aborted) return;
      fetch(origin + path, { method: 'GET', headers, redirect: 'manual', signal: controller.signal, ...(dispatcher ? { dispatcher } : {}) }).then(
        (response) =>
          resolve({
            status: response.status,
            statusText: response.statusText,
            headers: response.headers,
            // fetch gives headers with lower-case names, sorted, repeated ones joined (but Set-Cookie): the best it can say.
            rawHeaders: [...response.headers].flat(),
            body: response.body as AsyncIterable<Uint8Array> | null,
            decoded: true,
            cancel: () => void response.body?.cancel().catch(() => {}),
          }),
        reject,
      );
    });
}

/** How requests go out, and how to let go of the connections when done. */
/**
 * Picks the sender for these options: the caller's fetch or dispatcher;
 * undici's ProxyAgent when HTTPS_PROXY or HTTP_PROXY names a proxy for the
 * base URL (see proxy.ts: never for loopback, nor what NO_PROXY names);
 * else node:http.
 */
export async function openConnection(options: TransportOptions): Promise<Connection> {
  const { fetch, dispatcher, maxConnections } = options;
  const origin = new URL(options.baseUrl).origin;
  if (fetch) return { send: viaFetch(fetch, origin, dispatcher), close: async () => {} };
  if (dispatcher) return { send: await viaUndici(dispatcher, origin), close: async () => {} };
  const proxy = proxyFor(new URL(options.baseUrl), options.env ?? process.env);
  if (proxy) {
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { ProxyAgent, Pool, buildConnector } = await loadUndici();
    const { isIP } = process.getBuiltinModule('node:net');
    const connectToProxy = buildConnector({ timeout });
    const agent = new ProxyAgent({
      uri: proxy.url.href,
      // undici names an https proxy given by IP address in the TLS handshake
      // (SNI), which Node warns about (DEP0123) and, from Node 26, refuses:
      // an IP address is never sent as a server name.
      clientFactory: (origin, options) =>
        new Pool(origin, {
          ...options,
          connect: (connect, callback) => connectToProxy({ ...connect, servername: connect.servername && isIP(connect.servername) ? undefined : connect.servername }, callback),
        }),
      connect: { timeout },
      proxyTls: { timeout },
      requestTls: { timeout, ALPNProtocols: ['http/1.1'] },
      headersTimeout: timeout,
      bodyTimeout: timeout,
      ...(maxConnections ? { connections: maxConnections } : {}),
    });
    return { send: await viaUndici(agent, origin), close: () => agent.destroy(), proxy };
  }
  const send = viaNodeHttp(options.baseUrl, maxConnections);
  return { send, sendWith: send.sendWith, close: async () => send.close() };
}
