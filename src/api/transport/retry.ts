/** The retry policy: Retry-After within a bound, else exponential backoff with jitter. Every operation is a GET, so retrying is safe. */
import { DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_RETRIES, DEFAULT_RETRY_BASE_DELAY_MS } from '../defaults.js';
import { GymctlError } from '../errors.js';
import type { ClientOptions } from './types.js';

/** A status worth another attempt, as openai-node retries: 408 Request Timeout, 429 Too Many Requests, and every 5xx. */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || (status >= 500 && status <= 599);

export const RETRYABLE_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** IMF-fixdate, RFC 850's form, asctime's form. */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \\d{2}-${MONTH}-\\d{2} ${TIME} GMT|${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4})$`,
);

/** Retry-After as milliseconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  // Only HTTP's three date forms (RFC 9110 §5.6.7): JavaScript's parser alone reads `-1`, `1.5` or `abc 1` as dates.
  if (!HTTP_DATE.test(text)) return undefined;
  // asctime's form names no zone, and HTTP's dates are all GMT: not the machine's zone.
  const date = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const describeWait = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);

export function sleep(ms: number, signals: AbortSignal | ReadonlyArray<AbortSignal | undefined> = []): Promise<void> {
  const list = (Array.isArray(signals) ? signals : [signals]).filter((s): s is AbortSignal => s !== undefined);
  return new Promise((resolve, reject) => {
    const done = list.find((s) => s.aborted);
    if (done) return reject(done.reason);
    const onAbort = function (this: AbortSignal) {
      clearTimeout(timer);
      for (const s of list) s.removeEventListener('abort', onAbort);
      reject(this.reason);
    };
    const timer = setTimeout(() => {
      for (const s of list) s.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    for (const s of list) s.addEventListener('abort', onAbort, { once: true });
  });
}

export type RetryPolicy = Pick<ClientOptions, 'retries' | 'retryBaseDelayMs' | 'maxRetryAfterMs'>;

/** Runs `attempt` until it succeeds or fails for good; a Retry-After past the bound fails at once, saying when to come back. */
export async function withRetries<R>(
  attempt: (number: number) => Promise<R>,
  policy: RetryPolicy,
  signals: ReadonlyArray<AbortSignal | undefined>,
  trace: (line: string) => void,
  aborted: (reason: unknown) => unknown = (reason) => reason,
): Promise<R> {
  const retries = policy.retries ?? DEFAULT_RETRIES;
  const maxWait = policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  for (let number = 1; ; number++) {
    try {
      return await attempt(number);
    } catch (error) {
      if (!(error instanceof GymctlError) || !error.retryable || signals.some((s) => s?.aborted)) throw error;
      const { retryAfterMs } = error;
      if (retryAfterMs !== undefined && retryAfterMs > maxWait) {
        const when = new Date(Date.now() + retryAfterMs);
        const again = Number.isNaN(when.getTime()) ? 'much later' : `after ${when.toISOString()}`;
        throw error.with({
          message: `${error.message}; the server asks to wait ${describeWait(retryAfterMs)}, longer than gymctl waits (${describeWait(maxWait)}): try again ${again}`,
        });
      }
      if (number > retries) throw number > 1 ? error.with({ message: `${error.message}; gave up after ${number} attempts` }) : error;
      const base = policy.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
      const wait = retryAfterMs ?? Math.round(base * 2 ** (number - 1) * (0.5 + Math.random() / 2));
      trace(`retrying in ${wait} ms (attempt ${number + 1} of ${retries + 1}): ${error.message}`);
      await sleep(wait, signals).catch((reason: unknown) => {
        throw aborted(reason);
      });
    }
  }
}
