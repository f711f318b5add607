/**
 * The HTTP transport: with the other files of this folder, the only code
 * that talks to the network. Each attempt sends one GET (see senders.ts),
 * bounded by a deadline from connecting to the last byte; the body is read
 * under a cap and interpreted (response.ts); socket failures get messages
 * (network.ts); retries follow retry.ts. Every step can be traced for
 * --debug, and neither traces nor errors ever hold the key.
 */
import { API_KEY_FORM, DEFAULT_MAX_BODY_BYTES, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRIES, MAX_TIMEOUT_MS } from '../defaults.js';
import { GymApiError } from '../errors.js';
import { isLoopbackHost } from './loopback.js';
import { networkError } from './network.js';
import { ACCEPT_ENCODING, describeContentType, headerCorrelationId, interpret, readBody } from './response.js';
import { withRetries } from './retry.js';
import { openConnection, type Connection } from './senders.js';
import type { ApiResponse, Operation, TransportOptions } from './types.js';

/** Builds a path with every parameter percent-encoded: apiPath`/academies/${id}`. */
export function apiPath(strings: TemplateStringsArray, ...params: Array<string | number | bigint>): string {
  return strings.reduce((path, part, i) => path + part + (i < params.length ? encodeURIComponent(String(params[i])) : ''), '');
}

export function joinUrl(baseUrl: string | URL, path: string): string {
  const base = new URL(baseUrl);
  return base.origin + base.pathname.replace(/\/+$/, '') + path;
}

/** Header names whose values are secrets: shown as [redacted] in traces. */
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value]));
}

/** Checks the options a caller may get wrong, so that a mistake is a usage failure and not a socket error. */
function checkOptions(options: TransportOptions | undefined): asserts options is TransportOptions {
  if (typeof options !== 'object' || options === null) throw new GymApiError('usage', 'createClient needs options: { baseUrl, apiKey }');
  // A key with spaces or controls cannot go in a header, and the error
  // Node would raise for it quotes the value: refuse it here, unquoted.
  if (typeof options.apiKey !== 'string' || !API_KEY_FORM.test(options.apiKey)) {
    throw new GymApiError('usage', 'the API key is missing, empty or contains spaces or control characters (the key is not shown)');
  }
  if (!URL.canParse(options.baseUrl)) throw new GymApiError('usage', `invalid base URL ${JSON.stringify(String(options.baseUrl))}`);
  const base = new URL(options.baseUrl);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new GymApiError('usage', `invalid base URL: its scheme must be https: or http:, not ${base.protocol}`);
  if (base.protocol === 'http:' && !isLoopbackHost(base.hostname) && !options.allowInsecureHttp) {
    throw new GymApiError('usage', `refusing to send the API key over plain http to ${base.host}: use https, or pass allowInsecureHttp: true`);
  }
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) {
    throw new GymApiError('usage', `invalid timeout ${timeout}: expected milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  const retries = options.retries ?? DEFAULT_RETRIES;
  if (!Number.isSafeInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    throw new GymApiError('usage', `invalid retries ${retries}: expected a whole number from 0 to ${MAX_RETRIES}`);
  }
}

export class Transport {
  readonly #options: TransportOptions;
  #connection: Promise<Connection> | undefined;
  /** Aborted by close(): whatever is in flight stops, and no timer outlives the client. */
  readonly #closed = new AbortController();

  constructor(options: TransportOptions) {
    checkOptions(options);
    this.#options = options;
  }

  #connect(): Promise<Connection> {
    this.#connection ??= openConnection(this.#options);
    return this.#connection;
  }

  /** Sends the operation, retrying what is worth retrying (see retry.ts). */
  get<T>(operation: Operation<T>, signal?: AbortSignal): Promise<ApiResponse<T>> {
    const signals = [signal, this.#options.signal, this.#closed.signal].filter((s): s is AbortSignal => s !== undefined);
    const combined = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    return withRetries((attempt) => this.#attempt(operation, combined, attempt), this.#options, combined, (line) => this.#debug(line));
  }

  /** The key, wherever a server echoed it, as [redacted]. */
  #redactText(text: string): string {
    const key = this.#options.apiKey;
    return key.length >= 8 && text.includes(key) ? text.split(key).join('[redacted]') : text;
  }

  /** A server that echoes the key back in its error text does not get it printed. */
  #redact(error: GymApiError): GymApiError {
    const message = this.#redactText(error.message);
    const correlationId = error.correlationId === undefined ? undefined : this.#redactText(error.correlationId);
    if (message === error.message && correlationId === error.correlationId) return error;
    return error.with({ message, correlationId, cause: undefined });
  }

  /** A trace line for the caller's callback; a callback that throws never breaks a request. */
  #debug(line: string): void {
    try {
      this.#options.debug?.(this.#redactText(line));
    } catch {
      // The trace is a courtesy: the request goes on without it.
    }
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
      // A pending deadline never keeps the process alive on its own.
      timer.unref();
    });
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const headers = {
      'X-API-Key': this.#options.apiKey,
      Accept: 'application/json',
      'Accept-Encoding': ACCEPT_ENCODING,
      'User-Agent': this.#options.userAgent ?? 'gymctl',
    };
    const started = Date.now();
    const elapsed = () => `${Date.now() - started} ms`;
    if (this.#options.debug) {
      this.#debug(`> GET ${url}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      for (const [name, value] of Object.entries(redactHeaders(headers))) this.#debug(`> ${name}: ${value}`);
    }
    let connection: Connection | undefined;
    try {
      const exchange = async () => {
        connection = await this.#connect();
        const response = await connection.send(url, headers, controller.signal);
        const maxBytes = this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
        return { response, body: await readBody(response, maxBytes, () => controller.abort(), operation) };
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
          reason: 'timeout',
        });
      }
      if (signal?.aborted) throw signal.reason ?? error;
      const failure = await networkError(error, url, operation, connection?.proxy);
      this.#debug(`< failed in ${elapsed()}: ${failure.message}`);
      throw failure;
    } finally {
      clearTimeout(timer);
      deadline.catch(() => {});
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Aborts what is in flight and lets go of every connection: nothing of this transport keeps the process alive after. */
  async close(): Promise<void> {
    this.#closed.abort(new GymApiError('usage', 'the client was closed'));
    if (this.#connection) await (await this.#connection).close().catch(() => {});
  }
}
