/** What `gymctl mcp --http` checks: where it listens (loopback), its token, a request's Host, Origin and bearer token; and a refusal's form. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseWholeNumber } from '../../files/system.js';
import { usageError } from '../../failures.js';

/** `--http` alone: a port of its own, away from the sandbox's 4010 and the usual development servers' 3000, 5173 and 8080. */
export const DEFAULT_HTTP_PORT = 8808;
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

export const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `authorization` is `Bearer <token>`: compared in constant time, as digests of equal length, so that neither the text nor its length leaks. */
export function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
}

/** JSON-RPC codes: the SDK's transport's for a request refused (-32000) and for a session it does not know (-32001). */
export const REFUSED = -32000;
export const SESSION_NOT_FOUND = -32001;

/** A JSON-RPC error as the whole answer, as the SDK's transport answers its own refusals. The connection is closed: the body, if any, is not read. */
export function refuse(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...headers });
  res.end(body);
}
