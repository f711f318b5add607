/**
 * `serveHttp`, in this process on a free port of 127.0.0.1, its tools calling a loopback API: a client that drops its
 * connection cancels its calls (their API requests aborted, their places freed), places free themselves (a request that
 * trickles in is closed, an initializing session holds none, the session used least recently with no call in flight makes
 * room), streams carry event ids and resume with Last-Event-ID, and Host, Origin and the token are checked whole.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { type McpHttpServer, serveHttp } from '../../src/commands/mcp/http.js';
import { eventStore } from '../../src/commands/mcp/http-events.js';
import { MAX_SESSIONS, RETRY_MS } from '../../src/commands/mcp/http-sessions.js';
import { Gate } from '../../src/mcp/gate.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_ANSWER_BYTES } from '../../src/mcp/limits.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { toolName } from '../../src/mcp/tools.js';
import { OPERATIONS } from '../../src/operations/index.js';

const KEY = 'mcp-http-serve-key-0123456789';
const TOKEN = 'the-token-of-this-test-0123456789';
const NEW = '2025-11-25';
const OLD = '2025-06-18';

/** The first operation that answers one record by id: its tool and argument, and its path at the API, as the declarations name them. */
const RECORD = OPERATIONS.find((operation) => operation.param && !operation.list)!;
const TOOL = toolName(RECORD);
const ARG = RECORD.param!.name;
const RECORD_PATH = new RegExp(`^${RECORD.path.replace(`{${ARG}}`, '([0-9]+)')}$`);

/** The API: record 1 and 2 never answer (the test sees each request arrive and close), 3 at once, 4 after 300 ms. */
let apiBase = '';
const silentAsked: string[] = [];
const asked: string[] = [];
const silentClosed: string[] = [];
const api = http.createServer((req, res) => {
  const id = RECORD_PATH.exec(req.url ?? '')?.[1];
  asked.push(id ?? '');
  const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id: Number(id), name: `Record ${id}` } }));
  if (id === '1' || id === '2') {
    silentAsked.push(id);
    req.socket.once('close', () => silentClosed.push(id));
  } else if (id === '3') answer();
  else if (id === '4') setTimeout(answer, 300);
  else res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Resource not found' }));
});

beforeAll(async () => {
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(async () => {
  api.closeAllConnections();
  await new Promise((resolve) => api.close(resolve));
});

const running: Array<{ served: McpHttpServer; close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((one) => one.close()));
  silentAsked.length = 0;
  silentClosed.length = 0;
  asked.length = 0;
});

/** serveHttp with gymctl's tools, `concurrency` API requests at once across its sessions. */
async function start(options: { concurrency?: number; requestTimeoutMs?: number; resumeGraceMs?: number } = {}) {
  const client = createClient({ baseUrl: apiBase, apiKey: KEY, retries: 0 });
  const log: string[] = [];
  const limits = { concurrency: options.concurrency ?? 8, callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS, maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES };
  const gate = new Gate(limits.concurrency);
  const served = await serveHttp({
    listen: { host: '127.0.0.1', port: 0 },
    token: TOKEN,
    log: (line) => log.push(line),
    newServer: () => createMcpServer({ operations: OPERATIONS, session: { client, apiKey: KEY }, version: '0.0.0', log: (line) => log.push(line), limits, gate }),
    ...options,
  });
  const one = {
    served,
    log,
    url: new URL(served.url),
    async close() {
      await served.close();
      await client.close();
    },
  };
  running.push(one);
  return one;
}

/** How long a request may wait without a byte of its answer before it fails (a bound on a wait, far beyond any answer here). */
const NO_ANSWER_MS = 10_000;

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  request: http.ClientRequest;
  response: http.IncomingMessage;
}

/**
 * One request as given (Host, Origin and all); resolves once `until` holds of the body read so far, or at its end. The
 * request is left open: the test destroys it, or it ends with its answer.
 */
function send(url: URL, options: { method?: string; headers?: Record<string, string | undefined>; body?: unknown; until?: (body: string) => boolean } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const headers = Object.fromEntries(
      Object.entries({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...options.headers }).filter(
        ([, value]) => value !== undefined,
      ),
    ) as Record<string, string>;
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: options.method ?? 'POST', headers, agent: false }, (response) => {
      let body = '';
      const done = () => {
        request.setTimeout(0);
        resolve({ status: response.statusCode!, headers: response.headers, body, request, response });
      };
      if (options.until?.(body)) done();
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
        if (options.until?.(body)) done();
      });
      response.on('end', done);
      response.on('error', () => done());
    });
    request.on('error', reject);
    // A server that stops answering fails the test at once, rather than leaving it to wait for nothing.
    request.setTimeout(NO_ANSWER_MS, () => request.destroy(new Error(`nothing came in ${NO_ANSWER_MS} ms`)));
    if (options.body === undefined) request.end();
    else request.end(typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
  });
}

const initialize = (version: string) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const callRecord = (id: number, recordId: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: TOOL, arguments: { [ARG]: recordId } } });

/** A session opened by raw requests, at protocol `version`: its id, and the headers every later request of it sends. */
async function rawSession(url: URL, version = NEW) {
  const opened = await send(url, { body: initialize(version) });
  expect(opened.status).toBe(200);
  const headers = { 'mcp-session-id': opened.headers['mcp-session-id'] as string, 'mcp-protocol-version': version };
  expect((await send(url, { headers, body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status).toBe(202);
  return headers;
}

/** The SSE events of a body: each one's fields. */
const eventsOf = (body: string) =>
  body
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()])));

async function sdkClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'gymctl-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a client that drops its connection', () => {
  it.each([
    ['one that can resume (2025-11-25), once its grace to come back is over', NEW, 50],
    ['one that cannot (2025-06-18), at once, however long the grace', OLD, 600_000],
  ])('cancels its calls, %s: their API requests are aborted, and a call of another session gets their place', async (_, version, resumeGraceMs) => {
    const { url, log } = await start({ concurrency: 2, resumeGraceMs });
    const headers = await rawSession(url, version);
    // Two calls to the silent API hold both places; their client drops once the API has both.
    const calls = await Promise.all([1, 2].map((id) => send(url, { headers, body: callRecord(id, String(id)), until: () => true })));
    await expect.poll(() => silentAsked.length).toBe(2);
    for (const call of calls) call.request.destroy();
    const other = await sdkClient(url);
    try {
      const answer = await other.callTool({ name: TOOL, arguments: { [ARG]: '3' } });
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ data: { id: '3' } });
      // Cancelled, not ended by the call's time limit: the API saw both requests closed, and each call ended aborted.
      await expect.poll(() => [...silentClosed].sort()).toEqual(['1', '2']);
      await expect
        .poll(() => log.filter((line) => line.startsWith(`${TOOL}: `)).sort())
        .toEqual([1, 2].map((id) => expect.stringMatching(new RegExp(`^${TOOL}: .*\\b${id}\\b.*aborted`))));
    } finally {
      await other.close();
    }
  });

  it('cancels the calls of a stream it resumed once the resumed stream drops too', async () => {
    const { url, log } = await start({ resumeGraceMs: 100 });
    const headers = await rawSession(url);
    const call = await send(url, { headers, body: callRecord(1, '1'), until: (body) => body.includes('\n\n') });
    await expect.poll(() => silentAsked).toEqual(['1']);
    call.request.destroy();
    const [priming] = eventsOf(call.body);
    const resumed = await send(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': priming!.id }, until: () => true });
    expect(resumed.status).toBe(200);
    resumed.request.destroy();
    await expect.poll(() => silentClosed).toEqual(['1']);
    await expect.poll(() => log).toContainEqual(expect.stringMatching(new RegExp(`^${TOOL}: .*\\b1\\b.*aborted`)));
  });

  it('cancels the call of a batch not yet answered, though the other was', async () => {
    const { url, log } = await start();
    const headers = await rawSession(url, OLD);
    const batch = await send(url, { headers, body: [callRecord(3, '3'), callRecord(1, '1')], until: (body) => body.includes('"id":3') });
    await expect.poll(() => silentAsked).toEqual(['1']);
    batch.request.destroy();
    await expect.poll(() => silentClosed).toEqual(['1']);
    await expect.poll(() => log).toContainEqual(expect.stringMatching(new RegExp(`^${TOOL}: .*\\b1\\b.*aborted`)));
  });

  it('cancels only the calls of the request that dropped, not a later call that reuses the id of one of its answered calls', async () => {
    const { url, log } = await start();
    const headers = await rawSession(url, OLD);
    // The batch's call 5 is answered, its call 6 (the silent record 1) is not; then call 5 again, to record 4, which answers after 300 ms.
    const batch = await send(url, { headers, body: [callRecord(5, '3'), callRecord(6, '1')], until: (body) => body.includes('"id":5') });
    const again = send(url, { headers, body: callRecord(5, '4') });
    await expect.poll(() => [...asked].sort()).toEqual(['1', '3', '4']);
    batch.request.destroy();
    await expect.poll(() => log).toContainEqual(expect.stringMatching(new RegExp(`^${TOOL}: .*\\b1\\b.*aborted`)));
    expect(eventsOf((await again).body).map((event) => JSON.parse(event.data!))).toMatchObject([{ id: 5, result: { structuredContent: { data: { id: '4' } } } }]);
  });

  it("cancels a dropped request's calls after its grace, though it logged on the listening stream and that stream was resumed", async () => {
    const { url, log } = await start({ resumeGraceMs: 100 });
    const headers = await rawSession(url);
    const listen = { ...headers, accept: 'text/event-stream' };
    // The listening stream (GET) receives the failures logged: first of a call answered, then of a batch that holds the silent record 1.
    const listening = await send(url, { method: 'GET', headers: listen, until: () => true });
    let logged = '';
    listening.response.on('data', (chunk: string) => {
      logged += chunk;
    });
    const notices = () => eventsOf(logged).filter((event) => event.data?.includes('notifications/message'));
    expect((await send(url, { headers, body: callRecord(1, '999') })).status).toBe(200);
    await expect.poll(() => notices().length).toBe(1);
    const batch = await send(url, { headers, body: [callRecord(2, '999'), callRecord(3, '1')], until: (body) => body.includes('"id":2') });
    await expect.poll(() => notices().length).toBe(2);
    await expect.poll(() => silentAsked).toEqual(['1']);
    batch.request.destroy();
    listening.request.destroy();
    await sleep(50);
    // The listening stream resumed, and left open: the batch's call is cancelled all the same once its grace is over.
    const resumed = await send(url, { method: 'GET', headers: { ...listen, 'last-event-id': notices()[0]!.id! }, until: () => true });
    expect(resumed.status).toBe(200);
    await expect.poll(() => silentClosed).toEqual(['1']);
    // Cancelled, not ended by the API request's own time limit.
    await expect.poll(() => log).toContainEqual(expect.stringMatching(new RegExp(`^${TOOL}: .*\\b1\\b.*aborted`)));
    resumed.request.destroy();
  });

  it('does not cancel a call whose answer it already has, nor one of a stream it resumed', async () => {
    const { url } = await start({ resumeGraceMs: 200 });
    const headers = await rawSession(url);
    const done = await send(url, { headers, body: callRecord(5, '3') });
    expect(eventsOf(done.body).at(-1)).toMatchObject({ event: 'message', data: expect.stringContaining('"id":5') });
    // Record 4 answers after 300 ms; the stream drops before, and is resumed within the grace: the answer comes on the new stream.
    const call = await send(url, { headers, body: callRecord(6, '4'), until: (body) => body.includes('\n\n') });
    const [priming] = eventsOf(call.body);
    call.request.destroy();
    await sleep(50);
    const resumed = await send(url, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': priming!.id },
      until: (body) => body.includes('"id":6'),
    });
    resumed.request.destroy();
    expect(resumed.status).toBe(200);
    const [answer] = eventsOf(resumed.body);
    expect(JSON.parse(answer!.data!)).toMatchObject({ id: 6, result: { structuredContent: { data: { id: '4' } } } });
  });
});

describe('resumable streams', () => {
  it('open with a priming event with an id and a retry, give every event an id, and replay a missed answer after Last-Event-ID', async () => {
    // Within the grace gymctl gives by default.
    const { url } = await start();
    const headers = await rawSession(url);
    const call = await send(url, { headers, body: callRecord(7, '4'), until: (body) => body.includes('\n\n') });
    expect(call.headers['content-type']).toBe('text/event-stream');
    const [priming] = eventsOf(call.body);
    expect(priming).toEqual({ id: expect.stringMatching(/^[0-9]+$/), retry: String(RETRY_MS), data: '' });
    call.request.destroy();
    // The answer comes while no stream is open (record 4 takes 300 ms); the client comes back for it.
    await sleep(500);
    const resumed = await send(url, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': priming!.id },
      until: (body) => body.includes('"id":7'),
    });
    resumed.request.destroy();
    const events = eventsOf(resumed.body);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'message', id: expect.stringMatching(/^[0-9]+$/) });
    expect(Number(events[0]!.id)).toBeGreaterThan(Number(priming!.id));
    expect(JSON.parse(events[0]!.data!)).toMatchObject({ id: 7, result: { structuredContent: { data: { id: '4', name: 'Record 4' } } } });
  });

  it('are resumable by the version the session agreed on, whatever older version a request names', async () => {
    const { url } = await start();
    const headers = await rawSession(url);
    // After an answer (which agrees on nothing), with the header's name in capitals and another header whose value is that name.
    expect((await send(url, { headers, body: { jsonrpc: '2.0', id: 2, method: 'ping' } })).status).toBe(200);
    const older = { 'mcp-session-id': headers['mcp-session-id'], 'x-note': 'mcp-protocol-version', 'MCP-Protocol-Version': '2025-03-26' };
    const call = await send(url, { headers: older, body: callRecord(8, '3') });
    expect(eventsOf(call.body)[0]).toEqual({ id: expect.stringMatching(/^[0-9]+$/), retry: String(RETRY_MS), data: '' });
    // A session that agreed on an older one gets no priming event, which its client could not read.
    const old = await rawSession(url, OLD);
    const events = eventsOf((await send(url, { headers: old, body: callRecord(9, '3') })).body);
    expect(events).toEqual([{ event: 'message', id: expect.stringMatching(/^[0-9]+$/), data: expect.stringContaining('"id":9') }]);
  });

  it('refuses a Last-Event-ID it does not hold with 400', async () => {
    const { url } = await start();
    const headers = await rawSession(url);
    const answer = await send(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'last-event-id': '999' } });
    expect(answer.status).toBe(400);
  });

  it('keep the last 100 events of a session, at most 1 MB of them, the newest always', async () => {
    const message = (size: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x'.repeat(size) } });
    const store = eventStore(3, 1000);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await store.storeEvent('s', message(10)));
    expect(await store.getStreamIdForEventId!(ids[0]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId!(ids[1]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId!(ids[2]!)).toBe('s');
    const replayed: string[] = [];
    await store.storeEvent('other', message(10));
    expect(await store.replayEventsAfter(ids[3]!, { send: async (id) => void replayed.push(id) })).toBe('s');
    expect(replayed).toEqual([ids[4]]);
    // Over the bytes: the older ones go, the newest stays however large.
    const big = await store.storeEvent('s', message(5000));
    expect(await store.getStreamIdForEventId!(ids[4]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId!(big)).toBe('s');
  });

  it("replay a stream's messages after the id given, never another stream's, nor a priming event", async () => {
    const message = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x' } };
    const priming = {} as typeof message;
    const store = eventStore();
    const first = await store.storeEvent('s', priming);
    const ids = [await store.storeEvent('s', message), await store.storeEvent('t', message), await store.storeEvent('s', priming), await store.storeEvent('s', message)];
    const replayed: unknown[] = [];
    expect(await store.replayEventsAfter(first, { send: async (id, sent) => void replayed.push([id, sent]) })).toBe('s');
    expect(replayed).toEqual([
      [ids[0], message],
      [ids[3], message],
    ]);
  });

  it('count the bytes of the events they keep: events that fit the bytes exactly are all kept, and a large one dropped frees its bytes', async () => {
    // Each of these is 81 bytes as JSON.
    const small = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x'.repeat(10) } };
    const store = eventStore(100, 3 * 81);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await store.storeEvent('s', small));
    expect(await store.getStreamIdForEventId!(ids[0]!)).toBe('s');
    // One over the bytes: the rest go, the large one stays alone; then small ones fit again beside it until the bound.
    const big = await store.storeEvent('s', { ...small, params: { data: 'x'.repeat(1000) } });
    expect(await store.getStreamIdForEventId!(ids[2]!)).toBeUndefined();
    const after = [await store.storeEvent('s', small), await store.storeEvent('s', small)];
    expect(await store.getStreamIdForEventId!(big)).toBeUndefined();
    expect(await store.getStreamIdForEventId!(after[0]!)).toBe('s');
    expect(await store.getStreamIdForEventId!(after[1]!)).toBe('s');
  });
});

describe('places that free themselves', () => {
  it(`${MAX_SESSIONS} initialize requests that trickle in hold no place, and are closed when the time runs out`, async () => {
    const { url } = await start({ requestTimeoutMs: 3_000 });
    const body = JSON.stringify(initialize(NEW));
    const closed: Array<number | undefined> = [];
    const trickles = Array.from({ length: MAX_SESSIONS }, () => {
      const request = http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, 'content-length': String(body.length) },
      });
      let status: number | undefined;
      request.on('error', () => {});
      request.on('close', () => closed.push(status));
      request.on('response', (response) => {
        status = response.statusCode;
        response.resume();
      });
      request.write(body[0]);
      return request;
    });
    try {
      // The 33rd client gets a place while the others still trickle: none of them has been closed yet.
      const client = await sdkClient(url);
      expect((await client.callTool({ name: TOOL, arguments: { [ARG]: '3' } })).isError).toBeFalsy();
      await client.close();
      expect(closed).toEqual([]);
      // Each trickling request is closed once its time is up, with 408.
      await expect.poll(() => closed.length, { timeout: 10_000 }).toBe(MAX_SESSIONS);
      expect(closed).toEqual(Array(MAX_SESSIONS).fill(408));
    } finally {
      for (const request of trickles) request.destroy();
    }
  });

  it('counts a call answered, with a result or with an error, as no longer in flight, and a notification as none', async () => {
    // However long a dropped request's grace: a notification (notifications/initialized, here) is no call, and is not waited for.
    const { url } = await start({ concurrency: 64, resumeGraceMs: 600_000 });
    const sessions = [];
    for (let i = 0; i < MAX_SESSIONS; i++) sessions.push(await rawSession(url));
    // The tenth is answered with a result, then the eighth with an error (a method no server has); every other has a call in flight.
    expect((await send(url, { headers: sessions[9]!, body: callRecord(9, '3') })).body).toContain('"result"');
    expect((await send(url, { headers: sessions[7]!, body: { jsonrpc: '2.0', id: 7, method: 'no/such/method' } })).body).toContain('"error"');
    const calls = await Promise.all(sessions.map((headers, i) => (i === 7 || i === 9 ? undefined : send(url, { headers, body: callRecord(1, '1'), until: () => true }))));
    const ping = (headers: Record<string, string>) => send(url, { headers, body: { jsonrpc: '2.0', id: 3, method: 'ping' } });
    // Room is made twice: by closing the tenth (used less recently), then the eighth.
    expect((await send(url, { body: initialize(NEW) })).status).toBe(200);
    expect((await ping(sessions[9]!)).status).toBe(404);
    expect((await send(url, { body: initialize(NEW) })).status).toBe(200);
    expect((await ping(sessions[7]!)).status).toBe(404);
    for (const call of calls) call?.request.destroy();
  });

  it('makes room by closing the session used least recently with no call in flight; with a call in flight in every one, 503', async () => {
    const { url, log } = await start({ concurrency: 64 });
    const sessions = [];
    for (let i = 0; i < MAX_SESSIONS; i++) sessions.push(await rawSession(url));
    // Each holds a GET stream, as a listening client does: that alone is no call in flight.
    const streams = await Promise.all(sessions.map((headers) => send(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, until: () => true })));
    // Every session but the first, the third and the fifth has a call in flight (the silent record 1).
    const calls = await Promise.all(
      sessions.map((headers, i) => (i === 0 || i === 2 || i === 4 ? undefined : send(url, { headers, body: callRecord(1, '1'), until: () => true }))),
    );
    // The third's call was answered: it has none in flight. The first and the fifth were used after it: the third goes,
    // though opened neither first nor last of them.
    expect(eventsOf((await send(url, { headers: sessions[2]!, body: callRecord(9, '3') })).body).at(-1)).toMatchObject({ data: expect.stringContaining('"id":9') });
    for (const i of [0, 4]) expect((await send(url, { headers: sessions[i]!, body: { jsonrpc: '2.0', id: 2, method: 'ping' } })).status).toBe(200);
    const opened = await send(url, { body: initialize(NEW) });
    expect(opened.status).toBe(200);
    expect(log).toContain(`${MAX_SESSIONS} sessions are open: the one used least recently, with no call in flight, is closed to make room for a new one`);
    const ping = (headers: Record<string, string>) => send(url, { headers, body: { jsonrpc: '2.0', id: 3, method: 'ping' } });
    expect((await ping(sessions[2]!)).status).toBe(404);
    expect((await ping(sessions[0]!)).status).toBe(200);
    expect((await ping(sessions[4]!)).status).toBe(200);
    // A call in flight in the first, the fifth and the new one too: every session has one, and the next client gets 503.
    const newest = { 'mcp-session-id': opened.headers['mcp-session-id'] as string, 'mcp-protocol-version': NEW };
    await send(url, { headers: newest, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    const busy = [
      ...calls,
      ...(await Promise.all([sessions[0]!, sessions[4]!, newest].map((headers) => send(url, { headers, body: callRecord(1, '2'), until: () => true })))),
    ].filter((call) => call !== undefined);
    expect(busy).toHaveLength(MAX_SESSIONS);
    const unavailable = await send(url, { body: initialize(NEW) });
    expect(unavailable.status).toBe(503);
    expect(JSON.parse(unavailable.body).error.message).toMatch(/32 MCP sessions are open and in use/);
    // A client drops its call: its session has none in flight once the call is cancelled, and makes room.
    busy[5]!.request.destroy();
    await expect.poll(async () => (await send(url, { body: initialize(NEW) })).status, { timeout: 5_000 }).toBe(200);
    expect((await ping(sessions[8]!)).status).toBe(404);
    for (const one of [...streams, ...busy]) one.request.destroy();
  });
});

describe('Host, Origin and the token, whole', () => {
  it.each([
    [{ host: 'evil.localhost' }, 403],
    [{ host: 'x127.0.0.1' }, 403],
    [{ host: 'localhost', origin: 'http://evil.example/http://localhost' }, 403],
    [{ host: 'localhost', origin: 'xhttp://localhost' }, 403],
    [{ authorization: `NotBearer ${TOKEN}` }, 401],
    [{ authorization: `Basic Bearer ${TOKEN}` }, 401],
    [{ authorization: `Bearer ${TOKEN}x` }, 401],
    [{ host: 'localhost:1', origin: 'http://127.0.0.1:2' }, 200],
  ])('%j: %i', async (headers, status) => {
    const { url } = await start();
    expect((await send(url, { headers, body: initialize(NEW) })).status).toBe(status);
  });
});

describe('params that are not an object, over HTTP as on stdio', () => {
  it("a string or an array gets -32602 with the request's own id; a body that is not JSON, -32700", async () => {
    const { url } = await start();
    const headers = await rawSession(url);
    for (const params of ['x', [1]]) {
      const answer = await send(url, { headers, body: { jsonrpc: '2.0', id: 8, method: 'tools/call', params }, until: (body) => body.includes('"id":8') });
      answer.request.destroy();
      const [event] = eventsOf(answer.body).filter((one) => one.data);
      expect(JSON.parse(event!.data!), JSON.stringify(params)).toMatchObject({ id: 8, error: { code: -32602, message: expect.stringContaining('params must be an object') } });
    }
    const garbled = await send(url, { headers, body: '{"jsonrpc":' });
    expect(garbled.status).toBe(400);
    expect(JSON.parse(garbled.body)).toMatchObject({ id: null, error: { code: -32700 } });
  });
});
