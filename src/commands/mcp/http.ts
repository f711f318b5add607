/**
 * `gymctl mcp --http`: the same tools over Streamable HTTP, on loopback only, at `/mcp`, behind a bearer token. A request is
 * checked in order: Host and Origin name loopback (DNS rebinding: 403), the path (404), the token (401); then it goes to its
 * session, or opens one. Each session has a server of its own (the SDK's serves one transport); the API session, limits and
 * gate are shared. Loaded with import() by mcp/run.ts, only for --http, as the side file mcp-http.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EventStore, StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type JSONRPCMessage, type RequestId, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { GymctlError } from '../../api/errors.js';
import { parseWholeNumber } from '../../files/system.js';
import { usageError } from '../../failures.js';
import type { GymctlMcpServer } from '../../mcp/server.js';

/** `--http` alone: a port of its own, away from the sandbox's 4010 and the usual development servers' 3000, 5173 and 8080. */
export const DEFAULT_HTTP_PORT = 8808;
export const MCP_PATH = '/mcp';
/** MCP sessions at once: an assistant holds one while it runs; the one used least recently with no call in flight is closed to make room for a new one. */
export const MAX_SESSIONS = 32;
/** A request's headers and body arrive within this, or it is closed (408): a client that trickles them holds nothing for long. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** The `retry` of a stream's priming event: how soon a client whose stream dropped comes back with Last-Event-ID. */
export const RETRY_MS = 500;
/** How long a call whose stream dropped waits for its client to resume it before it is cancelled (at once for a client that cannot resume). */
export const RESUME_GRACE_MS = 1_000;
/** What each session keeps for Last-Event-ID: its last 100 events, at most 1 MB of them (the newest is always kept). */
export const MAX_STORED_EVENTS = 100;
export const MAX_STORED_BYTES = 1024 * 1024;
/** A request body's most: a tool call's arguments are a few ids. Over it, 413 (the SDK's check, with this bound). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The environment variable that chooses the token (never a flag: argv is visible to every user of the machine). */
export const TOKEN_VARIABLE = 'GYMCTL_MCP_TOKEN';
const MIN_TOKEN_LENGTH = 16;
const MAX_TOKEN_LENGTH = 512;

/** Where to listen: a loopback address and a port (0: any free one). */
export interface Listen {
  host: '127.0.0.1' | '::1';
  port: number;
}

const LOOPBACK_NAMES: Record<string, Listen['host']> = { localhost: '127.0.0.1', '127.0.0.1': '127.0.0.1', '[::1]': '::1', '::1': '::1' };

/** `--http`'s value: `true` (the default port), `PORT`, `HOST` or `HOST:PORT` where HOST is 127.0.0.1, localhost or [::1]. Anything else is a usage error. */
export function parseListen(value: string | true): Listen {
  if (value === true) return { host: '127.0.0.1', port: DEFAULT_HTTP_PORT };
  const text = value.trim();
  let name: string | undefined;
  let portText: string | undefined;
  const bracketed = /^(\[[^\]]*\])(?::(.*))?$/.exec(text);
  if (/^[0-9]+$/.test(text)) portText = text;
  else if (bracketed) [, name, portText] = bracketed;
  else if (text.split(':').length === 2) [name, portText] = text.split(':');
  else name = text; // a host alone (`::1` without brackets has no port)
  const host = name === undefined ? '127.0.0.1' : LOOPBACK_NAMES[name.toLowerCase()];
  if (host === undefined) {
    throw usageError(
      `--http serves on loopback only (127.0.0.1, localhost or [::1]), never on ${JSON.stringify(name)}, which others could reach: give a port alone, such as --http ${DEFAULT_HTTP_PORT}`,
    );
  }
  const port = portText === undefined ? DEFAULT_HTTP_PORT : parseWholeNumber(portText, 0, 65535);
  if (port === undefined) throw usageError(`invalid --http port ${JSON.stringify(portText)}: expected a whole number from 0 to 65535 (0 picks a free one)`);
  return { host, port };
}

/** GYMCTL_MCP_TOKEN's token when set, else one made now, which the caller prints once. A bad one is a usage error, said without it. */
export function tokenOf(env: NodeJS.ProcessEnv): { token: string; generated: boolean } {
  const given = env[TOKEN_VARIABLE];
  if (given === undefined || given === '') return { token: randomBytes(32).toString('base64url'), generated: true };
  if (given.length < MIN_TOKEN_LENGTH || given.length > MAX_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(given)) {
    throw usageError(
      `${TOKEN_VARIABLE} must be ${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH} visible ASCII characters, with no spaces (it has ${given.length} characters); unset it and gymctl makes one`,
    );
  }
  return { token: given, generated: false };
}

/** `localhost`, `127.0.0.1` or `[::1]`, with any port: the Host a client of this server sends, directly or through a relay on loopback. */
const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::[0-9]{1,5})?$/i;
/** The same, as a browser's Origin: a page served from loopback itself. */
const LOOPBACK_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::[0-9]{1,5})?$/i;

/** Why a request is refused for its Host or Origin header (a web page's request, made through DNS rebinding or not), if it is. */
export function foreignHeader(headers: IncomingMessage['headers']): string | undefined {
  const { host, origin } = headers;
  if (host === undefined || !LOOPBACK_HOST.test(host)) return `its Host header (${JSON.stringify(host ?? '')}) is not localhost, 127.0.0.1 or [::1]`;
  if (origin !== undefined && !LOOPBACK_ORIGIN.test(origin)) return `its Origin header (${JSON.stringify(origin)}) is not a page on localhost, 127.0.0.1 or [::1]`;
  return undefined;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `authorization` is `Bearer <token>`: compared in constant time, as digests of equal length, so that neither the text nor its length leaks. */
export function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
}

/** A JSON-RPC error as the whole answer, as the SDK's transport answers its own refusals. The connection is closed: the body, if any, is not read. */
function refuse(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...headers });
  res.end(body);
}

/** JSON-RPC codes: the SDK's transport's for a request refused (-32000) and for a session it does not know (-32001); JSON-RPC's for a body that does not parse. */
const REFUSED = -32000;
const SESSION_NOT_FOUND = -32001;
const PARSE_ERROR = -32700;

/** A request's body as JSON, read to at most MAX_BODY_BYTES. */
async function readJson(req: IncomingMessage): Promise<{ parsed: unknown } | 'too large' | 'not JSON'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return 'too large';
    chunks.push(chunk);
  }
  try {
    return { parsed: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return 'not JSON';
  }
}

/** One HTTP request to a session: the calls it carries, or the stream it resumes (a GET with Last-Event-ID). */
interface Exchange {
  ids: Set<RequestId>;
  resumes?: Exchange;
  /** Until its calls are cancelled, once every stream that could carry their answers has closed. */
  timer?: NodeJS.Timeout;
}

interface LiveSession {
  transport: StreamableHTTPServerTransport;
  server: GymctlMcpServer;
  /** Its calls in flight (not yet answered), each with the request it came in. */
  pending: Map<RequestId, Exchange>;
  /** The protocol version its initialize agreed on. */
  version?: string;
  /** The request each SSE stream of the session was opened by. */
  streams: Map<string, Exchange>;
  /** When the session was last asked anything, as a count of requests: the session idle longest has the smallest. */
  used: number;
  /** Told when a request of the session closes: its calls not yet answered are cancelled, at once or after a grace to resume. */
  dropped(call: Exchange, resumable: boolean): void;
}

/**
 * What a session keeps for a client that comes back with Last-Event-ID: its last events, bounded in number and bytes. Each
 * event's id is its number in the session; an id no longer kept is refused (400), and the client starts again.
 */
export function eventStore(maxEvents = MAX_STORED_EVENTS, maxBytes = MAX_STORED_BYTES): EventStore {
  const events: Array<{ id: string; streamId: string; message: JSONRPCMessage; bytes: number }> = [];
  let bytes = 0;
  let count = 0;
  const find = (id: string) => events.findIndex((event) => event.id === id);
  return {
    async storeEvent(streamId, message) {
      const event = { id: String(++count), streamId, message, bytes: Buffer.byteLength(JSON.stringify(message)) };
      events.push(event);
      bytes += event.bytes;
      while (events.length > maxEvents || (events.length > 1 && bytes > maxBytes)) bytes -= events.shift()!.bytes;
      return event.id;
    },
    async getStreamIdForEventId(id) {
      return events[find(id)]?.streamId;
    },
    async replayEventsAfter(id, { send }) {
      const at = find(id);
      const streamId = events[at]!.streamId;
      // A priming event (no message) is not sent again.
      for (const event of events.slice(at + 1)) if (event.streamId === streamId && 'jsonrpc' in event.message) await send(event.id, event.message);
      return streamId;
    },
  };
}

export interface HttpServeOptions {
  listen: Listen;
  token: string;
  newServer(): GymctlMcpServer;
  log(line: string): void;
  /** REQUEST_TIMEOUT_MS and RESUME_GRACE_MS, shorter in tests. */
  requestTimeoutMs?: number;
  resumeGraceMs?: number;
}

export interface McpHttpServer {
  url: string;
  /** Rejects if the server fails once listening. */
  failed: Promise<never>;
  close(): Promise<void>;
}

/** Listens, or fails with the port taken (a usage error, as the sandbox's) or any other reason it cannot. */
export async function serveHttp(options: HttpServeOptions): Promise<McpHttpServer> {
  const { listen, log, newServer } = options;
  const expected = digest(options.token);
  /** Every session from the request that opens it; by id once initialized. */
  const sessions = new Set<LiveSession>();
  const byId = new Map<string, LiveSession>();
  let requests = 0;
  let stopping = false;

  const graceMs = options.resumeGraceMs ?? RESUME_GRACE_MS;
  /** The request being served, through the SDK's transport to the messages it reads and the events it stores. */
  const exchange = new AsyncLocalStorage<Exchange>();

  const forget = (session: LiveSession) => {
    sessions.delete(session);
    if (session.transport.sessionId !== undefined) byId.delete(session.transport.sessionId);
    for (const { timer } of session.pending.values()) clearTimeout(timer);
  };
  const closeSession = async (session: LiveSession) => {
    forget(session);
    // Closing the server closes its transport: the session's streams end, and its calls in flight are aborted.
    await session.server.server.close().catch(() => {});
  };

  /** Room for one more session: at most MAX_SESSIONS initialized, the one used least recently with no call in flight closed to make room if need be. */
  const makeRoom = async (): Promise<boolean> => {
    if (byId.size < MAX_SESSIONS) return true;
    let idlest: LiveSession | undefined;
    for (const session of byId.values()) if (session.pending.size === 0 && (!idlest || session.used < idlest.used)) idlest = session;
    if (!idlest) return false;
    log(`${MAX_SESSIONS} sessions are open: the one used least recently, with no call in flight, is closed to make room for a new one`);
    await closeSession(idlest);
    return true;
  };

  const openSession = async (): Promise<LiveSession> => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => void byId.set(id, session),
      eventStore: withStreams(eventStore()),
      retryInterval: RETRY_MS,
    });
    const session: LiveSession = { transport, server: newServer(), pending: new Map(), streams: new Map(), used: requests, dropped: () => {} };
    sessions.add(session);
    transport.onclose = () => forget(session);
    // The SDK answers a request it refuses itself (406, 415, 413, 400, 404); the line says what it was, never the request's headers.
    transport.onerror = (error) => log(`a request was refused: ${error.message.slice(0, 200)}`);
    await session.server.connect(transport);
    // Each request read is a call of the request it came in; each answer sent ends one.
    const deliver = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      const call = exchange.getStore();
      if (call && 'method' in message && 'id' in message) {
        call.ids.add(message.id);
        session.pending.set(message.id, call);
      }
      deliver.call(transport, message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      const agreed = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof agreed === 'string') session.version = agreed;
      if ('id' in message && message.id !== undefined && !('method' in message)) session.pending.delete(message.id);
      return send(message, sendOptions);
    };
    /** Cancels the calls of `call` not yet answered, as a client's notifications/cancelled would: their API requests are aborted, their places freed. */
    const cancel = (call: Exchange) => {
      for (const id of call.ids) {
        if (session.pending.get(id) !== call) continue;
        session.pending.delete(id);
        const reason = "the client's connection closed before the answer";
        deliver.call(transport, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
      }
    };
    /** The event store, told which request opened each stream, and which request resumes one. */
    function withStreams(store: EventStore): EventStore {
      return {
        ...store,
        storeEvent(streamId, message) {
          const call = exchange.getStore();
          if (call && !session.streams.has(streamId)) session.streams.set(streamId, call);
          return store.storeEvent(streamId, message);
        },
        async replayEventsAfter(id, replay) {
          const streamId = await store.replayEventsAfter(id, replay);
          const resumed = session.streams.get(streamId);
          const call = exchange.getStore();
          if (resumed && call) {
            clearTimeout(resumed.timer);
            call.resumes = resumed;
          }
          return streamId;
        },
      };
    }
    session.dropped = (call: Exchange, resumable: boolean) => {
      const owner = call.resumes ?? call;
      if (![...owner.ids].some((id) => session.pending.get(id) === owner)) return;
      clearTimeout(owner.timer);
      // A client told how to resume (a priming event, protocol 2025-11-25 and later) has a moment to come back for the answers.
      if (resumable) owner.timer = setTimeout(() => cancel(owner), graceMs);
      else cancel(owner);
    };
    return session;
  };

  const serve = async (session: LiveSession, req: IncomingMessage, res: ServerResponse) => {
    session.used = ++requests;
    const call: Exchange = { ids: new Set() };
    // The version the session agreed on says whether its client can resume a stream (priming events, from 2025-11-25), not
    // each request's header, which the SDK reads: a known version in it is taken as the one agreed on.
    const at = req.rawHeaders.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === 'mcp-protocol-version');
    if (session.version && at !== -1 && SUPPORTED_PROTOCOL_VERSIONS.includes(req.rawHeaders[at + 1]!)) req.rawHeaders[at + 1] = session.version;
    const resumable = (session.version ?? '') >= '2025-11-25';
    // A call whose every stream closed before its answer is cancelled: its client is gone.
    res.once('close', () => session.dropped(call, resumable));
    // A POST's body is read here, so that a request whose params are not an object is answered -32602 with its own id, as
    // on stdio (the server's guard): the SDK's transport would refuse it whole, -32700 with id null.
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if (read === 'too large') return refuse(res, 413, REFUSED, `Payload Too Large: a request body is at most ${MAX_BODY_BYTES} bytes`);
      if (read === 'not JSON') return refuse(res, 400, PARSE_ERROR, 'Parse error: Invalid JSON');
      body = session.server.received(read.parsed);
    }
    await exchange.run(call, () => session.transport.handleRequest(req, res, body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // A web page's request (DNS rebinding) first, whatever else it holds: its Host or Origin is not loopback's.
    const foreign = foreignHeader(req.headers);
    if (foreign) {
      log(`refused a request because ${foreign}`);
      refuse(res, 403, REFUSED, `Forbidden: ${foreign}`);
      return;
    }
    if ((req.url ?? '').split('?')[0] !== MCP_PATH) {
      refuse(res, 404, REFUSED, `Not Found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    if (!bearerMatches(req.headers.authorization, expected)) {
      log(`refused a request ${req.headers.authorization === undefined ? 'without a bearer token' : 'with a wrong token'}`);
      refuse(res, 401, REFUSED, `Unauthorized: send the token gymctl mcp printed when it started (or ${TOKEN_VARIABLE}'s) as Authorization: Bearer <token>`, {
        'www-authenticate': 'Bearer',
      });
      return;
    }
    if (stopping) {
      refuse(res, 503, REFUSED, 'Service Unavailable: gymctl mcp is stopping');
      return;
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = byId.get(id);
      // As the SDK says it: a client that gets 404 for its session starts a new one.
      if (!session) refuse(res, 404, SESSION_NOT_FOUND, 'Session not found');
      else await serve(session, req, res);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      refuse(res, 400, REFUSED, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    if (req.method !== 'POST') {
      refuse(res, 405, REFUSED, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
      return;
    }
    // A POST with no session: an initialize request opens one (the SDK's transport refuses anything else).
    if (!(await makeRoom())) {
      refuse(res, 503, REFUSED, `Service Unavailable: ${MAX_SESSIONS} MCP sessions are open and in use, the most gymctl mcp serves at once; end one (DELETE) and retry`);
      return;
    }
    const session = await openSession();
    await serve(session, req, res);
    if (session.transport.sessionId === undefined) await closeSession(session);
  };

  // Headers and body within the time limit, checked every second (Node checks every 30 s by default); a stream, once its request is read, is not timed.
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer({ headersTimeout: requestTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout) }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`a request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) refuse(res, 500, REFUSED, 'Internal error');
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: listen.host, port: listen.port, ipv6Only: listen.host === '::1' }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${listen.host === '::1' ? '[::1]' : listen.host}:${listen.port}`;
    // The port is what the user chose: a usage error, with what to choose instead (as the sandbox says it).
    if (code === 'EADDRINUSE') throw usageError(`cannot serve MCP over HTTP: port ${listen.port} on ${listen.host} is taken; choose another with --http PORT (0 picks a free one)`);
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw usageError(`cannot serve MCP over HTTP on ${where} (${code}): choose another --http port, or 127.0.0.1`);
    throw new GymctlError('internal', `cannot serve MCP over HTTP on ${where}: ${code ?? String(error)}`);
  }
  const { port } = server.address() as AddressInfo;
  const failed = new Promise<never>((_, reject) => server.once('error', (error) => reject(new GymctlError('internal', `the MCP HTTP server failed: ${error.message}`))));
  failed.catch(() => {});
  let closing: Promise<void> | undefined;
  return {
    url: `http://${listen.host === '::1' ? '[::1]' : listen.host}:${port}${MCP_PATH}`,
    failed,
    close() {
      closing ??= (async () => {
        stopping = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.allSettled([...sessions].map(closeSession));
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
