/**
 * The request loop (src/api/transport/loop.ts) as a library user meets it: createClient's options and each call's
 * checked, with the message a mistake gets; the headers sent; each attempt's deadline, and what stops it; close(); the
 * debug trace; the cache. Most tests send through a fetch of their own (the `fetch` option), which answers as each test
 * says, on fake timers where a deadline or a wait is in play; the default sender meets a server on 127.0.0.1 where a
 * socket matters.
 */
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ClientOptions, createClient, operations } from '../../src/api/client.js';
import { GymApiError, type ResponseHead } from '../../src/api/errors.js';
import { ACCEPT_ENCODING } from '../../src/api/transport/response.js';
import type { FetchLike, ResponseCache } from '../../src/api/transport/types.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { failure, usage } from '../helpers/failures.js';

const BASE = 'https://api.gym.test';
const KEY = 'test_key_0123456789abcdef';
const NOW = Date.UTC(2026, 0, 1);
const academy = DEMO_DATA.academies[0]!;
const academyBody = JSON.stringify({ data: academy });

/** What the fake fetch answers a request with: a response (after `delayMs` of the clock), a network failure, or nothing ever. */
type Reply = { status: number; statusText?: string; body?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string>; delayMs?: number } | Error | 'never';

interface Sent {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** A fetch that answers the nth request with `reply(n)`, keeping what each was sent; aborting its signal fails it with the signal's reason, as fetch does. */
function fakeFetch(reply: (count: number) => Reply) {
  const sent: Sent[] = [];
  const fetch: FetchLike = (url, init) => {
    const signal = init.signal as AbortSignal;
    sent.push({ url, headers: init.headers as Record<string, string>, signal });
    const answer = reply(sent.length);
    return new Promise<Response>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      if (answer === 'never') return;
      if (answer instanceof Error) return reject(answer);
      const respond = () => resolve(new Response(answer.body ?? null, { status: answer.status, statusText: answer.statusText ?? '', headers: answer.headers }));
      if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
    });
  };
  return { fetch, sent };
}

const json = { 'content-type': 'application/json' };
const ok = (body: string | Uint8Array<ArrayBuffer> = academyBody, extra: Partial<Exclude<Reply, Error | 'never'>> = {}): Reply => ({
  status: 200,
  statusText: 'OK',
  body,
  headers: json,
  ...extra,
});

/** A client that sends through `fetch`, with no retries unless a test asks. */
const clientOf = (fetch: FetchLike, options: Partial<ClientOptions> = {}) =>
  createClient({ baseUrl: BASE, apiKey: KEY, userAgent: 'gymctl/test', retries: 0, retryBaseDelayMs: 8, fetch, ...options });

/** Whether `promise` has settled, and how: read after the pending callbacks and one turn of the event loop have run. */
function watch<T>(promise: Promise<T>) {
  let state: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => (state = { value }),
    (error: unknown) => (state = { error }),
  );
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return state;
  };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Fake timers and clock: the attempt's deadline, the waits between attempts and the times traced run on them. */
const fakeClock = () => vi.useFakeTimers({ now: NOW, toFake: ['setTimeout', 'clearTimeout', 'Date'] });

describe("createClient's options", () => {
  it('none, or not an object, is a usage failure that says what createClient needs, not a TypeError', () => {
    for (const options of [undefined, null, 'https://api.gym.test']) {
      expect(usage(() => createClient(options as never)).message, String(options)).toBe('createClient needs options: { baseUrl, apiKey }');
    }
  });

  it('a missing key, or one that cannot be a header, says what is wrong without showing it', () => {
    for (const apiKey of [undefined, '', 'has space']) {
      expect(usage(() => createClient({ baseUrl: BASE, apiKey } as never)).message).toBe(
        'the API key is missing, empty or contains spaces or control characters (the key is not shown)',
      );
    }
  });

  it('a base URL that is not a URL is quoted; one of another scheme names the schemes it takes', () => {
    expect(usage(() => createClient({ baseUrl: 'not a url', apiKey: KEY })).message).toBe('invalid base URL "not a url"');
    expect(usage(() => createClient({ baseUrl: 'ftp://api.gym.test', apiKey: KEY })).message).toBe('invalid base URL: its scheme must be https: or http:, not ftp:');
    expect(usage(() => createClient({ baseUrl: 'http://api.gym.test', apiKey: KEY })).message).toBe(
      'refusing to send the API key over plain http to api.gym.test: use https, or pass allowInsecureHttp: true',
    );
  });

  it('takes the longest timeout Node can set and the most retries, and refuses one more, or a negative timeout that would never time out', () => {
    expect(() => createClient({ baseUrl: BASE, apiKey: KEY, timeoutMs: 2_147_483_647, retries: 10 })).not.toThrow();
    expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, timeoutMs: 2_147_483_648 })).message).toBe(
      'invalid timeout 2147483648: expected milliseconds from 1 to 2147483647',
    );
    expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, timeoutMs: -5 })).message).toBe('invalid timeout -5: expected milliseconds from 1 to 2147483647');
    expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, retries: 11 })).message).toBe('invalid retries 11: expected a whole number from 0 to 10');
  });

  it('a body cap, a connection limit or a retry wait out of range is refused by its name, instead of every request timing out or every answer refused', () => {
    const cases: [string, unknown, string][] = [
      ['maxConnections', -1, 'invalid maxConnections -1: expected a whole number from 1 to 1024'],
      ['maxConnections', 0, 'invalid maxConnections 0: expected a whole number from 1 to 1024'],
      ['maxConnections', 'x', 'invalid maxConnections x: expected a whole number from 1 to 1024'],
      ['maxConnections', 1025, 'invalid maxConnections 1025: expected a whole number from 1 to 1024'],
      ['maxBodyBytes', 0, 'invalid maxBodyBytes 0: expected bytes from 1 to 2147483647'],
      ['maxBodyBytes', 1.5, 'invalid maxBodyBytes 1.5: expected bytes from 1 to 2147483647'],
      ['maxBodyBytes', 2 ** 31, 'invalid maxBodyBytes 2147483648: expected bytes from 1 to 2147483647'],
      ['retryBaseDelayMs', -1, 'invalid retryBaseDelayMs -1: expected milliseconds from 0 to 2147483647'],
      ['retryBaseDelayMs', Number.NaN, 'invalid retryBaseDelayMs NaN: expected milliseconds from 0 to 2147483647'],
      ['maxRetryAfterMs', 2 ** 31, 'invalid maxRetryAfterMs 2147483648: expected milliseconds from 0 to 2147483647'],
    ];
    for (const [name, value, message] of cases) {
      expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, [name]: value } as never)).message, `${name} ${String(value)}`).toBe(message);
    }
    const edges = { maxConnections: 1024, maxBodyBytes: 1, retryBaseDelayMs: 0, maxRetryAfterMs: 0 };
    expect(() => createClient({ baseUrl: BASE, apiKey: KEY, ...edges })).not.toThrow();
    expect(() =>
      createClient({ baseUrl: BASE, apiKey: KEY, maxConnections: 1, maxBodyBytes: 2 ** 31 - 1, retryBaseDelayMs: 2 ** 31 - 1, maxRetryAfterMs: 2 ** 31 - 1 }),
    ).not.toThrow();
  });

  it('an env whose proxy variable is not a string is refused by its name, not failed at the first request with a TypeError', () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) {
      expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, env: { [name]: 3128 } } as never)).message).toBe(`env.${name} must be a string`);
    }
    for (const env of ['HTTPS_PROXY=x', null]) {
      expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, env } as never)).message, String(env)).toBe(
        'env must be an object of environment variables, as process.env is',
      );
    }
    expect(() => createClient({ baseUrl: BASE, apiKey: KEY, env: { HTTPS_PROXY: undefined, HOME: '/home/a', OTHER: 1 } as never })).not.toThrow();
  });

  it('defaultHeaders that are not an object of names and values are refused, by that name', () => {
    for (const defaultHeaders of ['X-Team: blue', null, ['X-Team']]) {
      expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, defaultHeaders } as never)).message, JSON.stringify(defaultHeaders)).toBe(
        'defaultHeaders must be an object of header names and values',
      );
    }
  });

  it('defaultHeaders cannot set the key, nor a header the client sets itself, in any case', () => {
    expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, defaultHeaders: { 'x-api-key': 'other' } })).message).toBe(
      "defaultHeaders cannot set x-api-key: the key sent is always the client's apiKey",
    );
    for (const name of ['Accept-Encoding', 'host', 'Connection', 'content-length', 'Transfer-Encoding']) {
      expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, defaultHeaders: { [name]: 'x' } })).message).toBe(
        `defaultHeaders cannot set ${name}: the client sets it itself`,
      );
    }
  });

  it('a header name that cannot be sent is named; a value that cannot (a line break, or not text) is not shown', () => {
    expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, defaultHeaders: { 'bad name': 'x' } })).message).toBe('defaultHeaders: invalid header name "bad name"');
    for (const value of ['line\r\nX-Injected: 1', 5]) {
      expect(usage(() => createClient({ baseUrl: BASE, apiKey: KEY, defaultHeaders: { 'X-Note': value } } as never)).message).toBe(
        'defaultHeaders: the value of X-Note must be a string without line breaks or control characters (it is not shown)',
      );
    }
  });
});

describe("each call's options", () => {
  it('options that are not an object are refused before anything is sent', async () => {
    const { fetch, sent } = fakeFetch(() => ok());
    const client = clientOf(fetch);
    for (const options of [null, 5, 'fast']) {
      const error = await failure(client.getAcademy(1, options as never));
      expect({ kind: error.kind, message: error.message }).toEqual({ kind: 'usage', message: 'request options must be an object: { signal, timeoutMs, retries, headers }' });
    }
    const error = await failure(client.getAcademy(1, { signal: { aborted: false } } as never));
    expect({ kind: error.kind, message: error.message }).toEqual({ kind: 'usage', message: 'the signal option must be an AbortSignal' });
    for (const headers of ['X-Trace: 1', null, ['X-Trace']]) {
      const refused = await failure(client.getAcademy(1, { headers } as never));
      expect({ kind: refused.kind, message: refused.message }).toEqual({ kind: 'usage', message: 'headers must be an object of header names and values' });
    }
    expect(sent).toHaveLength(0);
  });

  it('a call that sets its timeout or headers alone keeps the client’s retries', async () => {
    const { fetch, sent } = fakeFetch(() => ({ status: 503, body: '{"message":"down"}', headers: json }));
    const client = clientOf(fetch, { retries: 0 });
    for (const options of [{ timeoutMs: 5_000 }, { headers: { 'X-Trace': 'one' } }]) {
      const error = await failure(client.getAcademy(1, options));
      expect(error.status).toBe(503);
    }
    // One attempt each: the default budget (2 retries) would have made three.
    expect(sent).toHaveLength(2);
  });

  it('sends one header of each name: a call’s replaces the client’s, which replaces gymctl’s own, whatever their case', async () => {
    const { fetch, sent } = fakeFetch(() => ok());
    const client = clientOf(fetch, { defaultHeaders: { 'user-agent': 'my-app/1.0', 'X-Trace': 'client', 'X-Team': 'blue' } });
    await client.getAcademy(1, { headers: { 'x-trace': 'call-7', ACCEPT: 'application/json, */*' } });
    await client.getAcademy(1);
    expect(sent.map((request) => request.headers)).toEqual([
      { 'Accept-Encoding': ACCEPT_ENCODING, 'user-agent': 'my-app/1.0', 'X-Team': 'blue', 'x-trace': 'call-7', ACCEPT: 'application/json, */*', 'X-API-Key': KEY },
      { Accept: 'application/json', 'Accept-Encoding': ACCEPT_ENCODING, 'user-agent': 'my-app/1.0', 'X-Trace': 'client', 'X-Team': 'blue', 'X-API-Key': KEY },
    ]);
  });

  it('a base URL’s path keeps no trailing slash, however many it has', async () => {
    const { fetch, sent } = fakeFetch(() => ok());
    await clientOf(fetch, { baseUrl: `${BASE}/v2///` }).getAcademy(1);
    expect(sent.map((request) => request.url)).toEqual([`${BASE}/v2/academies/1`]);
  });
});

describe('the deadline of an attempt', () => {
  it('an answer that never comes is a timeout once the deadline passes, not before; the sender is told it timed out', async () => {
    fakeClock();
    const { fetch, sent } = fakeFetch(() => 'never');
    const trace: string[] = [];
    const done = watch(clientOf(fetch, { timeoutMs: 50, debug: (line) => trace.push(line) }).getAcademy(1));
    await vi.advanceTimersByTimeAsync(49);
    expect(await done()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    const state = await done();
    expect(state).toHaveProperty('error');
    const error = (state as { error: GymApiError }).error;
    expect({ kind: error.kind, reason: error.reason, message: error.message }).toEqual({ kind: 'unavailable', reason: 'timeout', message: 'academy 1: timed out after 50 ms' });
    expect(trace.at(-1)).toBe('< timed out after 50 ms');
    // A fetch of the caller's own sees why it was stopped.
    expect(sent[0]!.signal.reason).toBeInstanceOf(Error);
    expect((sent[0]!.signal.reason as Error).message).toBe('timed out');
  });

  it('an attempt stops for its first reason: a deadline passed is a timeout, even if the caller aborts in the same moment', async () => {
    fakeClock();
    const { fetch, sent } = fakeFetch(() => 'never');
    const controller = new AbortController();
    const done = watch(clientOf(fetch, { timeoutMs: 50 }).getAcademy(1, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(50);
    controller.abort(new Error('the caller gave up'));
    const state = (await done()) as { error: GymApiError };
    expect(state.error).toBeInstanceOf(GymApiError);
    expect({ kind: state.error.kind, reason: state.error.reason }).toEqual({ kind: 'unavailable', reason: 'timeout' });
  });

  it('Ctrl-C, or close(), while a call waits to retry ends it at once, not once the wait is over, and sends nothing more', async () => {
    fakeClock();
    for (const stop of ['abort', 'close'] as const) {
      const { fetch, sent } = fakeFetch(() => ({ status: 503, statusText: 'Service Unavailable', headers: { ...json, 'retry-after': '10' }, body: '{"message":"busy"}' }));
      const controller = new AbortController();
      const client = clientOf(fetch, { retries: 2 });
      const done = watch(client.getAcademy(1, { signal: controller.signal }));
      await vi.advanceTimersByTimeAsync(0);
      expect(sent, stop).toHaveLength(1);
      // The first answer asked for 10 s; the call is waiting for them.
      expect(await done(), stop).toBeUndefined();
      if (stop === 'abort') controller.abort(new Error('interrupted'));
      else void client.close();
      const state = (await done()) as { error: GymApiError } | undefined;
      expect(state, stop).toHaveProperty('error');
      // As any call stopped so: an interrupt is `aborted`; a closed client's calls fail saying it was closed.
      expect(state!.error.kind, stop).toBe(stop === 'abort' ? 'aborted' : 'usage');
      if (stop === 'close') expect(state!.error.message).toBe('the client was closed');
      await vi.advanceTimersByTimeAsync(20_000);
      expect(sent, stop).toHaveLength(1);
    }
  });

  it('an abort reaches the caller’s fetch with its own reason', async () => {
    const { fetch, sent } = fakeFetch(() => 'never');
    const controller = new AbortController();
    const pending = failure(clientOf(fetch).getAcademy(1, { signal: controller.signal }));
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    const reason = new Error('the caller gave up');
    controller.abort(reason);
    expect((await pending).cause).toBe(reason);
    expect(sent[0]!.signal.reason).toBe(reason);
  });

  it('no timer and no listener on the call’s signal outlive a call, whether it succeeds, fails or times out', async () => {
    fakeClock();
    const replies: Reply[] = [ok(), { status: 404, body: '{"message":"Resource not found"}', headers: json }, 'never'];
    const { fetch } = fakeFetch((count) => replies[count - 1]!);
    const client = clientOf(fetch, { timeoutMs: 50 });
    // One signal for many calls, as a batch has: were a listener left on it by each, they would pile up.
    const { signal } = new AbortController();
    for (const expected of ['value', 'error', 'error']) {
      const done = watch(client.getAcademy(1, { signal }));
      await vi.advanceTimersByTimeAsync(50);
      expect(await done()).toHaveProperty(expected);
      expect(vi.getTimerCount()).toBe(0);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    }
  });
});

describe("the client's signal and close()", () => {
  it('a client whose signal has already aborted sends nothing', async () => {
    const { fetch, sent } = fakeFetch(() => ok());
    const reason = new Error('shutting down');
    const error = await failure(clientOf(fetch, { signal: AbortSignal.abort(reason) }).getAcademy(1));
    expect({ kind: error.kind, message: error.message, cause: error.cause }).toEqual({ kind: 'aborted', message: 'academy 1: aborted', cause: reason });
    expect(sent).toHaveLength(0);
  });

  it('close() stops what is in flight, and a call after it sends nothing: each fails saying the client was closed', async () => {
    const { fetch, sent } = fakeFetch((count) => (count === 1 ? 'never' : ok()));
    const client = clientOf(fetch);
    const done = watch(client.getAcademy(1));
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    await client.close();
    const state = (await done()) as { error: GymApiError };
    expect(state?.error).toBeInstanceOf(GymApiError);
    expect({ kind: state.error.kind, message: state.error.message }).toEqual({ kind: 'usage', message: 'the client was closed' });
    const after = await failure(client.getAcademy(1));
    expect({ kind: after.kind, message: after.message }).toEqual({ kind: 'usage', message: 'the client was closed' });
    expect(sent).toHaveLength(1);
  });

  it('close() of a client that never sent anything resolves', async () => {
    await expect(clientOf(fakeFetch(() => ok()).fetch).close()).resolves.toBeUndefined();
    await expect(createClient({ baseUrl: BASE, apiKey: KEY }).close()).resolves.toBeUndefined();
  });

  it('close() of a client whose connection could not be set up (a proxy variable that is not a URL) resolves', async () => {
    const client = createClient({ baseUrl: BASE, apiKey: KEY, retries: 0, env: { HTTPS_PROXY: 'not a proxy' } });
    expect((await failure(client.getAcademy(1))).kind).toBe('usage');
    await expect(client.close()).resolves.toBeUndefined();
  });
});

describe('the debug trace', () => {
  it('shows each attempt, numbering the retries, with every header but the key, each answer and how long it took', async () => {
    fakeClock();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const down = { status: 503, statusText: 'Service Unavailable', body: '{"message":"down"}', headers: { ...json, 'x-correlation-id': 'c-1' }, delayMs: 7 };
    const { fetch } = fakeFetch((count) => (count === 1 ? down : ok(academyBody, { delayMs: 3 })));
    const trace: string[] = [];
    const done = watch(clientOf(fetch, { retries: 1, debug: (line) => trace.push(line) }).getAcademy(1));
    await vi.advanceTimersByTimeAsync(100);
    expect(await done()).toHaveProperty('value');
    const request = ['> Accept: application/json', `> Accept-Encoding: ${ACCEPT_ENCODING}`, '> User-Agent: gymctl/test', '> X-API-Key: [redacted]'];
    expect(trace).toEqual([
      `> GET ${BASE}/academies/1`,
      ...request,
      '< 503 Service Unavailable in 7 ms, 18 characters, content type application/json, correlation ID c-1',
      'retrying in 8 ms (attempt 2 of 2): academy 1: the server is unavailable: down',
      `> GET ${BASE}/academies/1 (attempt 2)`,
      ...request,
      `< 200 OK in 3 ms, ${academyBody.length} characters, content type application/json`,
    ]);
    expect(trace.join('\n')).not.toContain(KEY);
  });

  it('a failure with no answer is traced as a failure, with what it was; an answer with an error status only as the answer', async () => {
    fakeClock();
    const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    const { fetch } = fakeFetch((count) => (count === 1 ? { status: 404, statusText: 'Not Found', body: '{"message":"Resource not found"}', headers: json } : reset));
    const trace: string[] = [];
    const client = clientOf(fetch, { debug: (line) => trace.push(line) });
    const notFound = watch(client.getAcademy(1));
    await vi.advanceTimersByTimeAsync(0);
    expect(await notFound()).toHaveProperty('error');
    expect(trace.filter((line) => line.startsWith('<'))).toEqual(['< 404 Not Found in 0 ms, 32 characters, content type application/json']);
    trace.length = 0;
    vi.setSystemTime(NOW + 60_000);
    const dropped = watch(client.getAcademy(1));
    await vi.advanceTimersByTimeAsync(0);
    const { error } = (await dropped()) as { error: GymApiError };
    expect(error.reason).toBe('connection_reset');
    expect(trace.filter((line) => line.startsWith('<'))).toEqual([`< failed in 0 ms: ${error.message}`]);
  });

  it("an answer's schema problems are traced through the same guard: the key redacted, and a callback that throws breaks nothing", async () => {
    fakeClock();
    // The server echoes the key as a field name: the problem's path names it.
    const { fetch } = fakeFetch(() => ok(JSON.stringify({ data: { ...academy, id: 'one', [KEY]: 1 } })));
    const trace: string[] = [];
    const traced = watch(clientOf(fetch, { debug: (line) => trace.push(line) }).getAcademy(1));
    await vi.advanceTimersByTimeAsync(0);
    expect(((await traced()) as { error: GymApiError }).error.kind).toBe('invalid_response');
    expect(trace.filter((line) => line.startsWith('< problem: '))).not.toHaveLength(0);
    expect(trace.join('\n')).not.toContain(KEY);
    const broken = watch(
      clientOf(fetch, {
        debug: () => {
          throw new Error('the caller’s logger is broken');
        },
      }).getAcademy(1),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(((await broken()) as { error: GymApiError }).error.kind).toBe('invalid_response');
  });

  it('a failure before anything is sent (a proxy variable that is not a URL) is traced as a failure too', async () => {
    fakeClock();
    const trace: string[] = [];
    const client = createClient({ baseUrl: BASE, apiKey: KEY, retries: 0, env: { HTTPS_PROXY: 'not a proxy' }, debug: (line) => trace.push(line) });
    const done = watch(client.getAcademy(1));
    await vi.advanceTimersByTimeAsync(0);
    const { error } = (await done()) as { error: GymApiError };
    expect({ kind: error.kind, message: error.message }).toEqual({
      kind: 'usage',
      message: 'HTTPS_PROXY is not a proxy URL such as http://proxy.example.com:3128 ("not a proxy")',
    });
    expect(trace.filter((line) => line.startsWith('<'))).toEqual([`< failed in 0 ms: ${error.message}`]);
  });
});

describe('a connection that cannot be set up', () => {
  it('fails the call with a GymApiError naming the host, the reason as its cause, never a TypeError out of the client', async () => {
    // A dispatcher that is not one: sending through it fails before any connection is made.
    const client = createClient({ baseUrl: BASE, apiKey: KEY, retries: 0, dispatcher: {} as never });
    const error = await failure(client.getAcademy(1));
    expect({ kind: error.kind, reason: error.reason }).toEqual({ kind: 'unavailable', reason: 'network' });
    expect(error.message).toMatch(/^academy 1: the connection to api\.gym\.test failed \(/);
    expect(error.cause).toBeInstanceOf(TypeError);
  });
});

describe('the cache', () => {
  /** A cache in a Map, holding what a test puts in it; every write is kept in turn. */
  function mapCache(entries: Record<string, { body: string; ageMs: number; head?: ResponseHead }> = {}) {
    const writes: unknown[][] = [];
    const cache: ResponseCache = {
      read: (path) => entries[path],
      write: (...args) => void writes.push(args),
    };
    return { cache, writes };
  }

  it('a miss is fetched and stored, and traced as such, with no word of a stored entry', async () => {
    const { fetch, sent } = fakeFetch(() => ok());
    const { cache, writes } = mapCache();
    const trace: string[] = [];
    await clientOf(fetch, { cache, debug: (line) => trace.push(line) }).getAcademy(1);
    expect(sent).toHaveLength(1);
    expect(writes).toEqual([['/academies/1', `{"data":${JSON.stringify(academy)}}`]]);
    expect(trace.filter((line) => line.startsWith('cache'))).toEqual(['cache store: GET /academies/1']);
  });

  it('a hit sends nothing, and is traced with its age in seconds', async () => {
    const { fetch, sent } = fakeFetch(() => ok());
    const { cache } = mapCache({ '/academies/1': { body: academyBody, ageMs: 90_400 } });
    const trace: string[] = [];
    const response = await clientOf(fetch, { cache, debug: (line) => trace.push(line) }).request(operations.academy(1));
    expect(response).toMatchObject({ data: academy, cached: true, status: 200 });
    expect(sent).toHaveLength(0);
    expect(trace).toEqual(['cache hit: GET /academies/1, stored 90 s ago']);
  });

  it('an entry that no longer passes validation is fetched again, and the trace says why', async () => {
    const { fetch, sent } = fakeFetch(() => ok());
    const { cache } = mapCache({ '/academies/1': { body: '{"data":{"id":"one"}}', ageMs: 1_000 } });
    const trace: string[] = [];
    expect(await clientOf(fetch, { cache, debug: (line) => trace.push(line) }).getAcademy(1)).toEqual(academy);
    expect(sent).toHaveLength(1);
    expect(trace.filter((line) => line.startsWith('cache'))).toEqual([
      'cache: the entry for GET /academies/1 no longer passes validation, so it is fetched again',
      'cache store: GET /academies/1',
    ]);
  });

  it('keeps only a 200: another success is not stored', async () => {
    const { fetch } = fakeFetch(() => ({ status: 203, statusText: 'Non-Authoritative Information', body: academyBody, headers: json }));
    const { cache, writes } = mapCache();
    expect(await clientOf(fetch, { cache }).getAcademy(1)).toEqual(academy);
    expect(writes).toEqual([]);
  });

  it('a raw answer (gymctl api) is stored under a name of its own with its head, and given back with it, the key not in it', async () => {
    const body = '{"data":{"id":1},"extra":true}';
    const { fetch, sent } = fakeFetch(() => ok(body, { headers: { ...json, 'x-echo': `key ${KEY}` } }));
    const { cache, writes } = mapCache();
    const client = clientOf(fetch, { cache });
    const response = await client.request(operations.raw('/me'));
    const head: ResponseHead = {
      version: 'HTTP/1.1',
      status: 200,
      statusText: 'OK',
      headers: [
        ['content-type', 'application/json'],
        ['x-echo', 'key [redacted]'],
      ],
    };
    expect(response).toMatchObject({ rawData: body, status: 200, head });
    expect(Buffer.from(response.rawBytes!).toString('utf8')).toBe(body);
    expect(writes).toEqual([['raw /me', body, head]]);
    const { cache: kept } = mapCache({ 'raw /me': { body, ageMs: 0, head } });
    const again = await clientOf(fetch, { cache: kept }).request(operations.raw('/me'));
    expect(again).toMatchObject({ rawData: body, cached: true, head });
    expect(sent).toHaveLength(1);
  });

  it('a raw entry kept without its head is a miss, and is fetched', async () => {
    const { fetch, sent } = fakeFetch(() => ok('{}'));
    const { cache } = mapCache({ 'raw /me': { body: '{}', ageMs: 0 } });
    const response = await clientOf(fetch, { cache }).request(operations.raw('/me'));
    expect(sent).toHaveLength(1);
    expect(response.cached).toBeUndefined();
  });

  it('a raw answer that is not JSON, or whose bytes are not valid UTF-8, is not stored', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const replies: Reply[] = [ok('<html>hello</html>', { headers: { 'content-type': 'text/html' } }), ok(bytes)];
    const { fetch, sent } = fakeFetch((count) => replies[count - 1]!);
    const { cache, writes } = mapCache();
    const client = clientOf(fetch, { cache });
    expect((await client.request(operations.raw('/page'))).rawData).toBe('<html>hello</html>');
    expect((await client.request(operations.raw('/name'))).rawData).toBe('{"name":"\ufffd"}');
    expect(sent).toHaveLength(2);
    expect(writes).toEqual([]);
  });
});

describe('with the default sender, against a server on 127.0.0.1', () => {
  /** A server that answers with `handler`, keeps its connections alive with no time limit, and is closed by the test. */
  async function ownServer(handler: http.RequestListener) {
    const sockets = new Set<Socket>();
    const server = http.createServer(handler);
    // Idle connections are never closed by the server: only the client lets go of one.
    server.keepAliveTimeout = 0;
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      sockets,
      async close() {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('close() lets go of the connection kept alive', async () => {
    const own = await ownServer((_request, response) => response.writeHead(200, json).end('{}'));
    try {
      const client = createClient({ baseUrl: own.url, apiKey: KEY });
      await client.request(operations.raw('/me'));
      expect(own.sockets.size).toBe(1);
      const [socket] = own.sockets;
      const closed = new Promise((resolve) => socket!.once('close', resolve));
      await client.close();
      // Waited on: it settles only if close() closes the socket; were it not to, the test's ceiling would end the wait.
      await closed;
      expect(own.sockets.size).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('a compressed body that stalls past the deadline is a timeout, retried as one, not a body that cannot be decoded', async () => {
    const stalled = gzipSync('{"data":{"id":1}}').subarray(0, 12);
    let requests = 0;
    const own = await ownServer((_request, response) => {
      requests++;
      response.writeHead(200, { ...json, 'content-encoding': 'gzip' });
      response.write(stalled); // and no more
    });
    const client = createClient({ baseUrl: own.url, apiKey: KEY, timeoutMs: 200, retries: 1, retryBaseDelayMs: 1 });
    try {
      const error = await failure(client.getAcademy(1));
      expect({ kind: error.kind, reason: error.reason, message: error.message }).toEqual({
        kind: 'unavailable',
        reason: 'timeout',
        message: 'academy 1: timed out after 200 ms; gave up after 2 attempts',
      });
      expect(requests).toBe(2);
    } finally {
      await client.close();
      await own.close();
    }
  });
});
