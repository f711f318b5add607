/** The transport's exported shapes. They name only web-platform types, so library users need neither @types/node nor undici's. */
import type * as z from 'zod/mini';
import type { ResponseHead, ResponseHeaders } from '../errors.js';
import type { IdMode } from '../ids.js';
import type { Id } from '../schemas.js';

/** An undici 7 dispatcher (`Agent`, `ProxyAgent`, `MockAgent`…), typed by its `dispatch` method alone. */
export interface DispatcherLike {
  dispatch(options: unknown, handler: unknown): boolean;
}

/** Environment variables by name, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The client's options; `undefined` means the default. `M`: how the typed methods hand ids back (`ids`). */
export interface ClientOptions<M extends IdMode = IdMode> {
  /** The API's base address; paths are appended to its path. */
  baseUrl: string | URL;
  apiKey: string;
  /** Time limit of each attempt, from connecting to the last byte of the body. */
  timeoutMs?: number | undefined;
  /** Larger bodies are refused (invalid_response): 1 byte to 2 GiB − 1 (default 10 MiB). */
  maxBodyBytes?: number | undefined;
  /** The User-Agent header (default `gymctl/<version>`, the CLI's too). */
  userAgent?: string | undefined;
  /** Send through undici's request API on this dispatcher (an undici `Agent`, `MockAgent`…) instead of node:http. */
  dispatcher?: DispatcherLike | undefined;
  /** At most this many connections to the server, 1 to 1024 (default: no limit). */
  maxConnections?: number | undefined;
  /** Send through this fetch (Node's global fetch, say, which nock can intercept) instead of node:http. */
  fetch?: FetchLike | undefined;
  /** Retries of 408, 429 and every 5xx, timeouts and dropped or refused connections (default 2). */
  retries?: number | undefined;
  /** The first backoff; each retry doubles it, with jitter (default 250 ms; 0 for none). */
  retryBaseDelayMs?: number | undefined;
  /** The longest Retry-After gymctl waits; a longer one fails at once (default 20 s; 0 never waits). */
  maxRetryAfterMs?: number | undefined;
  /** Called with one line per step of each request, for --debug. The key is never in it. */
  debug?: ((line: string) => void) | undefined;
  /** Aborts every request of the client or call it is given to (Ctrl-C): a GymApiError of kind `aborted`, the reason as its cause. */
  signal?: AbortSignal | undefined;
  /** Allow a plain `http:` base URL that is not loopback (the key then crosses the network in clear). */
  allowInsecureHttp?: boolean | undefined;
  /** Headers for every request, over Accept and User-Agent; the key's and the transport's own are refused. */
  defaultHeaders?: Readonly<Record<string, string>> | undefined;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (default: process.env); each must be a string or absent. */
  env?: Environment | undefined;
  /** Answers GETs from here when it has a fresh body, and is handed each validated 200. */
  cache?: ResponseCache | undefined;
  /** How the typed methods hand ids back: `'number'` (the default; an id beyond 2^53−1 fails as invalid_response) or `'bigint'`. */
  ids?: M | undefined;
}

/** One call's own options over the client's: `getAcademy(1, { signal, timeoutMs, retries, headers })`. */
export interface RequestOptions extends Pick<ClientOptions, 'signal' | 'timeoutMs' | 'retries'> {
  /** Headers of this call, over the client's `defaultHeaders`, with the same limits. */
  headers?: ClientOptions['defaultHeaders'];
}

export type CallOptions = RequestOptions | AbortSignal;

/** A store of successful answers by path; what it hands back is checked as an answer would be, and a failure is a miss. */
export interface ResponseCache {
  /** A fresh 200's body for `path`, its age, and the head kept with it. */
  read(path: string): { body: string; ageMs: number; head?: ResponseHead } | undefined;
  /** A validated 200's body; for a raw operation, with its head. */
  write(path: string, body: string, head?: ResponseHead): void;
}

export interface Operation<T> {
  path: string;
  /** The whole response body's schema, `{ data: T }`; none for a raw operation. */
  schema?: z.core.$ZodType<{ data: T }>;
  /** Hand back a successful body as received, unparsed (`gymctl api`). */
  raw?: boolean;
  /** How messages name the thing asked for, e.g. `academy 42`. */
  subject: string;
  id?: Id;
}

/** What `request()` hands back. */
export interface ApiResponse<T> {
  /** The validated `data` member (undefined for a raw operation). */
  data: T;
  /** The `data` member's JSON text exactly as the server sent it (for a raw operation, the whole body). */
  rawData: string;
  /** For a raw operation answered by the server, the body's bytes as received (invalid UTF-8 included). */
  rawBytes?: Uint8Array;
  /** The status line and headers as received (or as kept with a cached answer); for a raw operation, with the key redacted. */
  head?: ResponseHead;
  /** The HTTP status (a 2xx); 200 for an answer from the `cache`. */
  status: number;
  /** The response headers, read by name in any case; an answer from the `cache` has none (every `get` is null). */
  headers: ResponseHeaders;
  /** The error body's, else the `X-Correlation-Id` (or `X-Request-Id`) header's; none from the `cache`. */
  correlationId: string | undefined;
  /** True for an answer from the client's `cache`, which reached no server. */
  cached?: boolean;
}

/** What `withResponse()` resolves to, as openai-node's: the data, and the answer as a fetch `Response` (its body read into `data`). */
export interface WithResponse<T> extends Pick<ApiResponse<T>, 'correlationId'> {
  data: T;
  /** The answer's status, statusText, headers (a `Headers`, as received) and url; its body is already read. */
  response: Response;
  /** True for an answer from the client's `cache`, which reached no server (status 200, no headers). */
  cached: boolean;
}

/** Node's global fetch, or any with its signature. */
export type FetchLike = (input: string, init: RequestInit & { dispatcher?: DispatcherLike }) => Promise<Response>;
