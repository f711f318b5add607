/** One call's settings, the client's options with the call's own over them, each checked; how its attempts are stopped. */
import { API_KEY_FORM, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRIES, MAX_TIMEOUT_MS } from '../defaults.js';
import { baseUrlProblem, schemeProblem } from '../base-url.js';
import { usageError } from '../errors.js';
import { ACCEPT_ENCODING } from './response.js';
import type { RetryPolicy } from './retry.js';
import type { AttemptControl, RequestOptions, TransportOptions } from './types.js';

export interface Call {
  signal: AbortSignal | undefined;
  timeoutMs: number;
  policy: RetryPolicy;
  headers: Record<string, string>;
}

/** The settings of a call with no options of its own, from the client's, checked: a mistake is a usage failure, not a socket error. */
export function plainCall(options: TransportOptions): Call {
  if (typeof options !== 'object' || options === null) throw usageError('createClient needs options: { baseUrl, apiKey }');
  // A key with spaces or controls cannot go in a header, and Node's error for it quotes the value: refused here, unquoted.
  if (typeof options.apiKey !== 'string' || !API_KEY_FORM.test(options.apiKey)) {
    throw usageError('the API key is missing, empty or contains spaces or control characters (the key is not shown)');
  }
  if (!URL.canParse(options.baseUrl)) throw usageError(`invalid base URL ${JSON.stringify(String(options.baseUrl))}`);
  const problem = baseUrlProblem(new URL(options.baseUrl), Boolean(options.allowInsecureHttp));
  if (problem && 'scheme' in problem) throw usageError(`invalid base URL: ${schemeProblem(problem.scheme)}`);
  if (problem) throw usageError(`refusing to send the API key over plain http to ${problem.insecureHost}: use https, or pass allowInsecureHttp: true`);
  const own = { Accept: 'application/json', 'Accept-Encoding': ACCEPT_ENCODING, 'User-Agent': options.userAgent ?? 'gymctl' };
  const plain = over({ signal: undefined, timeoutMs: DEFAULT_TIMEOUT_MS, policy: options, headers: own }, options.timeoutMs, options.defaultHeaders, 'defaultHeaders');
  return { ...plain, headers: { ...plain.headers, 'X-API-Key': options.apiKey } };
}

/** A call's settings: `plain`, with the call's own signal, timeout, retries and headers (the key sent stays the client's). */
export function callOf(plain: Call, options: RequestOptions | AbortSignal | undefined): Call {
  if (options === undefined) return plain;
  if (options instanceof AbortSignal) return { ...plain, signal: options };
  if (typeof options !== 'object' || options === null) throw usageError('request options must be an object: { signal, timeoutMs, retries, headers }');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw usageError('the signal option must be an AbortSignal');
  const policy = options.retries === undefined ? plain.policy : { ...plain.policy, retries: options.retries };
  return { ...over({ ...plain, policy }, options.timeoutMs, options.headers, 'headers'), signal: options.signal };
}

const isWholeIn = (value: unknown, min: number, max: number) => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;

/** Headers a caller may not set: the key is always the client's, and the rest are the transport's (it decodes only what it asks for). */
const RESERVED_HEADERS = new Set(['accept-encoding', 'host', 'connection', 'content-length', 'transfer-encoding']);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * `base` with a timeout and headers over it, a name in any case replacing the same name in `base`. The timeout, the retries and the headers
 * (named as `option`) are checked: names and values HTTP allows (a bad value is not quoted: it may be a secret), none reserved.
 */
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

/** Why an attempt was stopped by its deadline. */
export const TIMED_OUT = Symbol('timed out');

/** One attempt's AttemptControl: stopped once, for one reason (TIMED_OUT, or an abort's); the sender's stop is called then, or at once if it comes late. */
export class Stoppable implements AttemptControl {
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
