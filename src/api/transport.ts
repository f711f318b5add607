/**
 * The HTTP transport: with http.ts, the only code that talks to the network.
 * It sends one GET over a keep-alive pool (node:http, or undici when a proxy
 * is configured, or a fetch: see http.ts),
 * does not follow redirects, reads the body under a size cap, parses it and
 * validates it against the operation's schema. Every failure leaves as a
 * GymApiError.
 */
import type { Dispatcher } from 'undici';
import * as z from 'zod/mini';
import {
  API_KEY_FORM,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  MAX_RETRIES,
  MAX_TIMEOUT_MS,
} from './defaults.js';
import { GymApiError, SPEC_MESSAGES, classifyStatus, type ErrorKind } from './errors.js';
import { isLoopbackHost } from './loopback.js';
import { loadUndici, viaFetch, viaNodeHttp, viaUndici, type Exchange, type FetchLike, type Send } from './http.js';
import { rawMember } from './raw-json.js';
import { errorBodySchema } from './schemas.js';
import { formatIssues } from './validation.js';



export interface TransportOptions {
  /** The API's base address; paths are appended to its path. */
  baseUrl: string | URL;
  apiKey: string;
  /** Time limit of one request, from connecting to the last byte of the body. */
  timeoutMs?: number;
  /** Larger bodies are refused (invalid_response). */
  maxBodyBytes?: number;
  userAgent?: string;
  /** Send through undici's request API on this dispatcher (see http.ts for the default). */
  dispatcher?: Dispatcher;
  /** At most this many connections to the server (default: no limit). */
  maxConnections?: number;
  /**
   * Send through this fetch (Node's global fetch, say, which nock can
   * intercept) instead of undici's request API.
   */
  fetch?: FetchLike;
  /** Retries of 429, 502, 503, 504 and dropped or refused connections (default 2). */
  retries?: number;
  /** The first backoff; each retry doubles it, with jitter (default 250 ms). */
  retryBaseDelayMs?: number;
  /** The longest Retry-After gymctl waits; a longer one fails at once (default 20 s). */
  maxRetryAfterMs?: number;
  /** Called with one line per step of each request, for --debug. The key is never in it. */
  debug?: (line: string) => void;
  /** Aborts every request of this transport (Ctrl-C). */
  signal?: AbortSignal;
}

/** A request the client can make: where, what it returns, what it is about. */
export interface Operation<T> {
  path: string;
  /** The whole response body's schema, `{ data: T }`; none for a raw operation. */
  schema?: z.core.$ZodType<{ data: T }>;
  /** Hand back a successful body as received, unparsed (`gymctl api`). */
  raw?: boolean;
  /** How messages name the thing asked for, e.g. `academy 42`. */
  subject: string;
  id?: number;
}

export interface ApiResponse<T> {
  /** The validated `data` member (undefined for a raw operation). */
  data: T;
  /** The `data` member's JSON text exactly as the server sent it (for a raw operation, the whole body). */
  rawData: string;
  status: number;
  correlationId: string | undefined;
}

/** Builds a path with every parameter percent-encoded: apiPath`/academies/${id}`. */
export function apiPath(strings: TemplateStringsArray, ...params: Array<string | number>): string {
  return strings.reduce((path, part, i) => path + part + (i < params.length ? encodeURIComponent(String(params[i])) : ''), '');
}

export function joinUrl(baseUrl: string | URL, path: string): string {
  const base = new URL(baseUrl);
  return base.origin + base.pathname.replace(/\/+$/, '') + path;
}

/** What a failed attempt says about retrying it. */
interface RetryInfo {
  retryAfterMs?: number;
}

/** Failures worth another attempt, with what the server said about waiting. */
const RETRYABLE = new WeakMap<GymApiError, RetryInfo>();

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Certificate errors that a missing CA explains. */
const TLS_TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);
const RETRYABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** Retry-After as milliseconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const describeWait = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);

function withMessage(error: GymApiError, message: string): GymApiError {
  return new GymApiError(error.kind, message, { status: error.status, correlationId: error.correlationId, id: error.id, cause: error });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Header names whose values are secrets: shown as [redacted] in traces. */
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value]));
}

const MESSAGE_LIMIT = 300;
const clip = (text: string) => (text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text);


/** True when the environment names a proxy (NO_PROXY alone changes nothing). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

interface Connection {
  send: Send;
  close(): Promise<void>;
}

export class Transport {
  readonly #options: TransportOptions;
  #connection: Promise<Connection> | undefined;

  constructor(options: TransportOptions) {
    // A key with spaces or controls cannot go in a header, and the error
    // fetch would raise for it quotes the value: refuse it here, unquoted.
    if (!API_KEY_FORM.test(options.apiKey)) {
      throw new GymApiError('usage', 'the API key is empty or contains spaces or control characters (the key is not shown)');
    }
    if (!URL.canParse(options.baseUrl)) throw new GymApiError('usage', `invalid base URL ${JSON.stringify(String(options.baseUrl))}`);
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) {
      throw new GymApiError('usage', `invalid timeout ${timeout}: expected milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
    }
    const retries = options.retries ?? DEFAULT_RETRIES;
    if (!Number.isSafeInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
      throw new GymApiError('usage', `invalid retries ${retries}: expected a whole number from 0 to ${MAX_RETRIES}`);
    }
    this.#options = options;
  }

  /** How requests go out, set up on the first one (see http.ts). */
  #connect(): Promise<Connection> {
    this.#connection ??= (async (): Promise<Connection> => {
      const { fetch, dispatcher, maxConnections } = this.#options;
      if (fetch) return { send: viaFetch(fetch, dispatcher), close: async () => {} };
      if (dispatcher) return { send: await viaUndici(dispatcher), close: async () => {} };
      // Loopback (the sandbox, say) never goes through a proxy: the key would leave the machine.
      if (proxyConfigured() && !isLoopbackHost(new URL(this.#options.baseUrl).hostname)) {
        // undici's EnvHttpProxyAgent honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY.
        const timeout = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        const { EnvHttpProxyAgent } = await loadUndici();
        const agent = new EnvHttpProxyAgent({
          connect: { timeout },
          headersTimeout: timeout,
          bodyTimeout: timeout,
          ...(maxConnections ? { connections: maxConnections } : {}),
        });
        return { send: await viaUndici(agent), close: () => agent.destroy() };
      }
      const send = viaNodeHttp(maxConnections);
      return { send, close: async () => send.close() };
    })();
    return this.#connection;
  }

  /**
   * Sends the operation, retrying what is worth retrying: 429, 502, 503,
   * 504 and dropped or refused connections (a GET changes nothing, so a
   * retry is safe). Waits back off exponentially with jitter, or as long as
   * Retry-After says, up to a bound; a longer Retry-After fails at once.
   */
  async get<T>(operation: Operation<T>, signal?: AbortSignal): Promise<ApiResponse<T>> {
    const retries = this.#options.retries ?? DEFAULT_RETRIES;
    const signals = [signal, this.#options.signal].filter((s): s is AbortSignal => s !== undefined);
    const combined = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attempt(operation, combined, attempt);
      } catch (error) {
        const retry = error instanceof GymApiError ? RETRYABLE.get(error) : undefined;
        if (!retry || !(error instanceof GymApiError) || combined?.aborted) throw error;
        const maxWait = this.#options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
        if (retry.retryAfterMs !== undefined && retry.retryAfterMs > maxWait) {
          throw withMessage(error, `${error.message}; the server asks to wait ${describeWait(retry.retryAfterMs)}, longer than gymctl waits (${describeWait(maxWait)}): try again after ${new Date(Date.now() + retry.retryAfterMs).toISOString()}`);
        }
        if (attempt > retries) {
          throw attempt > 1 ? withMessage(error, `${error.message} (gave up after ${attempt} attempts)`) : error;
        }
        const base = this.#options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
        const backoff = Math.round(base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
        const wait = retry.retryAfterMs ?? backoff;
        this.#debug(`retrying in ${wait} ms (attempt ${attempt + 1} of ${retries + 1}): ${error.message}`);
        await sleep(wait, combined);
      }
    }
  }

  /** A server that echoes the key back in its error text does not get it printed. */
  #redact(error: GymApiError): GymApiError {
    const key = this.#options.apiKey;
    const hides = (text: string | undefined) => key.length >= 8 && text !== undefined && text.includes(key);
    if (!hides(error.message) && !hides(error.correlationId)) return error;
    const redact = (text: string) => text.split(key).join('[redacted]');
    const redacted = new GymApiError(error.kind, redact(error.message), {
      status: error.status,
      correlationId: error.correlationId === undefined ? undefined : redact(error.correlationId),
      id: error.id,
    });
    const retry = RETRYABLE.get(error);
    if (retry) RETRYABLE.set(redacted, retry);
    return redacted;
  }

  #debug(line: string): void {
    const key = this.#options.apiKey;
    this.#options.debug?.(key.length >= 8 ? line.split(key).join('[redacted]') : line);
  }

  async #attempt<T>(operation: Operation<T>, signal: AbortSignal | undefined, attempt: number): Promise<ApiResponse<T>> {
    const url = joinUrl(this.#options.baseUrl, operation.path);
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    // The attempt ends at the time limit even if the sender never settles
    // (undici retrying a proxy that drops every CONNECT, for one).
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
        reject(new Error('timed out'));
      }, timeoutMs);
    });
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const headers = {
      'X-API-Key': this.#options.apiKey,
      Accept: 'application/json',
      'User-Agent': this.#options.userAgent ?? 'gymctl',
    };
    const started = performance.now();
    const elapsed = () => `${Math.round(performance.now() - started)} ms`;
    if (this.#options.debug) {
      this.#debug(`> GET ${url}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      for (const [name, value] of Object.entries(redactHeaders(headers))) this.#debug(`> ${name}: ${value}`);
    }
    try {
      const exchange = async () => {
        const response = await (await this.#connect()).send(url, headers, controller.signal);
        return { response, body: await readBody(response, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, controller, operation) };
      };
      const { response, body } = await Promise.race([exchange(), deadline]);
      if (this.#options.debug) {
        const correlationId = headerCorrelationId(response.headers);
        this.#debug(
          `< ${response.status} ${response.statusText} in ${elapsed()}, ${body.length} characters, ${describeContentType(response)}${correlationId ? `, correlation ID ${correlationId}` : ''}`,
        );
      }
      return interpret(response, body, operation);
    } catch (error) {
      if (error instanceof GymApiError) {
        if (error.status === undefined) this.#debug(`< failed in ${elapsed()}: ${error.message}`);
        throw this.#redact(error);
      }
      if (timedOut) {
        this.#debug(`< timed out after ${timeoutMs} ms`);
        throw new GymApiError('unavailable', `${operation.subject}: timed out after ${timeoutMs} ms`, {
          id: operation.id,
          cause: error,
        });
      }
      if (signal?.aborted) throw signal.reason ?? error;
      const failure = networkError(error, url, operation);
      this.#debug(`< failed in ${elapsed()}: ${failure.message}`);
      throw failure;
    } finally {
      clearTimeout(timer);
      deadline.catch(() => {});
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.#connection) await (await this.#connection).close();
  }
}

async function readBody(
  response: Exchange,
  maxBytes: number,
  controller: AbortController,
  operation: Operation<unknown>,
): Promise<string> {
  const tooLarge = () => {
    controller.abort();
    return new GymApiError('invalid_response', `${operation.subject}: the response body is larger than ${formatBytes(maxBytes)}`, {
      status: response.status,
      correlationId: headerCorrelationId(response.headers),
      id: operation.id,
    });
  };
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      response.cancel();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function headerCorrelationId(headers: Exchange['headers']): string | undefined {
  return headers.get('x-correlation-id') ?? headers.get('x-request-id') ?? undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function interpret<T>(response: Exchange, text: string, operation: Operation<T>): ApiResponse<T> {
  const { status } = response;
  let json: unknown;
  let isJson = true;
  try {
    json = JSON.parse(text);
  } catch {
    isJson = false;
  }
  const errorBody = isJson ? errorBodySchema.safeParse(json) : undefined;
  const message = errorBody?.success ? errorBody.data.message : undefined;
  const correlationId =
    (errorBody?.success && typeof errorBody.data.correlationId === 'string' ? errorBody.data.correlationId : undefined) ??
    headerCorrelationId(response.headers);
  const meta = { status, correlationId, id: operation.id };

  // The spec fixes no status codes, not even for success: a 2xx carrying
  // the spec's error body without `data` is an error all the same.
  const isSuccess = status >= 200 && status < 300;
  const isSpecError =
    isObject(json) && !('data' in json) && (message === SPEC_MESSAGES.unauthorized || message === SPEC_MESSAGES.notFound);
  if (!isSuccess || isSpecError) {
    const kind = classifyStatus(status, message);
    const error = new GymApiError(kind, errorMessage(kind, response, operation, isJson ? message : undefined, isJson), meta);
    if (RETRYABLE_STATUSES.has(status)) RETRYABLE.set(error, { retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
    throw error;
  }
  if (operation.raw || !operation.schema) return { data: undefined as T, rawData: text, status, correlationId };
  if (!isJson) {
    throw new GymApiError('invalid_response', `${operation.subject}: the response is not JSON (${describeContentType(response)})`, meta);
  }
  const parsed = z.safeParse(operation.schema, json, { reportInput: true });
  if (!parsed.success) {
    throw new GymApiError(
      'invalid_response',
      `${operation.subject}: unexpected response: ${formatIssues(parsed.error.issues, operation.schema)}`,
      meta,
    );
  }
  return {
    data: parsed.data.data,
    rawData: rawMember(text, 'data') ?? 'null',
    status,
    correlationId,
  };
}

function describeContentType(response: Exchange): string {
  const type = response.headers.get('content-type');
  return type ? `content type ${type.split(';')[0]!.trim()}` : 'no content type';
}

function errorMessage(
  kind: ErrorKind,
  response: Exchange,
  operation: Operation<unknown>,
  message: string | null | undefined,
  isJson: boolean,
): string {
  // A body that is not JSON (an HTML page from a proxy) is described, never shown.
  const said = message ? clip(message) : isJson ? undefined : describeContentType(response);
  const { status } = response;
  switch (kind) {
    case 'unauthorized':
      return `${said ?? SPEC_MESSAGES.unauthorized}: the server refused the API key`;
    case 'not_found':
      return `${operation.subject}: ${said ?? SPEC_MESSAGES.notFound}`;
    case 'unavailable':
      if (status === 429) return `${operation.subject}: rate limited by the server${said ? ` (${said})` : ''}`;
      return `${operation.subject}: the server is unavailable (${said ?? (response.statusText || `HTTP ${status}`)})`;
    default:
      if (status >= 300 && status < 400) {
        const location = response.headers.get('location');
        return `${operation.subject}: the server answered with a redirect${location ? ` to ${clip(location)}` : ''}, which gymctl does not follow`;
      }
      return `${operation.subject}: unexpected HTTP status ${status}${said ? ` (${said})` : ''}`;
  }
}

/** The first error code along the cause chain (fetch wraps socket errors in a TypeError). */
function errorCode(error: unknown): { code: string | undefined; detail: string } {
  let current: unknown = error;
  let detail = error instanceof Error ? error.message : String(error);
  for (let depth = 0; current && depth < 5; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof message === 'string' && message) detail = message;
    if (typeof code === 'string') return { code, detail };
    current = cause;
  }
  return { code: undefined, detail };
}

function describeNetworkFailure(code: string | undefined, detail: string, host: string): string {
  if (code === 'ECONNREFUSED') return `could not connect to ${host} (connection refused)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `could not resolve ${host}`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `could not connect to ${host} (connect timed out)`;
  if (code !== undefined && TLS_TRUST_CODES.has(code)) {
    return `the TLS certificate of ${host} is not trusted (${code}); if your own CA signed it, point NODE_EXTRA_CA_CERTS at the CA's PEM file`;
  }
  return `the connection to ${host} failed (${code ?? detail})`;
}

function networkError(error: unknown, url: string, operation: Operation<unknown>): GymApiError {
  const { code, detail } = errorCode(error);
  const { host, port } = new URL(url);
  if (detail === 'bad port') {
    // fetch refuses the "bad ports" of the fetch standard before connecting.
    return new GymApiError('usage', `${operation.subject}: fetch refuses to connect to port ${port} (a "bad port" of the fetch standard): serve the API on another port`, { id: operation.id, cause: error });
  }
  const failure = new GymApiError('unavailable', `${operation.subject}: ${describeNetworkFailure(code, detail, host)}`, { id: operation.id, cause: error });
  if (code !== undefined && RETRYABLE_CODES.has(code)) RETRYABLE.set(failure, {});
  return failure;
}
