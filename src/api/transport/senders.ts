// The senders, none following redirects: node:http(s) direct (undici costs tens of ms compiling its WASM parser at start-up); undici's request API, not its fetch
// (which hides the headers as received, that `api -i` prints); or the caller's fetch (senders.web.ts, which the web build takes instead: build/index.mjs).
import type http from 'node:http';
import type { Dispatcher } from 'undici';
import { hostOptions, proxyFor } from './network.js';
import { stoppable, viaFetch } from './senders.web.js';
import type { Connection, Exchange, NodeStream, Send } from './exchange.js';
import type { ClientOptions } from './types.js';

export function viaNodeHttp(base: URL, maxConnections?: number): Connection {
  const secure = base.protocol === 'https:';
  // Not import(): on Node 22+ node:http's ESM namespace loads undici, tls, http2 and zlib through its getters, for nothing.
  const module = secure ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  // Only http/1.1 by ALPN: an HTTP/2-only server fails the handshake rather than answer what looks like a 403.
  const agent = new module.Agent({ keepAlive: true, ...(maxConnections ? { maxSockets: maxConnections } : {}), ...(secure ? { ALPNProtocols: ['http/1.1'] } : {}) });
  const target = { protocol: base.protocol, port: base.port, ...hostOptions(base) };
  const send: Send = (path, headers, control) =>
    new Promise<Exchange>((resolve, reject) => {
      let request: http.ClientRequest | undefined;
      let stopped = false;
      // Destroying the request fails it and its response with the reason; stopped before it is made, it is not made.
      control.onStop((reason) => {
        stopped = true;
        request?.destroy(reason);
        reject(reason);
      });
      if (stopped) return;
      request = module.request({ ...target, path, method: 'GET', headers, agent }, (response) => {
        // Hold the headers, not the response: a batch keeps answers until their turn.
        const received = response.headers;
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? '',
          headers: { get: (name) => nodeHeader(received[name.toLowerCase()]) },
          rawHeaders: response.rawHeaders,
          httpVersion: response.httpVersion,
          body: response,
          cancel: () => void response.destroy(),
        });
      });
      request.on('error', reject);
      request.end();
    });
  return { send, close: async () => agent.destroy() };
}

const nodeHeader = (value: string | string[] | undefined) => (value === undefined ? null : Array.isArray(value) ? value.join(', ') : value);

type Undici = typeof import('undici');

/** undici, however the bundler wrapped its CommonJS exports, loaded on first use. */
const loadUndici = () => import('undici').then((loaded: Undici & { default?: Undici }) => loaded.default ?? loaded);

export async function viaUndici(dispatcher: Dispatcher, origin: string): Promise<Send> {
  const { request } = await loadUndici();
  // For an answer with no reason phrase (or a fake dispatcher's), the one node:http knows.
  const { STATUS_CODES } = process.getBuiltinModule('node:http');
  return (path, headers, control) => {
    let body: NodeStream | undefined;
    const start = (signal: AbortSignal) =>
      request(origin + path, { dispatcher, method: 'GET', headers, signal, responseHeaders: 'raw' }).then((response): Exchange => {
        body = response.body;
        const raw = response.headers as unknown as string[];
        return {
          status: response.statusCode,
          // undici reads the reason phrase as UTF-8: given back as one character a byte, as node:http gives it.
          statusText: response.statusText ? Buffer.from(response.statusText, 'utf8').toString('latin1') : (STATUS_CODES[response.statusCode] ?? ''),
          headers: {
            get: (name) => {
              const values = raw.filter((_, i) => i % 2 === 1 && raw[i - 1]!.toLowerCase() === name.toLowerCase());
              return values.length > 0 ? values.join(', ') : null;
            },
          },
          rawHeaders: raw,
          body: response.body,
          cancel: () => void response.body.destroy(),
        };
      });
    // undici may not settle on its own once aborted (a proxy that drops every CONNECT): the body is destroyed too.
    return stoppable(control, start, (reason) => body?.destroy(reason));
  };
}

export async function openConnection(options: ClientOptions, timeout: number): Promise<Connection> {
  const { fetch, dispatcher, maxConnections } = options;
  const base = new URL(options.baseUrl);
  if (fetch) return { send: viaFetch(fetch, base.origin, dispatcher), close: async () => {} };
  if (dispatcher) return { send: await viaUndici(dispatcher as Dispatcher, base.origin), close: async () => {} };
  const proxy = proxyFor(base, options.env ?? process.env);
  if (!proxy) return viaNodeHttp(base, maxConnections);
  const { ProxyAgent, Pool, buildConnector } = await loadUndici();
  const { isIP } = process.getBuiltinModule('node:net');
  const connectToProxy = buildConnector({ timeout });
  const agent = new ProxyAgent({
    uri: proxy.url.href,
    // undici sends an https proxy's IP address as SNI, which Node warns about (DEP0123) and Node 26 refuses.
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
  return { send: await viaUndici(agent, base.origin), close: () => agent.destroy(), proxy };
}
