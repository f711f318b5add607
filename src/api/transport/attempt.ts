/** One attempt's parts: the options it is made with, checked; how it is stopped; the headers its trace shows. */
import { API_KEY_FORM, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRIES, MAX_TIMEOUT_MS } from '../defaults.js';
import { baseUrlProblem, schemeProblem } from '../base-url.js';
import { usageError } from '../errors.js';
import type { AttemptControl, RequestOptions, TransportOptions } from './types.js';

/** Checks the options a caller may get wrong, so that a mistake is a usage failure and not a socket error. */
export function checkOptions(options: TransportOptions | undefined): asserts options is TransportOptions {
  if (typeof options !== 'object' || options === null) throw usageError('createClient needs options: { baseUrl, apiKey }');
  // A key with spaces or controls cannot go in a header, and Node's error for it quotes the value: refused here, unquoted.
  if (typeof options.apiKey !== 'string' || !API_KEY_FORM.test(options.apiKey)) {
    throw usageError('the API key is missing, empty or contains spaces or control characters (the key is not shown)');
  }
  if (!URL.canParse(options.baseUrl)) throw usageError(`invalid base URL ${JSON.stringify(String(options.baseUrl))}`);
  const problem = baseUrlProblem(new URL(options.baseUrl), Boolean(options.allowInsecureHttp));
  if (problem && 'scheme' in problem) throw usageError(`invalid base URL: ${schemeProblem(problem.scheme)}`);
  if (problem) throw usageError(`refusing to send the API key over plain http to ${problem.insecureHost}: use https, or pass allowInsecureHttp: true`);
  checkLimits(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.retries ?? DEFAULT_RETRIES);
  if (options.defaultHeaders !== undefined) checkHeaders(options.defaultHeaders, 'defaultHeaders');
}

const isWholeIn = (value: unknown, min: number, max: number) => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;

function checkLimits(timeout: unknown, retries: unknown): void {
  if (!isWholeIn(timeout, 1, MAX_TIMEOUT_MS)) throw usageError(`invalid timeout ${String(timeout)}: expected milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  if (!isWholeIn(retries, 0, MAX_RETRIES)) throw usageError(`invalid retries ${String(retries)}: expected a whole number from 0 to ${MAX_RETRIES}`);
}

/** Checks one call's options as the client's are checked. */
export function checkRequestOptions(options: RequestOptions): void {
  if (typeof options !== 'object' || options === null) throw usageError('request options must be an object: { signal, timeoutMs, retries, headers }');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw usageError('the signal option must be an AbortSignal');
  checkLimits(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.retries ?? DEFAULT_RETRIES);
  if (options.headers !== undefined) checkHeaders(options.headers, 'headers');
}

/** Headers a caller may not set: the key is always the client's, and the rest are the transport's (it decodes only what it asks for). */
const RESERVED_HEADERS = new Set(['x-api-key', 'accept-encoding', 'host', 'connection', 'content-length', 'transfer-encoding']);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Checks headers a caller adds: names and values HTTP allows (a bad value is not quoted: it may be a secret), none reserved. */
function checkHeaders(headers: unknown, option: string): void {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) throw usageError(`${option} must be an object of header names and values`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw usageError(`${option}: invalid header name ${JSON.stringify(name)}`);
    const lower = name.toLowerCase();
    if (lower === 'x-api-key') throw usageError(`${option} cannot set ${name}: the key sent is always the client's apiKey`);
    if (RESERVED_HEADERS.has(lower)) throw usageError(`${option} cannot set ${name}: the client sets it itself`);
    if (typeof value !== 'string' || !HEADER_VALUE.test(value))
      throw usageError(`${option}: the value of ${name} must be a string without line breaks or control characters (it is not shown)`);
  }
}

/** `extra` over `base`, a name in any case replacing the same name in `base`. */
export function mergeHeaders(base: Readonly<Record<string, string>>, extra: Readonly<Record<string, string>> | undefined): Record<string, string> {
  if (!extra) return { ...base };
  const names = new Set(Object.keys(extra).map((name) => name.toLowerCase()));
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (!names.has(name.toLowerCase())) merged[name] = value;
  return Object.assign(merged, extra);
}

/** Why an attempt was stopped by its deadline. */
export const TIMED_OUT = Symbol('timed out');

/** Header names whose values are secrets: shown as [redacted] in traces. */
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value]));
}

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
