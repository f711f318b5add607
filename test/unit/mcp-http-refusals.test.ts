/**
 * `serveHttp`'s refusals, in this process on a free port of 127.0.0.1: each said as a JSON-RPC error with its status, its
 * headers and its log line (never the request's headers), a session the SDK refused closed at once, a request that fails
 * answered 500, a port taken a usage error, and a server that stops refusing what comes in meanwhile.
 */
import http from 'node:http';
import { once } from 'node:events';
import net from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { type McpHttpServer, REQUEST_TIMEOUT_MS, serveHttp } from '../../src/commands/mcp/http.js';
import { MAX_BODY_BYTES, MAX_SESSIONS } from '../../src/commands/mcp/http-sessions.js';
import { createMcpServer, type GymctlMcpServer } from '../../src/mcp/server.js';
import { OPERATIONS } from '../../src/operations/index.js';

const TOKEN = 'the-token-of-these-refusals-0123';

const running: McpHttpServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(running.splice(0).map((one) => one.close()));
});

/** The node:http servers serveHttp listens with, from here on. */
function serversListening(): http.Server[] {
  const servers: http.Server[] = [];
  const listen = net.Server.prototype.listen;
  vi.spyOn(net.Server.prototype, 'listen').mockImplementation(function (this: net.Server, ...args: unknown[]) {
    servers.push(this as http.Server);
    return listen.apply(this, args as never);
  });
  return servers;
}

/** serveHttp with gymctl's tools over no API (the refusals never reach a tool); what it logged, and the servers it made. */
async function start(newServer?: () => GymctlMcpServer) {
  const log: string[] = [];
  const made: GymctlMcpServer[] = [];
  const served = await serveHttp({
    listen: { host: '127.0.0.1', port: 0 },
    token: TOKEN,
    log: (line) => log.push(line),
    newServer:
      newServer ??
      (() => {
        const server = createMcpServer({ operations: OPERATIONS, session: { failure: new GymctlError('unauthorized', 'no key') }, version: '0.0.0', log: () => {} });
        made.push(server);
        return server;
      }),
  });
  running.push(served);
  return { served, log, made, url: new URL(served.url) };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request as given, Host and all, read to its end. */
function send(url: URL, options: { method?: string; path?: string; headers?: Record<string, string | undefined>; body?: string | Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = Object.fromEntries(
      Object.entries({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...options.headers }).filter(
        ([, value]) => value !== undefined,
      ),
    ) as Record<string, string>;
    const request = http.request(
      { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port, path: options.path ?? url.pathname, method: options.method ?? 'POST', headers, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
    // A server that stops answering fails the test at once, rather than leaving it to wait for nothing.
    request.setTimeout(10_000, () => request.destroy(new Error('nothing came in 10 s')));
    request.end(options.body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A refusal's whole answer: its status, a JSON-RPC error with id null, its length, and the connection closed. */
function expectRefusal(answer: Answer, status: number, code: number, message: string | RegExp) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json');
  expect(answer.headers.connection).toBe('close');
  expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
  const parsed = JSON.parse(answer.body);
  expect(parsed).toEqual({ jsonrpc: '2.0', error: { code, message: expect.any(String) }, id: null });
  if (typeof message === 'string') expect(parsed.error.message).toBe(message);
  else expect(parsed.error.message).toMatch(message);
}

describe('refusals, each with its status and its JSON-RPC error', () => {
  it('a foreign Host: 403, said and logged with the Host, before the path and the token are looked at', async () => {
    const { url, log } = await start();
    const answer = await send(url, { path: '/elsewhere', headers: { host: 'evil.example', authorization: undefined }, body: initialize });
    expectRefusal(answer, 403, -32000, 'Forbidden: its Host header ("evil.example") is not localhost, 127.0.0.1 or [::1]');
    expect(log).toEqual(['refused a request because its Host header ("evil.example") is not localhost, 127.0.0.1 or [::1]']);
  });

  it('a foreign Origin: 403, said with the Origin', async () => {
    const { url } = await start();
    const answer = await send(url, { headers: { origin: 'http://evil.example' }, body: initialize });
    expectRefusal(answer, 403, -32000, 'Forbidden: its Origin header ("http://evil.example") is not a page on localhost, 127.0.0.1 or [::1]');
  });

  it('another path: 404 naming /mcp, before the token is looked at; a query after /mcp is the same path', async () => {
    const { url, log } = await start();
    for (const path of ['/', '/mcp/', '/mcpx', '/other?/mcp']) {
      expectRefusal(await send(url, { path, headers: { authorization: undefined }, body: initialize }), 404, -32000, 'Not Found: the MCP endpoint is /mcp');
    }
    expect(log).toEqual([]);
    expect((await send(url, { path: '/mcp?x=1', body: initialize })).status).toBe(200);
  });

  it('no token or a wrong one: 401 with WWW-Authenticate, logged without the header', async () => {
    const { url, log } = await start();
    const message = "Unauthorized: send the token gymctl mcp printed when it started (or GYMCTL_MCP_TOKEN's) as Authorization: Bearer <token>";
    const without = await send(url, { headers: { authorization: undefined }, body: initialize });
    expectRefusal(without, 401, -32000, message);
    expect(without.headers['www-authenticate']).toBe('Bearer');
    const wrong = await send(url, { headers: { authorization: 'Bearer not-the-token-at-all-0123' }, body: initialize });
    expectRefusal(wrong, 401, -32000, message);
    expect(wrong.headers['www-authenticate']).toBe('Bearer');
    expect(log).toEqual(['refused a request without a bearer token', 'refused a request with a wrong token']);
  });

  it('a session it does not know: 404 with -32001, so that the client starts a new one', async () => {
    const { url } = await start();
    expectRefusal(await send(url, { headers: { 'mcp-session-id': 'no-such-session' }, body: initialize }), 404, -32001, 'Session not found');
  });

  it('GET or DELETE with no session: 400; another method: 405 with Allow; neither opens a session', async () => {
    const { url, made } = await start();
    for (const method of ['GET', 'DELETE']) {
      expectRefusal(await send(url, { method, headers: { accept: 'text/event-stream' } }), 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const put = await send(url, { method: 'PUT', body: initialize });
    expectRefusal(put, 405, -32000, 'Method not allowed.');
    expect(put.headers.allow).toBe('GET, POST, DELETE');
    expect(made).toHaveLength(0);
  });

  it(`a body over ${MAX_BODY_BYTES} bytes: 413; one of exactly that many is read`, async () => {
    const { url } = await start();
    const over = await send(url, { body: Buffer.alloc(MAX_BODY_BYTES + 1, 0x20) });
    expectRefusal(over, 413, -32000, `Payload Too Large: a request body is at most ${MAX_BODY_BYTES} bytes`);
    // Exactly the bound: read whole, and answered as the JSON it is.
    const padded = initialize + ' '.repeat(MAX_BODY_BYTES - initialize.length);
    expect((await send(url, { body: padded })).status).toBe(200);
  });

  it('a body that is not JSON: 400 with -32700, said by gymctl before the SDK reads anything', async () => {
    const { url, log } = await start();
    expectRefusal(await send(url, { body: '{"jsonrpc":' }), 400, -32700, 'Parse error: Invalid JSON');
    // The SDK's transport, handed nothing, would refuse it too, and log it as its own refusal.
    expect(log).toEqual([]);
  });
});

describe('sessions the SDK does not open', () => {
  it('a POST with no session that is not an initialize: refused by the SDK, logged, and its server closed at once', async () => {
    const { url, made, log } = await start();
    const answer = await send(url, { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    expect(answer.status).toBe(400);
    expect(made).toHaveLength(1);
    // Closed: it has no transport any more.
    expect(made[0]!.server.isConnected()).toBe(false);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^a request was refused: .{1,200}$/);
  });

  it('an initialize opens one, which stays open until the client ends it (DELETE), after which its id is unknown', async () => {
    const { url, made } = await start();
    const opened = await send(url, { body: initialize });
    expect(opened.status).toBe(200);
    const headers = { 'mcp-session-id': opened.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
    expect(made[0]!.server.isConnected()).toBe(true);
    expect((await send(url, { method: 'DELETE', headers })).status).toBe(200);
    expectRefusal(await send(url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) }), 404, -32001, 'Session not found');
  });
});

describe('a refusal of the SDK', () => {
  it('is logged with its first 200 characters', async () => {
    const { url, log } = await start();
    const opened = await send(url, { body: initialize });
    const version = 'v'.repeat(300);
    const answer = await send(url, {
      headers: { 'mcp-session-id': opened.headers['mcp-session-id'] as string, 'mcp-protocol-version': version },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(answer.status).toBe(400);
    expect(log).toEqual([`a request was refused: ${`Bad Request: Unsupported protocol version: ${version}`.slice(0, 200)}`]);
  });
});

describe('a session ended by its client', () => {
  it(`frees its place at once: with ${MAX_SESSIONS} open and one ended (DELETE), a new one closes none of the others`, async () => {
    const { url, log } = await start();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS; i++) ids.push((await send(url, { body: initialize })).headers['mcp-session-id'] as string);
    const headers = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' });
    expect((await send(url, { method: 'DELETE', headers: headers(ids[5]!) })).status).toBe(200);
    expect((await send(url, { body: initialize })).status).toBe(200);
    expect(log).toEqual([]);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    for (const [i, id] of ids.entries()) expect((await send(url, { headers: headers(id), body: ping })).status, `session ${i}`).toBe(i === 5 ? 404 : 200);
  });
});

describe('a session ended by its client, let go', () => {
  it('is not closed again when the server stops, which closes only the sessions still open', async () => {
    const closed: boolean[] = [];
    const { url, served } = await start(() => {
      const server = createMcpServer({ operations: OPERATIONS, session: { failure: new GymctlError('unauthorized', 'no key') }, version: '0.0.0', log: () => {} });
      const close = server.server.close.bind(server.server);
      const at = closed.push(false) - 1;
      server.server.close = () => {
        closed[at] = true;
        return close();
      };
      return server;
    });
    const ids = [];
    for (let i = 0; i < 2; i++) ids.push((await send(url, { body: initialize })).headers['mcp-session-id'] as string);
    expect((await send(url, { method: 'DELETE', headers: { 'mcp-session-id': ids[0]!, 'mcp-protocol-version': '2025-11-25' } })).status).toBe(200);
    await served.close();
    expect(closed).toEqual([false, true]);
  });
});

describe('a request that fails', () => {
  it('is answered 500, logged with its reason', async () => {
    const { url, log } = await start(() => {
      throw new Error('no server today');
    });
    expectRefusal(await send(url, { body: initialize }), 500, -32000, 'Internal error');
    expect(log).toEqual(['a request failed: no server today']);
  });

  it('is logged with what was thrown, when that is not an Error', async () => {
    const { url, log } = await start(() => {
      throw 'no server, said plainly';
    });
    expectRefusal(await send(url, { body: initialize }), 500, -32000, 'Internal error');
    expect(log).toEqual(['a request failed: no server, said plainly']);
  });

  it('once its answer has begun, has its connection cut, and is logged', async () => {
    const { url, log } = await start();
    vi.spyOn(StreamableHTTPServerTransport.prototype, 'handleRequest').mockImplementation(async (_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: \n\n');
      throw new Error('gone wrong midway');
    });
    const cut = await new Promise<string>((resolve) => {
      const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, agent: false });
      request.on('response', (response) =>
        response
          .on('aborted', () => resolve('aborted'))
          .on('end', () => resolve('ended'))
          .resume(),
      );
      request.on('error', () => resolve('error'));
      request.end(initialize);
    });
    expect(['aborted', 'error']).toContain(cut);
    expect(log).toEqual(['a request failed: gone wrong midway']);
  });
});

describe('listening and stopping', () => {
  it('a port taken is a usage error naming it and what to choose instead', async () => {
    const { url } = await start();
    const taken = serveHttp({ listen: { host: '127.0.0.1', port: Number(url.port) }, token: TOKEN, log: () => {}, newServer: () => undefined as never });
    await expect(taken).rejects.toMatchObject({
      kind: 'usage',
      message: `cannot serve MCP over HTTP: port ${url.port} on 127.0.0.1 is taken; choose another with --http PORT (0 picks a free one)`,
    });
  });

  it('closes a request whose headers trickle in once its time is up (408), checked as often as that time when it is under a second', async () => {
    const servers = serversListening();
    const log: string[] = [];
    const served = await serveHttp({
      listen: { host: '127.0.0.1', port: 0 },
      token: TOKEN,
      log: (line) => log.push(line),
      newServer: () => undefined as never,
      requestTimeoutMs: 200,
    });
    running.push(served);
    const socket = net.connect(Number(new URL(served.url).port), '127.0.0.1');
    socket.on('error', () => {});
    await once(socket, 'connect');
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(log).toEqual([]);
    // Node checks every 30 s unless told: at 200 ms, every 200 ms; at the usual 10 s, every second.
    expect(servers[0]).toMatchObject({ headersTimeout: 200, requestTimeout: 200, connectionsCheckingInterval: 200 });
    running.push(await serveHttp({ listen: { host: '127.0.0.1', port: 0 }, token: TOKEN, log: () => {}, newServer: () => undefined as never }));
    expect(servers[1]).toMatchObject({ headersTimeout: REQUEST_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 });
  });

  it.each([
    ['EADDRNOTAVAIL', 'usage', 'cannot serve MCP over HTTP on [::1]:80 (EADDRNOTAVAIL): choose another --http port, or 127.0.0.1'],
    ['EACCES', 'usage', 'cannot serve MCP over HTTP on [::1]:80 (EACCES): choose another --http port, or 127.0.0.1'],
    ['EMFILE', 'internal', 'cannot serve MCP over HTTP on [::1]:80: EMFILE'],
    [undefined, 'internal', 'cannot serve MCP over HTTP on [::1]:80: Error: listen failed'],
  ])('a listen that fails with %s is said, naming where (kind %s)', async (code, kind, message) => {
    vi.spyOn(net.Server.prototype, 'listen').mockImplementation(function (this: net.Server) {
      process.nextTick(() => this.emit('error', Object.assign(new Error('listen failed'), code ? { code } : {})));
      return this;
    });
    const failing = serveHttp({ listen: { host: '::1', port: 80 }, token: TOKEN, log: () => {}, newServer: () => undefined as never });
    await expect(failing).rejects.toMatchObject({ kind, message });
  });

  it('on [::1], listens there and says its URL with the address in brackets', async () => {
    const served = await serveHttp({ listen: { host: '::1', port: 0 }, token: TOKEN, log: () => {}, newServer: () => undefined as never });
    running.push(served);
    expect(served.url).toMatch(/^http:\/\/\[::1\]:[0-9]+\/mcp$/);
    const url = new URL(served.url);
    const answer = await send(url, { headers: { host: `[::1]:${url.port}`, authorization: undefined }, body: initialize });
    expect(answer.status).toBe(401);
  });

  it('rejects `failed` when the server fails once listening', async () => {
    const servers = serversListening();
    const served = await serveHttp({ listen: { host: '127.0.0.1', port: 0 }, token: TOKEN, log: () => {}, newServer: () => undefined as never });
    running.push(served);
    servers[0]!.emit('error', new Error('out of sockets'));
    await expect(served.failed).rejects.toMatchObject({ kind: 'internal', message: 'the MCP HTTP server failed: out of sockets' });
  });

  it('its URL is /mcp on the host and the port it listens on', async () => {
    const { served } = await start();
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/mcp$/);
    expect(served.url).not.toBe('http://127.0.0.1:0/mcp');
  });

  it('cuts, when it stops, a request whose body is still coming', async () => {
    let opened: () => void;
    const reading = new Promise<void>((resolve) => (opened = resolve));
    const served = await serveHttp({
      listen: { host: '127.0.0.1', port: 0 },
      token: TOKEN,
      log: () => {},
      // Its session is opened before its body is read.
      newServer: () => {
        opened();
        return createMcpServer({ operations: OPERATIONS, session: { failure: new GymctlError('unauthorized', 'no key') }, version: '0.0.0', log: () => {} });
      },
      requestTimeoutMs: 600_000,
    });
    const socket = net.connect(Number(new URL(served.url).port), '127.0.0.1');
    socket.on('error', () => {});
    const ended = new Promise((resolve) => socket.on('close', resolve));
    // A bound on the wait: a connection left open is given up after 5 s, which the test tells apart from one the server cut.
    let givenUp = false;
    socket.setTimeout(5_000, () => {
      givenUp = true;
      socket.destroy();
    });
    await once(socket, 'connect');
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${initialize.length}\r\n\r\n${initialize.slice(0, 10)}`,
    );
    await reading;
    await served.close();
    await ended;
    expect(givenUp).toBe(false);
  });

  it('closes its sessions, refuses a request that arrives while it stops (503), and closes once however often asked', async () => {
    // Each session's server takes 300 ms to close: the stop is under way that long.
    const made: GymctlMcpServer[] = [];
    const { url, served } = await start(() => {
      const server = createMcpServer({ operations: OPERATIONS, session: { failure: new GymctlError('unauthorized', 'no key') }, version: '0.0.0', log: () => {} });
      const close = server.server.close.bind(server.server);
      server.server.close = () => new Promise((resolve) => setTimeout(resolve, 300)).then(close);
      made.push(server);
      return server;
    });
    expect((await send(url, { body: initialize })).status).toBe(200);
    // A connection open before the stop, its request's headers sent but for their end.
    const socket = net.connect(Number(url.port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n`);
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    const ended = once(socket, 'close');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = served.close();
    expect(served.close()).toBe(closing);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.end('\r\n');
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toContain('"message":"Service Unavailable: gymctl mcp is stopping"');
    await closing;
    expect(made[0]!.server.isConnected()).toBe(false);
    await expect(send(url, { body: initialize })).rejects.toThrow();
  });
});
