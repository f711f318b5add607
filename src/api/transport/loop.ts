/**
 * The HTTP transport, with this folder the only code that talks to the network. Each attempt sends one GET (senders.ts)
 * under a deadline from connecting to the last byte, then reads and interprets the answer (response.ts); failures to
 * connect get messages (network.ts); retries follow retry.ts; a call's settings come from attempt.ts. Every step can
 * be traced for --debug; neither traces nor errors hold the key (redact.ts).
 */
import { DEFAULT_MAX_BODY_BYTES } from '../defaults.js';
import { abortedError, GymApiError, usageError } from '../errors.js';
import { type Call, callOf, plainCall, Stoppable, TIMED_OUT } from './attempt.js';
import { networkError } from './network.js';
import { redactError, redactHead, redactHeaders, redactText } from './redact.js';
import { describeAnswer, interpret, isJsonText, readBody, responseHead } from './response.js';
import { withRetries } from './retry.js';
import { openConnection } from './senders.js';
import type { ApiResponse, Connection, Exchange, Operation, RequestOptions, ResponseCache, TransportOptions } from './types.js';

/** The exchange a cached body is read as: a 200 with no headers. */
const CACHED: Exchange = { status: 200, statusText: 'OK', headers: { get: () => null }, body: null, cancel: () => {} };

export class Transport {
  readonly #options: TransportOptions;
  #connection: Promise<Connection> | undefined;
  /** The connection once open: an attempt takes it at once, and its proxy names failures to connect. */
  #opened: Connection | undefined;
  readonly #origin: string;
  readonly #basePath: string;
  /** Aborted by close(): whatever is in flight stops, and no timer outlives the client. */
  readonly #closed = new AbortController();
  /** The client's own signal and close(), combined once; one listener stops every attempt in flight. */
  readonly #signal: AbortSignal;
  readonly #inFlight = new Set<(reason: unknown) => void>();
  readonly #plain: Call;

  constructor(options: TransportOptions) {
    this.#plain = plainCall(options);
    this.#options = options;
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#signal = options.signal ? AbortSignal.any([options.signal, this.#closed.signal]) : this.#closed.signal;
    this.#signal.addEventListener('abort', () => {
      for (const stop of this.#inFlight) stop(this.#signal.reason);
    });
  }

  /** Sends the operation, with retries; with a cache, answers from it when it has a fresh body, and stores each validated 200 (nothing else). */
  async get<T>(operation: Operation<T>, options?: RequestOptions | AbortSignal): Promise<ApiResponse<T>> {
    const call = callOf(this.#plain, options);
    const { cache } = this.#options;
    return cache ? this.#viaCache(cache, operation, call) : this.#send(operation, call);
  }

  #send<T>(operation: Operation<T>, call: Call): Promise<ApiResponse<T>> {
    return withRetries(
      (attempt) => this.#attempt(operation, call, attempt),
      call.policy,
      [call.signal, this.#signal],
      (line) => this.#debug(line),
      (reason) => abortedError(reason, operation.subject, operation.id),
    );
  }

  async #viaCache<T>(cache: ResponseCache, operation: Operation<T>, call: Call): Promise<ApiResponse<T>> {
    // A raw operation (gymctl api) keeps the whole body as received, under a name of its own: it never meets the rebuilt `{"data":…}`
    // another command kept for the same path, nor they its body.
    const key = operation.raw ? `raw ${operation.path}` : operation.path;
    const cached = cache.read(key);
    // A raw answer is kept with its status line and headers (for `gymctl api -i`): one kept without them is a miss.
    if (cached && (!operation.raw || cached.head)) {
      try {
        const response = interpret(CACHED, cached.body, operation);
        this.#debug(`cache hit: GET ${operation.path}, stored ${Math.round(cached.ageMs / 1000)} s ago`);
        return operation.raw ? { ...response, head: cached.head! } : response;
      } catch {
        this.#debug(`cache: the entry for GET ${operation.path} no longer passes validation, so it is fetched again`);
      }
    }
    const response = await this.#send(operation, call);
    // Only a validated 200 is kept: for a raw operation, a body that is JSON (never an HTML page or nothing), and kept as text only when
    // that text is its bytes (no invalid UTF-8 was replaced on the way).
    const { rawData, rawBytes } = response;
    if (response.status === 200 && (!operation.raw || (isJsonText(rawData) && (rawBytes === undefined || Buffer.from(rawData, 'utf8').equals(rawBytes))))) {
      // The data's text as sent, in the body shape the API uses: what interpret() reads back.
      if (operation.raw) cache.write(key, rawData, response.head);
      else cache.write(key, `{"data":${rawData}}`);
      this.#debug(`cache store: GET ${operation.path}`);
    }
    return response;
  }

  /** A trace line for the caller's callback; a callback that throws never breaks a request. */
  #debug(line: string): void {
    try {
      this.#options.debug?.(redactText(this.#options.apiKey, line));
    } catch {
      // The trace is a courtesy: the request goes on without it.
    }
  }

  /**
   * One attempt: the exchange, traced, then what its outcome means. A batch makes thousands, so an attempt allocates no AbortController and
   * adds no listener: its deadline, and the client's one listener, stop it through the sender, which then settles (the AttemptControl contract).
   */
  async #attempt<T>(operation: Operation<T>, call: Call, attempt: number): Promise<ApiResponse<T>> {
    const path = this.#basePath + operation.path;
    const { signal, timeoutMs, headers } = call;
    const control = new Stoppable();
    const stop = (reason: unknown) => control.stop(reason);
    const timer = setTimeout(stop, timeoutMs, TIMED_OUT).unref();
    this.#inFlight.add(stop);
    const onAbort = signal && (() => stop(signal.reason));
    if (onAbort) signal.addEventListener('abort', onAbort, { once: true });
    const started = Date.now();
    if (this.#signal.aborted) stop(this.#signal.reason);
    if (signal?.aborted) stop(signal.reason);
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
      const body = bytes.toString('utf8');
      if (debug) this.#debug(`< ${response.status} ${response.statusText} in ${Date.now() - started} ms, ${describeAnswer(response, body.length)}`);
      const answer = interpret(response, body, operation);
      return operation.raw ? { ...answer, rawBytes: bytes, head: redactHead(apiKey, responseHead(response)) } : answer;
    } catch (error) {
      throw await this.#classify(error, control.reason, operation, path, started, timeoutMs);
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(stop);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /** What a failed attempt means: the server's answer as it was, a timeout, an interrupt as it came, or a network failure named. */
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

  /** Aborts what is in flight and lets go of every connection: nothing of this transport keeps the process alive after. */
  async close(): Promise<void> {
    this.#closed.abort(usageError('the client was closed'));
    if (this.#connection) await (await this.#connection).close().catch(() => {});
  }
}
