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
import { viaFetch, viaNodeHttp, viaUndici } from '../../src/api/transport/senders.js';
import type { AttemptControl, Exchange, Send } from '../../src/api/transport/types.js';

let server: http.Server;
let origin: string;
const sockets = new Set<Socket>();
/** Connections open at once, at most, since the last reset. */
let open = 0;
let mostOpen = 0;

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
    response.writeHead(201, 'Made', { 'Content-Type': 'application/json', 'X-Correlation-Id': 'c-1' }).end(`{"path":${JSON.stringify(request.url)}}`);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    mostOpen = Math.max(mostOpen, ++open);
    socket.on('close', () => {
      sockets.delete(socket);
      open--;
    });
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

async function text(exchange: Exchange): Promise<string> {
  let out = '';
  for await (const chunk of exchange.body as AsyncIterable<Uint8Array | string>) out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return out;
}

/** Settles within `ms`, or says it did not. */
const within = <T>(promise: Promise<T>, ms = 1000) =>
  Promise.race([
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    new Promise<{ late: true }>((resolve) => setTimeout(() => resolve({ late: true }), ms)),
  ]);

const undiciAgent = new Agent();
const SENDERS: Array<[string, () => Promise<Send & { close?(): void }>]> = [
  ['node:http', async () => viaNodeHttp(origin)],
  ['undici', async () => viaUndici(undiciAgent, origin)],
  ['fetch', async () => viaFetch((input, init) => globalThis.fetch(input, init), origin)],
];

describe.each(SENDERS)('the %s sender', (_name, make) => {
  it('sends the GET and hands over status, headers and body', async () => {
    const send = await make();
    const exchange = await send('/academies/1', { 'X-API-Key': 'k_0123456789abcdef' }, control());
    expect(exchange.status).toBe(201);
    expect(exchange.headers.get('x-correlation-id')).toBe('c-1');
    expect(JSON.parse(await text(exchange))).toEqual({ path: '/academies/1' });
    send.close?.();
  });

  it('stopped before the answer: settles at once, failing with the reason', async () => {
    const send = await make();
    const attempt = control();
    const pending = send('/hang', {}, attempt);
    setTimeout(() => attempt.stop(new Error('deadline')), 20);
    const outcome = await within(pending);
    expect(outcome).toMatchObject({ error: expect.objectContaining({ message: 'deadline' }) });
    send.close?.();
  });

  it('stopped while its body is read: the body fails with the reason', async () => {
    const send = await make();
    const attempt = control();
    const exchange = await send('/stall', {}, attempt);
    expect(exchange.status).toBe(200);
    setTimeout(() => attempt.stop(new Error('deadline')), 20);
    const outcome = await within(text(exchange));
    expect(outcome).toHaveProperty('error');
    send.close?.();
  });

  it('stopped before it was sent: settles at once', async () => {
    const send = await make();
    const attempt = control();
    attempt.stop(new Error('interrupted'));
    expect(await within(send('/slow', {}, attempt))).toMatchObject({ error: expect.objectContaining({ message: 'interrupted' }) });
    send.close?.();
  });
});

describe('node:http, the default sender', () => {
  it('keeps one connection alive across requests, and close() lets go of it', async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const send = viaNodeHttp(origin);
    for (const path of ['/a', '/b', '/c']) await text(await send(path, {}, control()));
    expect(sockets.size).toBe(1);
    send.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sockets.size).toBe(0);
  });

  it('maxConnections bounds the connections a batch opens', async () => {
    const before = open;
    mostOpen = open;
    const send = viaNodeHttp(origin, 2);
    await Promise.all(Array.from({ length: 8 }, () => send('/slow', {}, control()).then(text)));
    // Without the bound, the eight slow requests would open eight connections at once.
    expect(mostOpen - before).toBe(2);
    send.close();
  });
});

afterAll(() => undiciAgent.close());
