/**
 * The API on node:http, for trying gymctl without a key and for tests. Where the spec is silent it decides, as the
 * README says: 401 `Unauthorized`, 404 `Resource not found` (outside the key's scope too), 200 for success.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SPEC_MESSAGES } from '../api/errors.js';
import { stringifyExact } from '../json/exact.js';
import type { SandboxData } from './data.js';
import { DEMO_DATA } from './demo-data.js';
import { faultPlan, type Fault } from './faults.js';
import { pathPattern } from '../operations/declare.js';
import { OPERATIONS } from '../operations/index.js';

export interface SandboxOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  data?: SandboxData;
  /** Called with one line per request (method, path, status, time); never with headers. */
  log?: (line: string) => void;
  /** Misbehaviour to inject, in order (see faults.ts). */
  faults?: readonly Fault[];
}

export interface Sandbox {
  /** The base URL to point gymctl at. */
  url: string;
  data: SandboxData;
  close(): Promise<void>;
}

/** A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

type Reply = { status: number; body: unknown };

const notFound = (): Reply => ({ status: 404, body: { message: SPEC_MESSAGES.notFound } });

const ROUTES = OPERATIONS.map((declaration) => ({ declaration, pattern: pathPattern(declaration) }));

function route(data: SandboxData, method: string, pathname: string, apiKey: string | undefined): Reply {
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, body: { message: 'Method not allowed' } };
  const caller = data.keys.find((k) => k.secret === apiKey);
  if (!caller) return { status: 401, body: { message: SPEC_MESSAGES.unauthorized } };
  for (const { declaration, pattern } of ROUTES) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    // Ids compare as the digits they are: they may be beyond 2^53 (bigints).
    const answer = declaration.sandbox.answer(data, match[1], caller.key);
    return answer === undefined ? notFound() : { status: 200, body: { data: answer } };
  }
  return notFound();
}

const ENDLESS_LIMIT_MS = 60_000;

/** The sandbox as a request handler, for an http or https server of the caller's. */
export function sandboxHandler(data: SandboxData = DEMO_DATA, log?: (line: string) => void, faults?: readonly Fault[]): http.RequestListener {
  const nextFault = faultPlan(faults);
  return (request, response) => {
    const started = process.hrtime.bigint();
    const { pathname } = new URL(request.url ?? '/', 'http://sandbox');
    const correlationId = uuidv7();
    const logLine = (status: number | string, note = '') => {
      if (!log) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log(`${request.method} ${pathname} ${status} ${ms.toFixed(1)}ms${note}`);
    };
    const send = (status: number, text: string, headers: http.OutgoingHttpHeaders = {}, note = '') => {
      response.writeHead(status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(text),
        'X-Correlation-Id': correlationId,
        ...headers,
      });
      response.end(request.method === 'HEAD' ? undefined : text);
      logLine(status, note);
    };
    const answer = (reply: Reply, note = '') => {
      const body = reply.status >= 400 ? { ...(reply.body as object), correlationId } : reply.body;
      send(reply.status, stringifyExact(body), reply.status === 405 ? { Allow: 'GET, HEAD' } : {}, note);
    };
    const header = request.headers['x-api-key'];
    const reply = () => route(data, request.method ?? 'GET', pathname, Array.isArray(header) ? header[0] : header);

    const fault = nextFault();
    const note = fault ? ` (fault ${fault.kind})` : '';
    switch (fault?.kind) {
      case undefined:
        return answer(reply());
      case 'rate-limit':
        return send(429, JSON.stringify({ message: 'Too many requests', correlationId }), { 'Retry-After': fault.value ?? '1' }, note);
      case 'unavailable':
        return answer({ status: 503, body: { message: 'Service unavailable' } }, note);
      case 'slow': {
        const timer = setTimeout(() => answer(reply(), note), Number(fault.value ?? 2000));
        response.on('close', () => clearTimeout(timer));
        return;
      }
      case 'truncated': {
        const text = stringifyExact(reply().body);
        return send(200, text.slice(0, Math.floor(text.length / 2)), {}, note);
      }
      case 'html':
        return send(
          500,
          '<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>',
          { 'Content-Type': 'text/html; charset=utf-8' },
          note,
        );
      case 'drift': {
        const { status, body } = reply();
        if (status !== 200) return answer({ status, body }, note);
        const { data: value } = body as { data: unknown };
        const drifted = Array.isArray(value) ? { members: value } : { ...(value as object), id: String((value as { id: unknown }).id) };
        return send(200, stringifyExact({ data: drifted }), {}, note);
      }
      case 'redirect':
        return send(302, '', { Location: fault.value ?? 'https://elsewhere.invalid/moved' }, note);
      case 'reset':
        logLine('reset', note);
        return void request.socket.destroy();
      case 'endless': {
        response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'X-Correlation-Id': correlationId });
        response.write('{"data":[');
        const chunk = `${'0,'.repeat(8191)}0,`;
        const stopAt = Date.now() + ENDLESS_LIMIT_MS;
        const pump = () => {
          while (!response.destroyed && Date.now() < stopAt) {
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          response.destroy();
        };
        response.on('close', () => logLine(200, note));
        return pump();
      }
    }
  };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const data = options.data ?? DEMO_DATA;
  const server = http.createServer(sandboxHandler(data, options.log, options.faults));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const shownHost = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shownHost}:${port}`,
    data,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
