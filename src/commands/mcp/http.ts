/**
 * `gymctl mcp --http`: the same tools over Streamable HTTP, on loopback only, at `/mcp`, behind a bearer token. A request is checked
 * in order: Host and Origin name loopback (DNS rebinding: 403), the path (404), the token (401) (http-guards.ts); then it goes to its
 * session, or opens one (http-sessions.ts). Loaded with import() by mcp/run.ts, only for --http, as the side file mcp-http.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GymctlError } from '../../api/errors.js';
import { usageError } from '../../failures.js';
import type { GymctlMcpServer } from '../../mcp/server.js';
import { bearerMatches, digest, foreignHeader, type Listen, REFUSED, refuse, SESSION_NOT_FOUND, TOKEN_VARIABLE } from './http-guards.js';
import { MAX_SESSIONS, RESUME_GRACE_MS, sessionTable } from './http-sessions.js';

export { type Listen, parseListen, TOKEN_VARIABLE, tokenOf } from './http-guards.js';

export const MCP_PATH = '/mcp';
/** A request's headers and body arrive within this, or it is closed (408): a client that trickles them holds nothing for long. */
export const REQUEST_TIMEOUT_MS = 10_000;
const UNAUTHORIZED = `Unauthorized: send the token gymctl mcp printed when it started (or ${TOKEN_VARIABLE}'s) as Authorization: Bearer <token>`;

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
  const host = listen.host === '::1' ? '[::1]' : listen.host;
  const sessions = sessionTable(newServer, log, options.resumeGraceMs ?? RESUME_GRACE_MS);
  let stopping = false;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // A web page's request (DNS rebinding) first, whatever else it holds: its Host or Origin is not loopback's.
    const foreign = foreignHeader(req.headers);
    if (foreign) {
      log(`refused a request because ${foreign}`);
      return refuse(res, 403, REFUSED, `Forbidden: ${foreign}`);
    }
    if ((req.url ?? '').split('?')[0] !== MCP_PATH) return refuse(res, 404, REFUSED, `Not Found: the MCP endpoint is ${MCP_PATH}`);
    if (!bearerMatches(req.headers.authorization, expected)) {
      log(`refused a request ${req.headers.authorization === undefined ? 'without a bearer token' : 'with a wrong token'}`);
      return refuse(res, 401, REFUSED, UNAUTHORIZED, { 'www-authenticate': 'Bearer' });
    }
    if (stopping) return refuse(res, 503, REFUSED, 'Service Unavailable: gymctl mcp is stopping');
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      // As the SDK says it: a client that gets 404 for its session starts a new one.
      return session ? sessions.serve(session, req, res) : refuse(res, 404, SESSION_NOT_FOUND, 'Session not found');
    }
    if (req.method === 'GET' || req.method === 'DELETE') return refuse(res, 400, REFUSED, 'Bad Request: Mcp-Session-Id header is required');
    if (req.method !== 'POST') return refuse(res, 405, REFUSED, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
    // A POST with no session: an initialize request opens one (the SDK's transport refuses anything else).
    if (!(await sessions.makeRoom())) {
      return refuse(res, 503, REFUSED, `Service Unavailable: ${MAX_SESSIONS} MCP sessions are open and in use, the most gymctl mcp serves at once; end one (DELETE) and retry`);
    }
    const session = await sessions.open();
    await sessions.serve(session, req, res);
    if (session.transport.sessionId === undefined) await sessions.close(session);
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
    server.listen({ host: listen.host, port: listen.port });
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${host}:${listen.port}`;
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
    url: `http://${host}:${port}${MCP_PATH}`,
    failed,
    close() {
      closing ??= (async () => {
        stopping = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await sessions.closeAll();
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
