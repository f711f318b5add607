/**
 * The HTTP transport: with the other files of this folder, the only code
 * that talks to the network. Each attempt sends one GET (see senders.ts),
 * bounded by a deadline from connecting to the last byte; the body is read
 * under a cap and interpreted (response.ts); socket failures get messages
 * (network.ts); retries follow retry.ts; a call's own options are merged
 * with the client's in call.ts. Every step can be traced for --debug, and
 * neither traces nor errors ever hold the key (redact.ts).
 */
import { DEFAULT_MAX_BODY_BYTES } from '../defaults.js';
import { checkOptions, redactHeaders, Stoppable, TIMED_OUT, type Trace } from './attempt.js';
import { type Call, callOf, plainCall } from './call.js';
import { abortedError, GymApiError, usageError } from '../errors.js';
import { networkError } from './network.js';
import { describeContentType, headerCorrelationId, interpret, isJsonText, readBody, readBodyWith, responseHead, sameBytes } from './response.js';
import { redactError, redactHead, redactText } from './redact.js';
import { withRetries } from './retry.js';
import { openConnection } from './senders.js';
import type { ApiResponse, Connection, Exchange, Operation, RequestOptions, ResponseCache, TransportOptions } from './types.js';

/** The exchange a cached body is read as: a 200 with no headers. */
const CACHED: Exchange = { status: 200, statusText: 'OK', headers: { get: () => null }, body: null, cancel: () => {} };

export class Transport {
  readonly #options: TransportOptions;
  #connection: Promise<Connection> | undefined;
  /** The connection, once it is open: getWith uses it at once. */
  #opened: Connection | undefined;
  /** The base URL's path, without its trailing slash: each request's path is appended to it. */
  readonly #basePath: string;
  /** Aborted by close(): whatever is in flight stops, and no timer outlives the client. */
  readonly #closed = new AbortController();
  /** The client's own signal and close(), combined once; one listener stops every attempt in flight. */
  readonly #signal: AbortSignal;
  readonly #inFlight = new Set<(reason: unknown) => void>();
  /** The settings of a call with no options of its own. */
  readonly #plain: Call;

  constructor(options: TransportOptions) {
    checkOptions(options);
    this.#options = options;
    this.#basePath = new URL(options.baseUrl).pathname.replace(/\/+$/, '');
    this.#plain = plainCall(options);
    this.#signal = options.signal ? AbortSignal.any([options.signal, this.#closed.signal]) : this.#closed.signal;
    this.#signal.addEventListener('abort', () => {
      for (const stop of this.#inFlight) stop(this.#signal.reason);
    });
  }

  #connect(): Promise<Connection> {
    this.#connection ??= openConnection(this.#options).then((connection) => (this.#opened = connection));
    return this.#connection;
  }

  /**
   * Sends the operation, retrying what is worth retrying (see retry.ts);
   * with a cache, answers from it when it has a fresh body, and stores each
   * validated 200 (never an error, a 429 or another 2xx).
   */
  get<T>(operation: Operation<T>, options?: RequestOptions | AbortSignal): Promise<ApiResponse<T>> {
    let call: Call;
    try {
      call = callOf(this.#plain, options, this.#options.apiKey);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#get(operation, call);
  }

  #get<T>(operation: Operation<T>, call: Call): Promise<ApiResponse<T>> {
    const { cache } = this.#options;
    if (!cache)
      return withRetries(
        (attempt) => this.#attempt(operation, call, attempt),
        call.policy,
        [call.signal, this.#signal],
        (line) => this.#debug(line),
        (reason) => abortedError(reason, operation.subject, operation.id),
      );
    return this.#viaCache(cache, operation, call);
  }

  async #viaCache<T>(cache: ResponseCache, operation: Operation<T>, call: Call): Promise<ApiResponse<T>> {
    // A raw operation (gymctl api) keeps the whole body as received, under a name of its own: it never meets the
    // rebuilt `{"data":…}` another command kept for the same path, nor they its body.
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
    const response = await withRetries(
      (attempt) => this.#attempt(operation, call, attempt),
      call.policy,
      [call.signal, this.#signal],
      (line) => this.#debug(line),
      (reason) => abortedError(reason, operation.subject, operation.id),
    );
    // Only a validated 200 is kept: for a raw operation, a body that is JSON (never an HTML page or nothing).
    if (response.status === 200 && (!operation.raw || (isJsonText(response.rawData) && sameBytes(response.rawData, response.rawBytes)))) {
      // The data's text as sent, in the body shape the API uses: what interpret() reads back.
      if (operation.raw) cache.write(key, response.rawData, response.head);
      else cache.write(key, `{"data":${response.rawData}}`);
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
   * One attempt, bounded by a deadline from connecting to the last byte:
   * the exchange, then what its outcome means. A batch makes thousands of
   * these, so an attempt allocates no AbortController and adds no listener:
   * a timer and the client's one listener stop it through the sender, which
   * then settles (the AttemptControl contract).
   */
  async #attempt<T>(operation: Operation<T>, call: Call, attempt: number): Promise<ApiResponse<T>> {
    const { path, control, trace, end } = this.#startAttempt(operation, call);
    const connection: { current?: Connection } = {};
    try {
      const { response, body, bytes } = await this.#exchange(path, call.headers, operation, attempt, control, connection, trace);
      const answer = interpret(response, body, operation);
      return operation.raw ? { ...answer, rawBytes: bytes, head: redactHead(this.#options.apiKey, responseHead(response)) } : answer;
    } catch (error) {
      throw await this.#classify(error, control.reason, operation, connection.current, trace);
    } finally {
      end();
    }
  }

  /** An attempt's deadline, and its stop on the caller's or the client's abort; `end` lets go of both. */
  #startAttempt(operation: Operation<unknown>, call: Call): { path: string; control: Stoppable; trace: Trace; end(): void } {
    const path = this.#basePath + operation.path;
    const { signal, timeoutMs } = call;
    const control = new Stoppable();
    const stop = (reason: unknown) => control.stop(reason);
    const timer = setTimeout(stop, timeoutMs, TIMED_OUT);
    // A pending deadline never keeps the process alive on its own.
    timer.unref();
    this.#inFlight.add(stop);
    const onAbort = signal && (() => stop(signal.reason));
    if (onAbort) signal.addEventListener('abort', onAbort, { once: true });
    const started = Date.now();
    const trace = { url: () => new URL(this.#options.baseUrl).origin + path, elapsed: () => `${Date.now() - started} ms`, timeoutMs };
    if (this.#signal.aborted) stop(this.#signal.reason);
    if (signal?.aborted) stop(signal.reason);
    const end = () => {
      clearTimeout(timer);
      this.#inFlight.delete(stop);
      if (onAbort) signal!.removeEventListener('abort', onAbort);
    };
    return { path, control, trace, end };
  }

  /**
   * `get` with a callback, for batches: in the common case (node:http, once
   * its connection is open; no cache, --debug or raw body), the first
   * attempt is made of callbacks alone, with no promise. Anything but an
   * answer that passes (a failure, a retryable status, a timeout, an
   * interrupt) goes on as `get` would, with that attempt as its first: the
   * same retries, waits and messages.
   */
  getWith<T>(operation: Operation<T>, options: RequestOptions | AbortSignal | undefined, done: (error: unknown, response?: ApiResponse<T>) => void): void {
    let call: Call;
    try {
      call = callOf(this.#plain, options, this.#options.apiKey);
    } catch (error) {
      done(error);
      return;
    }
    const connection = this.#opened;
    const sendWith = connection?.sendWith;
    if (!sendWith || this.#options.cache || this.#options.debug || operation.raw) {
      this.#get(operation, call).then((response) => done(undefined, response), done);
      return;
    }
    const { path, control, trace, end } = this.#startAttempt(operation, call);
    const fail = (error: unknown) => {
      end();
      const first = this.#classify(error, control.reason, operation, connection, trace);
      withRetries(
        (attempt) => (attempt === 1 ? first.then((failure) => Promise.reject(failure)) : this.#attempt(operation, call, attempt)),
        call.policy,
        [call.signal, this.#signal],
        (line) => this.#debug(line),
        (reason) => abortedError(reason, operation.subject, operation.id),
      ).then((response) => done(undefined, response), done);
    };
    if (control.reason !== undefined) {
      fail(control.reason);
      return;
    }
    sendWith(path, call.headers, control, (sendError, response) => {
      if (sendError !== undefined) {
        fail(sendError);
        return;
      }
      readBodyWith(response!, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, operation, (readError, bytes) => {
        if (readError !== undefined) {
          fail(readError);
          return;
        }
        let answer: ApiResponse<T>;
        try {
          answer = interpret(response!, bytes!.toString('utf8'), operation);
        } catch (error) {
          fail(error);
          return;
        }
        end();
        done(undefined, answer);
      });
    });
  }

  /** Sends the request and reads the body, tracing both; fails with the stop's reason once the attempt is stopped. */
  async #exchange(
    path: string,
    headers: Record<string, string>,
    operation: Operation<unknown>,
    attempt: number,
    control: Stoppable,
    connection: { current?: Connection },
    trace: Trace,
  ): Promise<{ response: Exchange; body: string; bytes: Buffer }> {
    if (this.#options.debug) {
      this.#debug(`> GET ${trace.url()}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      for (const [name, value] of Object.entries(redactHeaders(headers))) this.#debug(`> ${name}: ${value}`);
    }
    if (control.reason !== undefined) throw control.reason;
    connection.current = await this.#connect();
    const response = await connection.current.send(path, headers, control);
    const bytes = await readBody(response, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, operation);
    const body = bytes.toString('utf8');
    if (this.#options.debug) {
      const correlationId = headerCorrelationId(response.headers);
      this.#debug(
        `< ${response.status} ${response.statusText} in ${trace.elapsed()}, ${body.length} characters, ${describeContentType(response)}${correlationId ? `, correlation ID ${correlationId}` : ''}`,
      );
    }
    return { response, body, bytes };
  }

  /** What a failed attempt means: the server's answer as it was, a timeout, an interrupt as it came, or a network failure named. */
  async #classify(error: unknown, stopped: unknown, operation: Operation<unknown>, connection: Connection | undefined, trace: Trace): Promise<unknown> {
    if (error instanceof GymApiError && stopped === undefined) {
      if (error.status === undefined) this.#debug(`< failed in ${trace.elapsed()}: ${error.message}`);
      return redactError(this.#options.apiKey, error);
    }
    if (stopped === TIMED_OUT) {
      this.#debug(`< timed out after ${trace.timeoutMs} ms`);
      return new GymApiError('unavailable', `${operation.subject}: timed out after ${trace.timeoutMs} ms`, { id: operation.id, cause: error, reason: 'timeout', retryable: true });
    }
    if (stopped !== undefined) return abortedError(stopped, operation.subject, operation.id);
    const failure = await networkError(error, trace.url(), operation, connection?.proxy);
    this.#debug(`< failed in ${trace.elapsed()}: ${failure.message}`);
    return failure;
  }

  /** Aborts what is in flight and lets go of every connection: nothing of this transport keeps the process alive after. */
  async close(): Promise<void> {
    this.#closed.abort(usageError('the client was closed'));
    if (this.#connection) await (await this.#connection).close().catch(() => {});
  }
}
