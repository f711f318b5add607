/** One attempt's parts: the options it is made with, checked; how it is stopped; what its trace says. */
import { API_KEY_FORM, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRIES, MAX_TIMEOUT_MS } from '../defaults.js';
import { baseUrlProblem, schemeProblem } from '../base-url.js';
import { usageError } from '../errors.js';
import type { AttemptControl, TransportOptions } from './types.js';

/** Checks the options a caller may get wrong, so that a mistake is a usage failure and not a socket error. */
export function checkOptions(options: TransportOptions | undefined): asserts options is TransportOptions {
  if (typeof options !== 'object' || options === null) throw usageError('createClient needs options: { baseUrl, apiKey }');
  // A key with spaces or controls cannot go in a header, and the error
  // Node would raise for it quotes the value: refuse it here, unquoted.
  if (typeof options.apiKey !== 'string' || !API_KEY_FORM.test(options.apiKey)) {
    throw usageError('the API key is missing, empty or contains spaces or control characters (the key is not shown)');
  }
  if (!URL.canParse(options.baseUrl)) throw usageError(`invalid base URL ${JSON.stringify(String(options.baseUrl))}`);
  const problem = baseUrlProblem(new URL(options.baseUrl), Boolean(options.allowInsecureHttp));
  if (problem && 'scheme' in problem) throw usageError(`invalid base URL: ${schemeProblem(problem.scheme)}`);
  if (problem) throw usageError(`refusing to send the API key over plain http to ${problem.insecureHost}: use https, or pass allowInsecureHttp: true`);
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) {
    throw usageError(`invalid timeout ${timeout}: expected milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  const retries = options.retries ?? DEFAULT_RETRIES;
  if (!Number.isSafeInteger(retries) || retries < 0 || retries > MAX_RETRIES) {
    throw usageError(`invalid retries ${retries}: expected a whole number from 0 to ${MAX_RETRIES}`);
  }
}

/** Why an attempt was stopped before it finished. */
export const TIMED_OUT = Symbol('timed out');

/** What the trace lines and messages of one attempt say. */
export interface Trace {
  url(): string;
  elapsed(): string;
  timeoutMs: number;
}

/** Header names whose values are secrets: shown as [redacted] in traces. */
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value]));
}

/** One attempt's AttemptControl: stopped once, for one reason; the sender's way to stop its request is called then (or at once, if it comes late). */
export class Stoppable implements AttemptControl {
  /** Why the attempt was stopped (TIMED_OUT, or the abort's reason), once it is. */
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
