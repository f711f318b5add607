/**
 * One call's settings: the client's (timeout, retry policy, headers with
 * the key), with what the call's own options change, checked as the
 * client's are. A call with no options, or only a signal (as the CLI
 * passes), shares the client's and allocates nothing more.
 */
import { DEFAULT_TIMEOUT_MS } from '../defaults.js';
import { checkRequestOptions, mergeHeaders } from './attempt.js';
import { ACCEPT_ENCODING } from './response.js';
import type { RetryPolicy } from './retry.js';
import type { RequestOptions, TransportOptions } from './types.js';

export interface Call {
  signal: AbortSignal | undefined;
  timeoutMs: number;
  policy: RetryPolicy;
  headers: Record<string, string>;
}

/** The settings of a call with no options of its own (the client's options already checked). */
export function plainCall(options: TransportOptions): Call {
  const headers = mergeHeaders({ Accept: 'application/json', 'Accept-Encoding': ACCEPT_ENCODING, 'User-Agent': options.userAgent ?? 'gymctl' }, options.defaultHeaders);
  return { signal: undefined, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, policy: options, headers: { ...headers, 'X-API-Key': options.apiKey } };
}

/** A call's settings: `plain`, with the call's own signal, timeout, retries and headers; the key sent is always `apiKey`. */
export function callOf(plain: Call, options: RequestOptions | AbortSignal | undefined, apiKey: string): Call {
  if (options === undefined) return plain;
  if (options instanceof AbortSignal) return { ...plain, signal: options };
  checkRequestOptions(options);
  return {
    signal: options.signal,
    timeoutMs: options.timeoutMs ?? plain.timeoutMs,
    policy: options.retries === undefined ? plain.policy : { ...plain.policy, retries: options.retries },
    headers: options.headers ? { ...mergeHeaders(plain.headers, options.headers), 'X-API-Key': apiKey } : plain.headers,
  };
}
