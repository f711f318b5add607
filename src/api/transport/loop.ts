/** The HTTP transport (every API request goes through this folder): each call's checked settings, then its attempts, each under one deadline. */
import { VERSION } from '../../version.js';
import { baseUrlProblem, schemeProblem } from '../base-url.js';
import { API_KEY_FORM, DEFAULT_MAX_BODY_BYTES, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRIES, MAX_TIMEOUT_MS } from '../defaults.js';
import { abortedError, GymApiError, usageError } from '../errors.js';
import { networkError } from './network.js';
import { backgroundTimer } from './platform.js';
import { isUtf8Of, utf8 } from './platform.web.js';
import { redactError, redactHead, redactHeaders, redactText } from './redact.js';
import { ACCEPT_ENCODING, describeAnswer, interpret, isJsonText, readBody, responseHead } from './response.js';
import { type RetryPolicy, withRetries } from './retry.js';
import { openConnection } from './senders.js';
import type { AttemptControl, Connection, Exchange } from './exchange.js';
import type { ApiResponse, CallOptions, ClientOptions, Operation, ResponseCache } from './types.js';

type Call = { signal: AbortSignal | undefined; timeoutMs: number; policy: RetryPolicy; headers: Record<string, string> };

/** A call's settings from the client's options, checked: a mistake is a usage failure, not a socket error. */
function plainCall(options: ClientOptions): Call {
  if (typeof options !== 'object' || options === null) throw usageError('createClient needs options: { baseUrl, apiKey }');
  // A key with spaces or controls cannot go in a header, and Node's error for it quotes the value: refused here, unquoted.
  if (typeof options.apiKey !== 'string' || !API_KEY_FORM.test(options.apiKey))
    throw usageError('the API key is missing, empty or contains spaces or control characters (the key is not shown)');
  if (!URL.canParse(options.baseUrl)) throw usageError(`invalid base URL ${JSON.stringify(String(options.baseUrl))}`);
  const problem = baseUrlProblem(new URL(options.baseUrl), Boolean(options.allowInsecureHttp));
  if (problem && 'scheme' in problem) throw usageError(`invalid base URL: ${schemeProblem(problem.scheme)}`);
  if (problem) throw usageError(`refusing to send the API key over plain http to ${problem.insecureHost}: use https, or pass allowInsecureHttp: true`);
  for (const [name, min, max, unit] of NUMBERS) {
    const value = options[name];
    if (value !== undefined && !isWholeIn(value, min, max)) throw usageError(`invalid ${name} ${String(value)}: expected ${unit} from ${min} to ${max}`);
  }
  // Each proxy variable a string or absent: a number would fail the first request with a TypeError.
  const { env } = options;
  if (env !== undefined && (typeof env !== 'object' || env === null)) throw usageError('env must be an object of environment variables, as process.env is');
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) {
    if (env?.[name] !== undefined && typeof env[name] !== 'string') throw usageError(`env.${name} must be a string`);
  }
  const own = { Accept: 'application/json', 'Accept-Encoding': ACCEPT_ENCODING, 'User-Agent': options.userAgent ?? `gymctl/${VERSION}` };
  const plain = over({ signal: undefined, timeoutMs: DEFAULT_TIMEOUT_MS, policy: options, headers: own }, options.timeoutMs, options.defaultHeaders, 'defaultHeaders');
  return { ...plain, headers: { ...plain.headers, 'X-API-Key': options.apiKey } };
}

function callOf(plain: Call, options: CallOptions | undefined): Call {
  if (options === undefined) return plain;
  if (options instanceof AbortSignal) return { ...plain, signal: options };
  if (typeof options !== 'object' || options === null) throw usageError('request options must be an object: { signal, timeoutMs, retries, headers }');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw usageError('the signal option must be an AbortSignal');
  const policy = options.retries === undefined ? plain.policy : { ...plain.policy, retries: options.retries };
  return { ...over({ ...plain, policy }, options.timeoutMs, options.headers, 'headers'), signal: options.signal };
}

const isWholeIn = (value: unknown, min: number, max: number) => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;

const NUMBERS: ReadonlyArray<readonly ['maxBodyBytes' | 'maxConnections' | 'retryBaseDelayMs' | 'maxRetryAfterMs', number, number, string]> = [
  // A body is read into one buffer: 2 GiB is more than any answer of the API.
  ['maxBodyBytes', 1, 2 ** 31 - 1, 'bytes'],
  // Past what a client can use: a batch holds at most 64 requests in flight.
  ['maxConnections', 1, 1024, 'a whole number'],
  ['retryBaseDelayMs', 0, MAX_TIMEOUT_MS, 'milliseconds'],
  ['maxRetryAfterMs', 0, MAX_TIMEOUT_MS, 'milliseconds'],
];

/** Headers a caller may not set: the transport's own (it decodes only what it asks for). */
const RESERVED_HEADERS = new Set(['accept-encoding', 'host', 'connection', 'content-length', 'transfer-encoding']);
/** A header's name (RFC 9110's token) and value (no line break or control character), as the client and `gymctl api -H` take them. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** `base` with a timeout and headers over it (a name in any case replaces the same), all checked; a bad value is never quoted. */
function over(base: Call, timeoutMs: number | undefined, headers: Readonly<Record<string, string>> | undefined, option: string): Call {
  const timeout = timeoutMs ?? base.timeoutMs;
  const retries = base.policy.retries ?? DEFAULT_RETRIES;
  if (!isWholeIn(timeout, 1, MAX_TIMEOUT_MS)) throw usageError(`invalid timeout ${String(timeout)}: expected milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  if (!isWholeIn(retries, 0, MAX_RETRIES)) throw usageError(`invalid retries ${String(retries)}: expected a whole number from 0 to ${MAX_RETRIES}`);
  if (headers === undefined) return { ...base, timeoutMs: timeout };
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) throw usageError(`${option} must be an object of header names and values`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw usageError(`${option}: invalid header name ${JSON.stringify(name)}`);
    const lower = name.toLowerCase();
    if (lower === 'x-api-key') throw usageError(`${option} cannot set ${name}: the key sent is always the client's apiKey`);
    if (RESERVED_HEADERS.has(lower)) throw usageError(`${option} cannot set ${name}: the client sets it itself`);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value))
      throw usageError(`${option}: the value of ${name} must be a string without line breaks or control characters (it is not shown)`);
  }
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const merged = Object.fromEntries(Object.entries(base.headers).filter(([name]) => !names.has(name.toLowerCase())));
  return { ...base, timeoutMs: timeout, headers: Object.assign(merged, headers) };
}

const TIMED_OUT = Symbol('timed out');

class Stoppable implements AttemptControl {
  reason: unknown;
  #stopRequest: ((reason: Error) => void) | undefined;

  onStop(stopRequest: (reason: Error) => void): void {
    if (this.reason !== undefined) stopRequest(asError(this.reason));
    else this.#stopRequest = stopRequest;
  }

  stop(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.#stopRequest?.(asError(reason));
  }
}

const asError = (reason: unknown) => (reason instanceof Error ? reason : new Error('timed out'));

const CACHED: Exchange = { status: 200, statusText: 'OK', headers: { get: () => null }, body: null, cancel: () => {} };

export class Transport {
  readonly #options: ClientOptions;
  #connection: Promise<Connection> | undefined;
  #opened: Connection | undefined;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #closed = new AbortController();
  /** The client's signal and close(), combined once: one listener stops every attempt in flight. */
  readonly #signal: AbortSignal;
  readonly #inFlight = new Set<Stoppable>();
  readonly #plain: Call;

  constructor(options: ClientOptions) {
    this.#plain = plainCall(options);
    this.#options = options;
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#signal = options.signal ? AbortSignal.any([options.signal, this.#closed.signal]) : this.#closed.signal;
    this.#signal.addEventListener('abort', () => {
      for (const control of this.#inFlight) control.stop(this.#signal.reason);
    });
  }

  get<T>(operation: Operation<T>, options?: CallOptions): Promise<ApiResponse<T>> {
    let call: Call;
    try {
      call = callOf(this.#plain, options);
    } catch (error) {
      // Not async: a batch makes one call a request, and an async function's promise would be one more each.
      return Promise.reject(error);
    }
    const send = () =>
      withRetries(
        (attempt) => this.#attempt(operation, call, attempt),
        call.policy,
        [call.signal, this.#signal],
        (line) => this.#debug(line),
        (reason) => abortedError(reason, operation.subject, operation.id),
      );
    const { cache } = this.#options;
    return cache ? this.#viaCache(cache, operation, send) : send();
  }

  async #viaCache<T>(cache: ResponseCache, operation: Operation<T>, send: () => Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
    // A raw answer (gymctl api) is kept as received, under its own name, with its head (for `-i`): one without is a miss.
    const key = operation.raw ? `raw ${operation.path}` : operation.path;
    const cached = cache.read(key);
    if (cached && (!operation.raw || cached.head)) {
      try {
        const response = interpret(CACHED, cached.body, operation);
        this.#debug(`cache hit: GET ${operation.path}, stored ${Math.round(cached.ageMs / 1000)} s ago`);
        return { ...response, cached: true, ...(operation.raw ? { head: cached.head! } : {}) };
      } catch {
        this.#debug(`cache: the entry for GET ${operation.path} no longer passes validation, so it is fetched again`);
      }
    }
    const response = await send();
    // Only a validated 200 is kept; a raw one only when JSON and its text is its bytes (no invalid UTF-8).
    const { rawData, rawBytes } = response;
    if (response.status === 200 && (!operation.raw || (isJsonText(rawData) && (rawBytes === undefined || isUtf8Of(rawData, rawBytes))))) {
      if (operation.raw) cache.write(key, rawData, response.head);
      else cache.write(key, `{"data":${rawData}}`);
      this.#debug(`cache store: GET ${operation.path}`);
    }
    return response;
  }

  /** A callback that throws never breaks a request. */
  #debug(line: string): void {
    try {
      this.#options.debug?.(redactText(this.#options.apiKey, line));
    } catch {}
  }

  /** One attempt. A batch makes thousands, so it allocates no AbortController and listens only to a call's own signal. */
  async #attempt<T>(operation: Operation<T>, call: Call, attempt: number): Promise<ApiResponse<T>> {
    const path = this.#basePath + operation.path;
    const { signal, timeoutMs, headers } = call;
    const control = new Stoppable();
    const timer = backgroundTimer(() => control.stop(TIMED_OUT), timeoutMs);
    this.#inFlight.add(control);
    const onAbort = signal && (() => control.stop(signal.reason));
    if (onAbort) signal.addEventListener('abort', onAbort, { once: true });
    const started = Date.now();
    if (this.#signal.aborted) control.stop(this.#signal.reason);
    if (signal?.aborted) control.stop(signal.reason);
    const { debug, apiKey } = this.#options;
    try {
      if (debug) {
        this.#debug(`> GET ${this.#origin}${path}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
        for (const [name, value] of Object.entries(redactHeaders(headers))) this.#debug(`> ${name}: ${value}`);
      }
      if (control.reason !== undefined) throw control.reason;
      this.#connection ??= openConnection(this.#options, this.#plain.timeoutMs).then((connection) => (this.#opened = connection));
      const response = await (this.#opened ?? (await this.#connection)).send(path, headers, control);
      const bytes = await readBody(response, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, operation);
      const body = utf8(bytes);
      if (debug) this.#debug(`< ${response.status} ${response.statusText} in ${Date.now() - started} ms, ${describeAnswer(response, body.length)}`);
      const answer = interpret(response, body, operation, debug && ((line) => this.#debug(line)));
      return operation.raw ? { ...answer, rawBytes: bytes, head: redactHead(apiKey, responseHead(response)) } : answer;
    } catch (error) {
      throw await this.#classify(error, control.reason, operation, path, started, timeoutMs);
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(control);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  async #classify(error: unknown, stopped: unknown, operation: Operation<unknown>, path: string, started: number, timeoutMs: number): Promise<unknown> {
    const failed = (message: string) => this.#debug(`< failed in ${Date.now() - started} ms: ${message}`);
    if (error instanceof GymApiError && stopped === undefined) {
      if (error.status === undefined) failed(error.message);
      return redactError(this.#options.apiKey, error);
    }
    if (stopped === TIMED_OUT) {
      this.#debug(`< timed out after ${timeoutMs} ms`);
      return new GymApiError('unavailable', `${operation.subject}: timed out after ${timeoutMs} ms`, { id: operation.id, cause: error, reason: 'timeout', retryable: true });
    }
    if (stopped !== undefined) return abortedError(stopped, operation.subject, operation.id);
    const failure = await networkError(error, this.#origin + path, operation, this.#opened?.proxy);
    failed(failure.message);
    return failure;
  }

  /** Aborts what is in flight and lets go of every connection, so nothing keeps the process alive. */
  async close(): Promise<void> {
    this.#closed.abort(usageError('the client was closed'));
    // A connection that failed to set up has nothing to let go of: its failure was the calls'.
    if (this.#connection) await this.#connection.then((connection) => connection.close()).catch(() => {});
  }
}
