/**
 * The HTTP transport: the only module that talks to the network. It sends
 * one GET through Node's fetch with an undici Agent as the dispatcher (a
 * keep-alive connection pool with connect, header and body time limits),
 * does not follow redirects, reads the body under a size cap, parses it and
 * validates it against the operation's schema. Every failure leaves as a
 * GymApiError.
 */
import { Agent, type Dispatcher } from 'undici';
import * as z from 'zod/mini';
import { API_KEY_FORM, DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from './defaults.js';
import { GymApiError, SPEC_MESSAGES, classifyStatus, type ErrorKind } from './errors.js';
import { rawMember } from './raw-json.js';
import { errorBodySchema } from './schemas.js';
import { formatIssues } from './validation.js';


type FetchLike = (input: string, init: RequestInit & { dispatcher?: Dispatcher }) => Promise<Response>;

export interface TransportOptions {
  /** The API's base address; paths are appended to its path. */
  baseUrl: string | URL;
  apiKey: string;
  /** Time limit of one request, from connecting to the last byte of the body. */
  timeoutMs?: number;
  /** Larger bodies are refused (invalid_response). */
  maxBodyBytes?: number;
  userAgent?: string;
  /** The connection pool; by default one undici Agent per transport. */
  dispatcher?: Dispatcher;
  /** With the default pool: at most this many connections to the server (default: no limit). */
  maxConnections?: number;
  /** The fetch to call; by default Node's global fetch. */
  fetch?: FetchLike;
}

/** A request the client can make: where, what it returns, what it is about. */
export interface Operation<T> {
  path: string;
  /** The whole response body's schema, `{ data: T }`. */
  schema: z.core.$ZodType<{ data: T }>;
  /** How messages name the thing asked for, e.g. `academy 42`. */
  subject: string;
  id?: number;
}

export interface ApiResponse<T> {
  /** The validated `data` member. */
  data: T;
  /** The `data` member's JSON text exactly as the server sent it. */
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

const MESSAGE_LIMIT = 300;
const clip = (text: string) => (text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text);

export class Transport {
  readonly #options: TransportOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #fetch: FetchLike;

  constructor(options: TransportOptions) {
    // A key with spaces or controls cannot go in a header, and the error
    // fetch would raise for it quotes the value: refuse it here, unquoted.
    if (!API_KEY_FORM.test(options.apiKey)) {
      throw new GymApiError('usage', 'the API key is empty or contains spaces or control characters (the key is not shown)');
    }
    this.#options = options;
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        connect: { timeout },
        headersTimeout: timeout,
        bodyTimeout: timeout,
        ...(options.maxConnections ? { connections: options.maxConnections } : {}),
      });
    this.#fetch = options.fetch ?? (globalThis.fetch as FetchLike);
  }

  async get<T>(operation: Operation<T>, signal?: AbortSignal): Promise<ApiResponse<T>> {
    const url = joinUrl(this.#options.baseUrl, operation.path);
    const timeoutMs = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.#fetch(url, {
        method: 'GET',
        headers: {
          'X-API-Key': this.#options.apiKey,
          Accept: 'application/json',
          'User-Agent': this.#options.userAgent ?? 'gymctl',
        },
        redirect: 'manual',
        signal: controller.signal,
        dispatcher: this.#dispatcher,
      });
      const body = await readBody(response, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, controller, operation);
      return interpret(response, body, operation);
    } catch (error) {
      if (error instanceof GymApiError) throw error;
      if (timedOut) {
        throw new GymApiError('unavailable', `${operation.subject}: timed out after ${timeoutMs} ms`, {
          id: operation.id,
          cause: error,
        });
      }
      if (signal?.aborted) throw signal.reason ?? error;
      throw networkError(error, url, operation);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.destroy();
  }
}

async function readBody(
  response: Response,
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
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function headerCorrelationId(headers: Headers): string | undefined {
  return headers.get('x-correlation-id') ?? headers.get('x-request-id') ?? undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function interpret<T>(response: Response, text: string, operation: Operation<T>): ApiResponse<T> {
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
    throw new GymApiError(kind, errorMessage(kind, response, operation, isJson ? message : undefined), meta);
  }
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

function describeContentType(response: Response): string {
  const type = response.headers.get('content-type');
  return type ? `content type ${type.split(';')[0]!.trim()}` : 'no content type';
}

function errorMessage(
  kind: ErrorKind,
  response: Response,
  operation: Operation<unknown>,
  message: string | null | undefined,
): string {
  const said = message ? clip(message) : undefined;
  const { status } = response;
  switch (kind) {
    case 'unauthorized':
      return `${said ?? SPEC_MESSAGES.unauthorized}: the server refused the API key`;
    case 'not_found':
      return `${operation.subject}: ${said ?? SPEC_MESSAGES.notFound}`;
    case 'unavailable':
      if (status === 429) return `${operation.subject}: rate limited by the server${said ? ` (${said})` : ''}`;
      return `${operation.subject}: the server is unavailable (${said ?? (response.statusText || describeContentType(response))})`;
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

function networkError(error: unknown, url: string, operation: Operation<unknown>): GymApiError {
  const { code, detail } = errorCode(error);
  const { host } = new URL(url);
  const reason =
    code === 'ECONNREFUSED'
      ? `could not connect to ${host} (connection refused)`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `could not resolve ${host}`
        : code === 'UND_ERR_CONNECT_TIMEOUT'
          ? `could not connect to ${host} (connect timed out)`
          : `the connection to ${host} failed (${code ?? detail})`;
  return new GymApiError('unavailable', `${operation.subject}: ${reason}`, { id: operation.id, cause: error });
}
