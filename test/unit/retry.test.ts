/**
 * The retry policy on its own: which failures are retried, how long each wait is (Retry-After within its bound,
 * else exponential back-off with jitter), and that an aborted run never waits or retries. Timers are faked, so a
 * wait is checked to the millisecond without being slept.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GymApiError, GymctlError } from '../../src/api/errors.js';
import { networkError } from '../../src/api/transport/network.js';
import { isRetryableStatus, parseRetryAfter, type RetryPolicy, sleep, withRetries } from '../../src/api/transport/retry.js';

const NOW = Date.UTC(2026, 0, 1);

/** The promises under test that have not settled yet. */
const unsettled = new Set<Promise<unknown>>();

function track<T>(promise: Promise<T>): Promise<T> {
  unsettled.add(promise);
  const done = () => unsettled.delete(promise);
  promise.then(done, done);
  return promise;
}

/** Runs every timer due: a promise under test still pending after that never settles, and fails the test now rather than hang it. */
async function settle(): Promise<void> {
  await vi.runAllTimersAsync();
  expect(unsettled.size, 'a promise under test is still pending with no timer left to run').toBe(0);
}

beforeEach(() => {
  vi.useFakeTimers({ now: NOW });
  unsettled.clear();
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const unavailable = (message = 'down', retryAfterMs?: number) => new GymApiError('unavailable', message, { retryable: true, retryAfterMs });

/** withRetries over attempts that fail with `failures` in turn, then succeed; what it traced and when each attempt ran. */
function run(failures: unknown[], policy: RetryPolicy, signals: Array<AbortSignal | undefined> = []) {
  const trace: string[] = [];
  const attempts: number[] = [];
  const started = Date.now();
  const result = withRetries(
    async (number) => {
      attempts.push(Date.now() - started);
      expect(number).toBe(attempts.length);
      const failure = failures[number - 1];
      if (failure) throw failure;
      return `answer ${number}`;
    },
    policy,
    signals,
    (line) => trace.push(line),
  );
  result.catch(() => {});
  return { result: track(result), trace, attempts };
}

describe('withRetries', () => {
  it('returns the first answer, after one attempt', async () => {
    const { result, attempts, trace } = run([], {});
    await settle();
    await expect(result).resolves.toBe('answer 1');
    expect(attempts).toEqual([0]);
    expect(trace).toEqual([]);
  });

  it('backs off exponentially, each wait between half and all of base × 2^(attempt−1), and really waits it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const low = run([unavailable('a'), unavailable('b')], { retries: 2, retryBaseDelayMs: 100 });
    await vi.advanceTimersByTimeAsync(49);
    expect(low.attempts).toEqual([0]);
    await settle();
    await expect(low.result).resolves.toBe('answer 3');
    expect(low.attempts).toEqual([0, 50, 150]);
    expect(low.trace).toEqual(['retrying in 50 ms (attempt 2 of 3): a', 'retrying in 100 ms (attempt 3 of 3): b']);

    vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
    const high = run([unavailable('a'), unavailable('b'), unavailable('c')], { retries: 3, retryBaseDelayMs: 100 });
    await settle();
    await expect(high.result).resolves.toBe('answer 4');
    expect(high.attempts).toEqual([0, 100, 300, 700]);
    expect(high.trace.map((line) => line.split(':')[0])).toEqual([
      'retrying in 100 ms (attempt 2 of 4)',
      'retrying in 200 ms (attempt 3 of 4)',
      'retrying in 400 ms (attempt 4 of 4)',
    ]);
  });

  it('rounds the jittered wait to whole milliseconds', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const { result, trace, attempts } = run([unavailable()], { retries: 1, retryBaseDelayMs: 3 });
    await settle();
    await expect(result).resolves.toBe('answer 2');
    // 3 × 0.75 = 2.25 ms
    expect(trace[0]).toMatch(/^retrying in 2 ms /);
    expect(attempts).toEqual([0, 2]);
  });

  it('by default makes three attempts in all, the first wait from 125 to 250 ms', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { result, attempts } = run([unavailable(), unavailable(), unavailable('last')], {});
    await settle();
    await expect(result).rejects.toThrow('last; gave up after 3 attempts');
    expect(attempts).toEqual([0, 125, 375]);
  });

  it('waits as long as Retry-After says, up to and including the bound, instead of backing off', async () => {
    const { result, trace, attempts } = run([unavailable('slow', 1000)], { retries: 1, retryBaseDelayMs: 5, maxRetryAfterMs: 1000 });
    await settle();
    await expect(result).resolves.toBe('answer 2');
    expect(trace).toEqual(['retrying in 1000 ms (attempt 2 of 2): slow']);
    expect(attempts).toEqual([0, 1000]);

    const zero = run([unavailable('now', 0)], { retries: 1, retryBaseDelayMs: 5000 });
    await settle();
    await expect(zero.result).resolves.toBe('answer 2');
    expect(zero.attempts).toEqual([0, 0]);
  });

  it('by default waits a Retry-After of up to 20 s, and not one more millisecond', async () => {
    const within = run([unavailable('x', 20_000)], { retries: 1 });
    await settle();
    await expect(within.result).resolves.toBe('answer 2');
    const beyond = run([unavailable('x', 20_001)], { retries: 1 });
    await settle();
    await expect(beyond.result).rejects.toThrow('longer than gymctl waits (20 s)');
    expect(beyond.attempts).toEqual([0]);
  });

  it('fails at once on a Retry-After beyond the bound, saying how long, the bound, and when to come back', async () => {
    const error = unavailable('rate limited', 1500);
    const { result, trace, attempts } = run([error], { retries: 3, maxRetryAfterMs: 1000 });
    await settle();
    const thrown = await result.catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(GymApiError);
    expect((thrown as GymApiError).kind).toBe('unavailable');
    expect((thrown as GymApiError).message).toBe(
      `rate limited; the server asks to wait 1.5 s, longer than gymctl waits (1 s): try again after ${new Date(NOW + 1500).toISOString()}`,
    );
    expect(attempts).toEqual([0]);
    expect(trace).toEqual([]);

    const hours = run([unavailable('x', 7_200_000)], { maxRetryAfterMs: 20_500 });
    await settle();
    await expect(hours.result).rejects.toThrow(`the server asks to wait 7200 s, longer than gymctl waits (20.5 s): try again after ${new Date(NOW + 7_200_000).toISOString()}`);

    const odd = run([unavailable('x', 1234)], { maxRetryAfterMs: 1000 });
    await settle();
    await expect(odd.result).rejects.toThrow('the server asks to wait 1.2 s, longer than gymctl waits (1 s)');

    // Too far off to be a date.
    const never = run([unavailable('x', 1e20)], {});
    await settle();
    await expect(never.result).rejects.toThrow(/: try again much later$/);
  });

  it('gives up after the last retry, saying after how many attempts; with no retries, the error is the one thrown', async () => {
    const { result, attempts } = run([unavailable('a'), unavailable('b')], { retries: 1, retryBaseDelayMs: 1 });
    await settle();
    await expect(result).rejects.toThrow(/^b; gave up after 2 attempts$/);
    expect(attempts).toHaveLength(2);

    const error = unavailable('only');
    const once = run([error], { retries: 0 });
    await settle();
    expect(await once.result.catch((caught: unknown) => caught)).toBe(error);
  });

  it.each([
    ['a TypeError', new TypeError('bug')],
    ['a failure not worth retrying', new GymApiError('not_found', 'gone')],
    ['a failure whose kind is retried elsewhere but not this one', new GymctlError('unavailable', 'no', { retryable: false })],
  ])('does not retry %s', async (_name, error) => {
    const { result, attempts } = run([error], { retries: 3, retryBaseDelayMs: 1 });
    await settle();
    expect(await result.catch((caught: unknown) => caught)).toBe(error);
    expect(attempts).toHaveLength(1);
  });

  it('does not retry once any of its signals has aborted, whichever it is', async () => {
    for (const signals of [[AbortSignal.abort()], [new AbortController().signal, AbortSignal.abort()], [undefined, AbortSignal.abort(), new AbortController().signal]]) {
      const error = unavailable();
      const { result, attempts } = run([error], { retries: 3, retryBaseDelayMs: 1 }, signals);
      await settle();
      expect(await result.catch((caught: unknown) => caught)).toBe(error);
      expect(attempts).toHaveLength(1);
    }
  });

  it('retries while none has aborted, and stops waiting when one does', async () => {
    const controller = new AbortController();
    const { result, attempts } = run([unavailable(), unavailable()], { retries: 2, retryBaseDelayMs: 1000 }, [undefined, new AbortController().signal, controller.signal]);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error('interrupted'));
    expect(vi.getTimerCount()).toBe(0);
    await settle();
    await expect(result).rejects.toThrow('interrupted');
    expect(attempts).toEqual([0]);
  });
});

describe('withRetries, aborted while it waits', () => {
  it('rejects with the abort reason itself when no mapper is given, and with the mapper’s answer when one is', async () => {
    const reason = new Error('stop');
    for (const mapper of [undefined, (r: unknown) => ({ mapped: r })]) {
      const controller = new AbortController();
      const result = withRetries(
        async () => {
          throw unavailable();
        },
        { retries: 1, retryBaseDelayMs: 1000 },
        [controller.signal],
        () => {},
        mapper,
      );
      const caught = result.catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(10);
      controller.abort(reason);
      const error = await caught;
      if (mapper) expect(error).toEqual({ mapped: reason });
      else expect(error).toBe(reason);
    }
  });
});

describe('sleep', () => {
  it('waits the time given, then leaves no listener behind', async () => {
    const signal = new AbortController().signal;
    let done = false;
    const waiting = track(sleep(100, [signal, undefined])).then(() => {
      done = true;
    });
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    await waiting;
    expect(done).toBe(true);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('takes one signal as well as a list, and none', async () => {
    const controller = new AbortController();
    const one = track(sleep(1000, controller.signal));
    one.catch(() => {});
    controller.abort(new Error('stop'));
    expect(vi.getTimerCount()).toBe(0);
    await settle();
    await expect(one).rejects.toThrow('stop');
    const none = track(sleep(5));
    await vi.advanceTimersByTimeAsync(5);
    await settle();
    await expect(none).resolves.toBeUndefined();
  });

  it('rejects at once with the reason of a signal already aborted, without a timer', async () => {
    const reason = new Error('already');
    const waiting = track(sleep(1000, [new AbortController().signal, AbortSignal.abort(reason)]));
    waiting.catch(() => {});
    expect(vi.getTimerCount()).toBe(0);
    await settle();
    await expect(waiting).rejects.toBe(reason);
  });

  it('rejects with the reason of the signal that aborts, clears its timer and its listeners on every signal', async () => {
    const first = new AbortController();
    const second = new AbortController();
    const waiting = track(sleep(1000, [first.signal, second.signal]));
    waiting.catch(() => {});
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('second');
    second.abort(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(first.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(second.signal, 'abort')).toHaveLength(0);
    await settle();
    await expect(waiting).rejects.toBe(reason);
  });
});

describe('what is worth retrying', () => {
  // As openai-node: 408, 429 and every 5xx (every operation is a GET, so another attempt is always safe).
  it.each([408, 429, 500, 501, 502, 503, 504, 505, 599])('status %d', (status) => {
    expect(isRetryableStatus(status)).toBe(true);
  });

  it.each([200, 304, 400, 401, 403, 404, 407, 409, 422, 499, 600])('not status %d', (status) => {
    expect(isRetryableStatus(status)).toBe(false);
  });

  const operation = { path: '/me', subject: 'GET /me' };
  const socketError = (code: string) => networkError(Object.assign(new Error(`socket ${code}`), { code }), 'https://api.example.com/me', operation);

  it.each(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])('a socket failure %s', async (code) => {
    const error = await socketError(code);
    expect(error.kind).toBe('unavailable');
    expect(error.retryable).toBe(true);
  });

  it.each(['ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EACCES', 'ECONNRESETX'])('not a socket failure %s', async (code) => {
    expect((await socketError(code)).retryable).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds, with white space around them', () => {
    expect(parseRetryAfter('3', NOW)).toBe(3000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
  });

  it('reads an HTTP date as the time from now, never less than none', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', NOW)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT')).toBe(10_000);
    // RFC 850's and asctime's forms, which a recipient must still read.
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:10 GMT', NOW)).toBe(10_000);
    expect(parseRetryAfter('Thu Jan  1 00:00:10 2026', NOW)).toBe(10_000);
  });

  // Negative and fractional seconds are no delay-seconds, nor dates (JavaScript's parser reads them as 2001).
  it.each([null, undefined, '', '   ', 'soon', '3s', 'x3', '3 s', '-1', '1.5', '2026-01-01', '+5', 'abc 1', 'foo 99999', 'Thu 1'])('%j is nothing', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
