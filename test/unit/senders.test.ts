/**
 * The senders, each against a real server on loopback: node:http (what
 * users run), undici (for proxies) and fetch. Each keeps one contract
 * (AttemptControl): stopped at any time, it settles at once with the
 * stop's reason, before the answer or while its body is read.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viaNodeHttp, viaUndici } from '../../src/api/transport/senders.js';
import { viaFetch } from '../../src/api/transport/senders.web.js';
import type { AttemptControl, Exchange, Send } from '../../src/api/transport/exchange.js';

let server: http.Server;
let origin: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === '/hang') return; // never answers
    if (request.url === '/stall') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"data":'); // and no more
      return;
    }
    if (request.url === '/slow') {
      setTimeout(() => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":1}'), 50);
      return;
    }
    if (request.url === '/head') {
      // Raw headers: in this order, as spelled, Set-Cookie twice.
      response.writeHead(200, 'Fine Thanks', ['X-B', '1', 'Set-Cookie', 'a=1', 'x-a', '2', 'set-cookie', 'b=2']).end('{}');
      return;
    }
    response.writeHead(201, 'Made', { 'Content-Type': 'application/json', 'X-Correlation-Id': 'c-1' }).end(`{"path":${JSON.stringify(request.url)}}`);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** An AttemptControl a test stops by hand. */
function control() {
  let stopRequest: ((reason: Error) => void) | undefined;
  let stopped: Error | undefined;
  const handle: AttemptControl & { stop(reason: Error): void } = {
    onStop(stop) {
      if (stopped) stop(stopped);
      else stopRequest = stop;
    },
    stop(reason) {
      stopped = reason;
      stopRequest?.(reason);
    },
  };
  return handle;
}

/** The body as text: a Node stream read with events, as the transport reads it (an async iterator would destroy the stream, and its kept-alive socket, at the end); fetch's body iterated. */
async function text(exchange: Exchange): Promise<string> {
  const body = exchange.body;
  if (body && 'on' in body) {
    return new Promise<string>((resolve, reject) => {
      let out = '';
      body.on('data', (chunk: Buffer | string) => (out += chunk.toString()));
      body.on('end', () => resolve(out));
      body.on('error', reject);
      body.on('close', () => reject(new Error('closed before its end')));
    });
  }
  let out = '';
  for await (const chunk of body as AsyncIterable<Uint8Array>) out += Buffer.from(chunk).toString('utf8');
  return out;
}

/**
 * How it settles: its value or its error. What is waited on (a request to /hang, a socket to close) settles only if
 * the code under test makes it: were it not to, the test's ceiling would end the wait.
 */
const settled = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

const undiciAgent = new Agent();
const SENDERS: Array<[string, () => Promise<Send & { close?(): void }>]> = [
  [
    'node:http',
    async () => {
      const { send, close } = viaNodeHttp(new URL(origin));
      return Object.assign(send, { close });
    },
  ],
  ['undici', async () => viaUndici(undiciAgent, origin)],
  ['fetch', async () => viaFetch((input, init) => globalThis.fetch(input, init), origin)],
];

describe.each(SENDERS)('the %s sender', (sender, make) => {
  it('sends the GET and hands over status, headers and body', async () => {
    const send = await make();
    const exchange = await send('/academies/1', { 'X-API-Key': 'k_0123456789abcdef' }, control());
    expect(exchange.status).toBe(201);
    expect(exchange.statusText).toBe('Made');
    expect(exchange.headers.get('x-correlation-id')).toBe('c-1');
    expect(JSON.parse(await text(exchange))).toEqual({ path: '/academies/1' });
    send.close?.();
  });

  it('hands over the headers as received, for api -i: in order, as spelled, repeated ones kept (fetch: as its Headers has them)', async () => {
    const send = await make();
    const exchange = await send('/head', {}, control());
    await text(exchange);
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < exchange.rawHeaders!.length; i += 2) pairs.push([exchange.rawHeaders![i]!, exchange.rawHeaders![i + 1]!]);
    if (sender === 'fetch') {
      // Lower-case names, sorted, Set-Cookie apart: all fetch's Headers keeps.
      expect(pairs.filter(([name]) => /^(x-|set-cookie)/.test(name))).toEqual([
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['x-a', '2'],
        ['x-b', '1'],
      ]);
    } else {
      expect(pairs.slice(0, 4)).toEqual([
        ['X-B', '1'],
        ['Set-Cookie', 'a=1'],
        ['x-a', '2'],
        ['set-cookie', 'b=2'],
      ]);
      expect(exchange.headers.get('set-cookie')).toBe('a=1, b=2');
    }
    expect(exchange.statusText).toBe('Fine Thanks');
    expect(exchange.httpVersion).toBe(sender === 'node:http' ? '1.1' : undefined);
    send.close?.();
  });

  it('stopped before the answer: settles at once, failing with the reason', async () => {
    const send = await make();
    const attempt = control();
    const pending = send('/hang', {}, attempt);
    setTimeout(() => attempt.stop(new Error('deadline')), 20);
    const outcome = await settled(pending);
    expect(outcome).toMatchObject({ error: expect.objectContaining({ message: 'deadline' }) });
    send.close?.();
  });

  it('stopped while its body is read: the body fails with the reason', async () => {
    const send = await make();
    const attempt = control();
    const exchange = await send('/stall', {}, attempt);
    expect(exchange.status).toBe(200);
    setTimeout(() => attempt.stop(new Error('deadline')), 20);
    const outcome = await settled(text(exchange));
    expect(outcome).toHaveProperty('error');
    send.close?.();
  });

  it('stopped before it was sent: settles at once', async () => {
    const send = await make();
    const attempt = control();
    attempt.stop(new Error('interrupted'));
    expect(await settled(send('/slow', {}, attempt))).toMatchObject({ error: expect.objectContaining({ message: 'interrupted' }) });
    send.close?.();
  });
});

describe('node:http, the default sender', () => {
  /** A server of its own for each test, so that no other client's connection is counted. */
  async function ownServer(delayMs: number) {
    const sockets = new Set<Socket>();
    let openNow = 0;
    let most = 0;
    const own = http.createServer((_request, response) => setTimeout(() => response.writeHead(200).end('{}'), delayMs));
    own.on('connection', (socket) => {
      sockets.add(socket);
      most = Math.max(most, ++openNow);
      socket.on('close', () => openNow--);
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    return {
      origin: `http://127.0.0.1:${(own.address() as AddressInfo).port}`,
      sockets,
      most: () => most,
      async close() {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => own.close(resolve));
      },
    };
  }

  it('keeps one connection alive across requests, and close() lets go of it', async () => {
    const own = await ownServer(0);
    try {
      const { send, close } = viaNodeHttp(new URL(own.origin));
      for (const path of ['/a', '/b', '/c']) {
        await text(await send(path, {}, control()));
        // The agent takes the socket back once the response has ended: a moment later.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(own.sockets.size).toBe(1);
      const [socket] = own.sockets;
      const closed = new Promise((resolve) => socket!.once('close', resolve));
      await close();
      expect(await settled(closed)).toHaveProperty('value');
    } finally {
      await own.close();
    }
  });

  it('maxConnections bounds the connections a batch opens', async () => {
    const own = await ownServer(50);
    try {
      const { send, close } = viaNodeHttp(new URL(own.origin), 2);
      await Promise.all(Array.from({ length: 8 }, () => send('/slow', {}, control()).then(text)));
      // Without the bound, the eight slow requests would open eight connections at once.
      expect(own.most()).toBe(2);
      await close();
    } finally {
      await own.close();
    }
  });
});

afterAll(() => undiciAgent.close());
