/**
 * `gymctl mcp --http`, the built binary on loopback: the SDK's own client
 * over Streamable HTTP with the bearer token (tools listed and called, two
 * sessions at once), and raw requests for what a client library would not
 * send: no token or a wrong one (401), a foreign Host or Origin (403, before
 * the token), a body too large (413, and serving goes on), the bound on
 * sessions (the one used least recently with no call in flight closed); --http values that name
 * another host (exit 2, nothing started); the token printed once, or never
 * when it is GYMCTL_MCP_TOKEN's; SIGTERM and Ctrl-C.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, CallToolResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolName } from '../../src/mcp/tools.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { BIN, cleanEnv, runCli, tempConfigDir } from '../helpers/cli.js';
import { declaredTools } from '../helpers/mcp.js';
import { toolError } from '../helpers/mcp-stdio.js';
import { httpServer } from '../helpers/servers.js';
import { waitFor } from '../helpers/wait.js';

const config = tempConfigDir();
afterAll(() => config.remove());

const TOKEN = 'a-token-of-the-users-own-0123456789';
/** The tools called, as the declarations name them: the first that answers one record by id (its argument, its path at the API), and the one that takes no id. */
const RECORD = OPERATIONS.find((operation) => operation.param && !operation.list)!;
const TOOL = toolName(RECORD);
const ARG = RECORD.param!.name;
const RECORD_PATH = new RegExp(`^${RECORD.path.replace(`{${ARG}}`, '([0-9]+)')}$`);
const NO_ID_TOOL = toolName(OPERATIONS.find((operation) => !operation.param)!);
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Served {
  child: ChildProcess;
  url: URL;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `gymctl mcp --sandbox --http 0` (and `args`), once it has said where it listens and what token it wants. */
async function serve(args: string[] = ['--sandbox'], env: Record<string, string | undefined> = { GYMCTL_MCP_TOKEN: TOKEN }): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '0', ...args], { env: cleanEnv(config.dir, env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  let ended = false;
  void exited.then(() => (ended = true));
  // The line about the token comes last, after the one with the URL.
  await waitFor('the lines with the URL and the token', () => ended || /every request needs the header .*\n/.test(stderr));
  const found = /http:\/\/127\.0\.0\.1:[0-9]+\/mcp/.exec(stderr);
  if (!found) throw new Error(`gymctl mcp --http ended before it listened:\n${stderr}`);
  return { child, url: new URL(found[0]), stderr: () => stderr, exited };
}

/** The SDK's client, connected with `token`. */
async function connect(url: URL, token = TOKEN): Promise<Client> {
  const client = new Client({ name: 'gymctl-e2e-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request as given, Host and Origin included (which fetch would not let a test choose), and its whole answer. */
function raw(url: URL, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, method: options.method ?? 'POST', path: options.path ?? url.pathname, headers: { ...POST_HEADERS, ...options.headers }, agent: false },
      (answer) => {
        let body = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body }));
        answer.on('error', reject);
      },
    );
    // A server that answers before reading the whole body may close while it is still being sent.
    request.on('error', reject);
    request.end(options.body ?? JSON.stringify(INITIALIZE));
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jsonRpcError = (answer: RawAnswer) => (JSON.parse(answer.body) as { jsonrpc: string; error: { code: number; message: string } }).error;

describe('gymctl mcp --http with the SDK client', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve();
  });
  afterAll(() => void served.child.kill('SIGKILL'));

  it("initializes, lists the tools, calls a record's tool for data, and answers a not-found id with an isError result", async () => {
    const client = await connect(served.url);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'gymctl' });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(declaredTools().map((tool) => tool.name));
      const academy = (await client.callTool({ name: TOOL, arguments: { [ARG]: '1' } })) as CallToolResult;
      expect(academy.isError).toBeFalsy();
      expect(academy.structuredContent).toMatchObject({ data: { id: '1', name: expect.any(String) } });
      const logged: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logged.push(notification.params));
      await client.setLoggingLevel('warning');
      expect(toolError(await client.callTool({ name: TOOL, arguments: { [ARG]: '999' } }))).toMatchObject({ kind: 'not_found' });
      // The failure reaches the client's log too, over HTTP as over stdio.
      await expect.poll(() => logged).toContainEqual({ level: 'warning', logger: 'gymctl', data: expect.stringMatching(new RegExp(`^${TOOL}: .*\\b999: Resource not found$`)) });
      // Params of the wrong form: -32602 in one line, over HTTP as over stdio.
      await expect(client.request({ method: 'tools/call', params: { name: TOOL, arguments: 5 as never } }, CallToolResultSchema)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(/Invalid params for tools\/call: params\.arguments: expected record, received number$/),
      });
    } finally {
      await client.close();
    }
  });

  it('serves two sessions at once, each with its own session id', async () => {
    const [one, two] = await Promise.all([connect(served.url), connect(served.url)]);
    try {
      const ids = [one, two].map((client) => (client.transport as StreamableHTTPClientTransport).sessionId);
      expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(ids[1]).not.toBe(ids[0]);
      const [a, b] = (await Promise.all([one.callTool({ name: TOOL, arguments: { [ARG]: '1' } }), two.callTool({ name: TOOL, arguments: { [ARG]: '2' } })])) as CallToolResult[];
      expect([a!.structuredContent, b!.structuredContent]).toMatchObject([{ data: { id: '1' } }, { data: { id: '2' } }]);
      // One session ending (DELETE) leaves the other serving.
      await (one.transport as StreamableHTTPClientTransport).terminateSession();
      expect((await two.callTool({ name: NO_ID_TOOL, arguments: {} })).isError).toBeFalsy();
      const gone = await raw(served.url, { headers: { ...bearer(TOKEN), 'mcp-session-id': ids[0]! }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
      expect(gone.status).toBe(404);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('refuses a request without the token, or with a wrong one, with 401, WWW-Authenticate: Bearer and a JSON-RPC error', async () => {
    for (const headers of [{}, bearer('wrong-token-0123456789abcdef'), bearer(`${TOKEN}x`), { authorization: `Basic ${TOKEN}` }]) {
      const answer = await raw(served.url, { headers });
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer\b/);
      expect(jsonRpcError(answer)).toMatchObject({ code: -32000, message: expect.stringMatching(/^Unauthorized/) });
      expect(answer.body).not.toContain(TOKEN);
    }
    await expect(connect(served.url, 'wrong-token-0123456789abcdef')).rejects.toThrow();
    // The same request with the token opens a session.
    expect((await raw(served.url, { headers: bearer(TOKEN) })).status).toBe(200);
  });

  it('refuses a foreign Origin or Host with 403 before it looks at the token, and takes loopback names with any port', async () => {
    for (const headers of [
      { origin: 'http://evil.example', ...bearer(TOKEN) },
      { origin: 'null', ...bearer(TOKEN) },
      { origin: 'http://127.0.0.1.evil.example:8808' },
      { host: 'evil.example', ...bearer(TOKEN) },
      { host: `evil.example:${served.url.port}` },
      { host: `192.168.1.5:${served.url.port}`, ...bearer(TOKEN) },
    ] as Record<string, string>[]) {
      const answer = await raw(served.url, { headers });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(jsonRpcError(answer).message).toMatch(/^Forbidden: its (Host|Origin) header/);
    }
    for (const headers of [{ host: 'localhost:1234', origin: 'http://localhost:1234' }, { host: '[::1]', origin: 'https://[::1]:9' }, { host: '127.0.0.1' }] as Record<
      string,
      string
    >[]) {
      expect((await raw(served.url, { headers: { ...headers, ...bearer(TOKEN) } })).status, JSON.stringify(headers)).toBe(200);
      expect((await raw(served.url, { headers })).status, JSON.stringify(headers)).toBe(401);
    }
  });

  it('serves /mcp alone, and wants a session for anything but an initialize request', async () => {
    expect((await raw(served.url, { path: '/', headers: bearer(TOKEN) })).status).toBe(404);
    expect((await raw(served.url, { path: '/mcp/x', headers: bearer(TOKEN) })).status).toBe(404);
    expect((await raw(served.url, { method: 'GET', headers: { ...bearer(TOKEN), accept: 'text/event-stream' } })).status).toBe(400);
    expect((await raw(served.url, { method: 'PUT', headers: bearer(TOKEN) })).status).toBe(405);
    const notInitialize = await raw(served.url, { headers: bearer(TOKEN), body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    expect(notInitialize.status).toBe(400);
    expect((await raw(served.url, { headers: { ...bearer(TOKEN), 'mcp-session-id': 'no-such-session' } })).status).toBe(404);
  });

  it('answers a body over 1 MiB with 413, and keeps serving', async () => {
    const big = Buffer.from(JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(2 * 1024 * 1024) } }));
    const answer = await raw(served.url, { headers: bearer(TOKEN), body: big });
    expect(answer.status).toBe(413);
    expect(jsonRpcError(answer).message).toMatch(/Payload Too Large/);
    const client = await connect(served.url);
    expect((await client.callTool({ name: TOOL, arguments: { [ARG]: '1' } })).isError).toBeFalsy();
    await client.close();
  });

  it("never writes GYMCTL_MCP_TOKEN's token or the API key on stderr, nor the key in an answer", async () => {
    const client = await connect(served.url);
    const whoami = JSON.stringify(await client.callTool({ name: NO_ID_TOOL, arguments: {} }));
    await client.close();
    expect(whoami).toContain('academyIds');
    expect(whoami).not.toContain(DEMO_KEY);
    expect(served.stderr()).toMatch(/Authorization: Bearer <the token in GYMCTL_MCP_TOKEN>/);
    // Written before the refusal was sent, but read from another pipe than the answer.
    await expect.poll(() => served.stderr()).toMatch(/refused a request with a wrong token/);
    expect(served.stderr()).not.toContain(TOKEN);
    expect(served.stderr()).not.toContain(DEMO_KEY);
  });
});

describe('gymctl mcp --http, its token, sessions and end', () => {
  it('makes a token when GYMCTL_MCP_TOKEN is not set, prints it once on stderr, and takes it', async () => {
    const served = await serve(['--sandbox'], {});
    const tokens = served.stderr().match(/Bearer ([A-Za-z0-9_-]{43})\b/g) ?? [];
    expect(tokens).toHaveLength(1);
    const token = tokens[0]!.slice('Bearer '.length);
    const client = await connect(served.url, token);
    expect((await client.listTools()).tools).toHaveLength(declaredTools().length);
    await client.close();
    expect((await raw(served.url)).status).toBe(401);
    expect(served.stderr().split(token)).toHaveLength(2);
  });

  it('refuses a GYMCTL_MCP_TOKEN that is too short or holds a space with a usage error, without printing it', async () => {
    for (const token of ['short-token', 'a token with spaces in it']) {
      const result = await runCli(['mcp', '--sandbox', '--http', '0'], config.dir, { env: { GYMCTL_MCP_TOKEN: token } });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/GYMCTL_MCP_TOKEN must be 16 to 512 visible ASCII characters/);
      expect(result.stderr).not.toContain(token);
      expect(result.stderr).not.toMatch(/serving|http:\/\//);
    }
  });

  it.each([['0.0.0.0:0'], ['192.168.1.5:1'], ['example.com:8808'], ['[::]:0'], ['0.0.0.0']])(
    '--http %s names another host than loopback: exit 2, and nothing started',
    async (value) => {
      const result = await runCli(['mcp', '--http', value], config.dir, { env: { GYMCTL_MCP_TOKEN: TOKEN } });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--http serves on loopback only \(127\.0\.0\.1, localhost or \[::1\]\)/);
      expect(result.stderr).not.toMatch(/serving|listening|http:\/\//);
    },
  );

  it('says when the port is taken, with exit 2', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const result = await runCli(['mcp', '--sandbox', '--http', `localhost:${port}`], config.dir, { env: { GYMCTL_MCP_TOKEN: TOKEN } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is taken; choose another with --http PORT (0 picks a free one)`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('serves at most 32 sessions: one with a stream open but no call in flight, the one used least recently, makes room for a new one', async () => {
    const served = await serve();
    const initialize = () => raw(served.url, { headers: bearer(TOKEN) });
    const ids: string[] = [];
    for (let i = 0; i < 32; i++) ids.push((await initialize()).headers['mcp-session-id'] as string);
    expect(new Set(ids).size).toBe(32);
    // Each session listening: a GET stream open, as a client that listens for notifications holds one. That is no call in flight.
    const streams = await Promise.all(
      ids.map(
        (id) =>
          new Promise<http.ClientRequest>((resolve, reject) => {
            const request = http.request(
              {
                host: '127.0.0.1',
                port: served.url.port,
                path: '/mcp',
                method: 'GET',
                headers: { ...bearer(TOKEN), accept: 'text/event-stream', 'mcp-session-id': id },
                agent: false,
              },
              (answer) => (answer.statusCode === 200 ? resolve(request) : reject(new Error(`GET ${answer.statusCode}`))),
            );
            request.on('error', () => {});
            request.end();
          }),
      ),
    );
    const ping = (id: string) => raw(served.url, { headers: { ...bearer(TOKEN), 'mcp-session-id': id }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) });
    // Every session but the second is used again: the second is now the one used least recently, and goes.
    for (const id of ids.filter((_, i) => i !== 1)) expect((await ping(id)).status).toBe(200);
    expect((await initialize()).status).toBe(200);
    expect((await ping(ids[1]!)).status).toBe(404);
    expect((await ping(ids[0]!)).status).toBe(200);
    expect(served.stderr()).toMatch(/32 sessions are open: the one used least recently, with no call in flight, is closed to make room for a new one/);
    for (const stream of streams) stream.destroy();
    served.child.kill('SIGKILL');
  });

  it('a client that drops its calls frees their places: with --concurrency 2, two calls to a silent API dropped let a third through, once both were cancelled', async () => {
    // What the API saw: each silent request arriving and closing, and the third arriving.
    const seen: string[] = [];
    const api = await httpServer((request, response) => {
      const id = RECORD_PATH.exec(request.url ?? '')?.[1] ?? '';
      seen.push(`asked ${id}`);
      if (id === '3') response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id: 3, name: 'Record 3' } }));
      else request.socket.once('close', () => seen.push(`closed ${id}`));
    });
    const served = await serve(['--base-url', api, '--concurrency', '2'], { GYMCTL_MCP_TOKEN: TOKEN, GYMCTL_API_KEY: 'mcp-http-e2e-key-0123456789' });
    const other = await connect(served.url);
    const calls: http.ClientRequest[] = [];
    try {
      // A client of protocol 2025-11-25 (which may resume, and so has a 1 s grace) opens a session and calls twice, raw.
      const opened = await raw(served.url, { headers: bearer(TOKEN), body: JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-11-25' } }) });
      const session = { ...bearer(TOKEN), 'mcp-session-id': opened.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
      await raw(served.url, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      for (const id of ['1', '2']) {
        const body = JSON.stringify({ jsonrpc: '2.0', id: Number(id), method: 'tools/call', params: { name: TOOL, arguments: { [ARG]: id } } });
        const request = http.request({ host: '127.0.0.1', port: served.url.port, path: '/mcp', method: 'POST', headers: { ...POST_HEADERS, ...session }, agent: false });
        request.on('error', () => {});
        request.end(body);
        calls.push(request);
      }
      await waitFor('both silent requests at the API', () => seen.length === 2, 10_000);
      // Its sockets drop, without notifications/cancelled: as a client that dies.
      for (const request of calls) request.destroy();
      const answer = await other.callTool({ name: TOOL, arguments: { [ARG]: '3' } });
      expect(answer.structuredContent).toMatchObject({ data: { id: '3' } });
      // The API saw both silent requests closed, and each of their calls ended aborted (cancelled), not by the call's time limit.
      await expect.poll(() => seen.slice(2).sort()).toEqual(['asked 3', 'closed 1', 'closed 2']);
      for (const id of ['1', '2']) expect(served.stderr(), served.stderr()).toMatch(new RegExp(`${TOOL}: .*\\b${id}\\b.*aborted`));
    } finally {
      for (const request of calls) request.destroy();
      await other.close();
      served.child.kill('SIGKILL');
    }
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('stops on %s with exit %i, its sessions closed', async (signal, code) => {
    const served = await serve();
    const client = await connect(served.url);
    expect((await client.listTools()).tools).toHaveLength(declaredTools().length);
    served.child.kill(signal);
    expect((await served.exited).code).toBe(code);
    expect(served.stderr()).toMatch(/gymctl mcp: stopped\n$/);
    await client.close();
  });
});
