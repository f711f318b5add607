/**
 * The sessions of `gymctl mcp --http`, each with a server of its own (the SDK's serves one transport; the API session, limits and
 * gate are shared), and a request served in its session: a call whose every stream closed before its answer is cancelled.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type EventStore, StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isJSONRPCErrorResponse, isJSONRPCResultResponse, type RequestId, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { GymctlMcpServer } from '../../mcp/server.js';
import { eventStore } from './http-events.js';
import { REFUSED, refuse } from './http-guards.js';

/** MCP sessions at once: an assistant holds one while it runs; the one used least recently with no call in flight is closed to make room for a new one. */
export const MAX_SESSIONS = 32;
/** The `retry` of a stream's priming event: how soon a client whose stream dropped comes back with Last-Event-ID. */
export const RETRY_MS = 500;
/** How long a call whose stream dropped waits for its client to resume it before it is cancelled (at once for a client that cannot resume). */
export const RESUME_GRACE_MS = 1_000;
/** A request body's most: a tool call's arguments are a few ids. Over it, 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

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
    return { parsed: JSON.parse(Buffer.concat(chunks).toString()) };
  } catch {
    return 'not JSON';
  }
}

/** One HTTP request to a session: the calls it carries, or the stream it resumes (a GET with Last-Event-ID). */
interface Exchange {
  ids: Set<RequestId>;
  resumes?: Exchange;
  /** Until its calls not yet answered are cancelled, once every stream that could carry their answers has closed. */
  timer?: NodeJS.Timeout;
}

export interface LiveSession {
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

/** The sessions of one server: every one from the request that opens it, by id once initialized. */
export function sessionTable(newServer: () => GymctlMcpServer, log: (line: string) => void, graceMs: number) {
  const sessions = new Set<LiveSession>();
  const byId = new Map<string, LiveSession>();
  let requests = 0;
  /** The request being served, through the SDK's transport to the messages it reads and the events it stores. */
  const exchange = new AsyncLocalStorage<Exchange>();

  const forget = (session: LiveSession) => {
    sessions.delete(session);
    if (session.transport.sessionId !== undefined) byId.delete(session.transport.sessionId);
  };
  const close = async (session: LiveSession) => {
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
    await close(idlest);
    return true;
  };

  const open = async (): Promise<LiveSession> => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
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
      // Read while its request is served: always within that request's exchange.
      const call = exchange.getStore()!;
      if ('method' in message && 'id' in message) {
        call.ids.add(message.id);
        session.pending.set(message.id, call);
      }
      deliver.call(transport, message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      const agreed = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof agreed === 'string') session.version = agreed;
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) session.pending.delete(message.id!);
      return send(message, sendOptions);
    };
    /** Cancels the calls of `call` not yet answered, as a client's notifications/cancelled would: their API requests are aborted, their places freed. */
    const cancel = (call: Exchange) => {
      for (const id of call.ids) {
        if (session.pending.get(id) !== call) continue;
        session.pending.delete(id);
        deliver.call(transport, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: "the client's connection closed before the answer" } });
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
      // A client told how to resume (a priming event, protocol 2025-11-25 and later) has a moment to come back for the answers;
      // the timer holds nothing open, and finds nothing to cancel once they are answered.
      if (resumable) owner.timer = setTimeout(() => cancel(owner), graceMs).unref();
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
      if (read === 'not JSON') return refuse(res, 400, ErrorCode.ParseError, 'Parse error: Invalid JSON');
      body = session.server.received(read.parsed);
    }
    await exchange.run(call, () => session.transport.handleRequest(req, res, body));
  };

  return { get: (id: string) => byId.get(id), makeRoom, open, close, serve, closeAll: () => Promise.allSettled([...sessions].map(close)) };
}
