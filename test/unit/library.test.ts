/**
 * The library follows the CLI's rules: usage failures, plain http only to loopback, a debug callback that cannot crash it;
 * and what a library user gets beyond the data: withResponse(), the version in its User-Agent.
 */
import type http from 'node:http';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { ApiPromise } from '../../src/api/api-promise.js';
import { createClient, operations } from '../../src/api/client.js';
import { ERROR_KINDS, type ErrorKind, GymApiError, GymctlError } from '../../src/api/errors.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { exitCodeOf, Interrupted } from '../../src/failures.js';
import { academySchema, extraFields, type ResponseCache } from '../../src/index.js';
import { VERSION } from '../../src/version.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { httpServer } from '../helpers/servers.js';
import { usage } from '../helpers/failures.js';

describe('createClient', () => {
  it('a missing or malformed apiKey, or no options at all, is a usage failure, not a TypeError', () => {
    usage(() => createClient(undefined as never));
    usage(() => createClient({ baseUrl: 'https://api.example.com' } as never));
    expect(usage(() => createClient({ baseUrl: 'https://api.example.com', apiKey: 'has space' })).message).not.toContain('has space');
  });

  it('plain http goes only to loopback, unless the caller opts in with allowInsecureHttp', () => {
    expect(usage(() => createClient({ baseUrl: 'http://api.example.com', apiKey: DEMO_KEY })).message).toContain('allowInsecureHttp');
    expect(() => createClient({ baseUrl: 'http://api.example.com', apiKey: DEMO_KEY, allowInsecureHttp: true })).not.toThrow();
    for (const loopback of ['http://127.0.0.1:4010', 'http://localhost', 'http://[::1]:8080']) {
      expect(() => createClient({ baseUrl: loopback, apiKey: DEMO_KEY })).not.toThrow();
    }
    usage(() => createClient({ baseUrl: 'ftp://api.example.com', apiKey: DEMO_KEY }));
  });

  it('a debug callback that throws never breaks a request', async () => {
    const sandbox = await startSandbox();
    const client = createClient({
      baseUrl: sandbox.url,
      apiKey: DEMO_KEY,
      debug: () => {
        throw new Error('the caller’s logger is broken');
      },
    });
    try {
      expect((await client.getAcademy(1)).name).toBe('Alfama Jiu-Jitsu');
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});

/** A server on 127.0.0.1 that answers with `answer`, or never when it returns undefined; it counts the requests and keeps their headers. */
async function server(answer: (count: number) => { status: number; body: unknown; headers?: Record<string, string> } | undefined) {
  const seen: http.IncomingHttpHeaders[] = [];
  const url = await httpServer((request, response) => {
    seen.push(request.headers);
    const reply = answer(seen.length);
    if (!reply) return;
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    // A string is the body's text as it is (a 64-bit id that JSON.stringify could not write).
    response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  });
  return { url, seen };
}

describe('an abort', () => {
  it('is a GymApiError of kind aborted that keeps the signal’s reason as its cause, on a method’s signal or the client’s', async () => {
    const { url, seen } = await server(() => undefined);
    const own = new AbortController();
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, signal: own.signal, retries: 0 });
    try {
      const perCall = new AbortController();
      const pending = client.getAcademy(3, { signal: perCall.signal }).catch((error: unknown) => error);
      await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 60_000 });
      const reason = new Error('the caller gave up');
      perCall.abort(reason);
      const error = (await pending) as GymApiError;
      expect(error).toBeInstanceOf(GymApiError);
      expect({ kind: error.kind, message: error.message, id: error.id, retryable: error.retryable }).toEqual({
        kind: 'aborted',
        message: 'academy 3: aborted',
        id: 3,
        retryable: false,
      });
      expect(error.cause).toBe(reason);

      const whole = client.getMe().catch((error: unknown) => error);
      await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 60_000 });
      own.abort();
      const second = (await whole) as GymApiError;
      expect(second).toBeInstanceOf(GymApiError);
      expect(second.kind).toBe('aborted');
      expect((second.cause as Error).name).toBe('AbortError');
    } finally {
      await client.close();
    }
  });

  it('during the wait before a retry is aborted too, and an already aborted signal sends nothing', async () => {
    const { url, seen } = await server(() => ({ status: 503, body: { message: 'busy' }, headers: { 'retry-after': '10' } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, retries: 2 });
    try {
      const controller = new AbortController();
      const pending = client.getMe({ signal: controller.signal }).catch((error: unknown) => error);
      await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 60_000 });
      controller.abort();
      const error = (await pending) as GymApiError;
      expect(error).toBeInstanceOf(GymApiError);
      expect(error.kind).toBe('aborted');
      const early = (await client.getMe(AbortSignal.abort()).catch((error: unknown) => error)) as GymApiError;
      expect(early.kind).toBe('aborted');
      expect(seen).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('a reason that is already a gymctl failure (the CLI’s Ctrl-C) is thrown as it is, and still ends the CLI with 130', async () => {
    const { url } = await server(() => undefined);
    const controller = new AbortController();
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, signal: controller.signal });
    try {
      const pending = client.getMe().catch((error: unknown) => error);
      const interrupt = new Interrupted('SIGTERM');
      controller.abort(interrupt);
      expect(await pending).toBe(interrupt);
      expect(exitCodeOf(new GymApiError('aborted', 'x'))).toBe(130);
    } finally {
      await client.close();
    }
  });
});

describe('a timeout', () => {
  it('is retried within the retry budget (every operation is a GET), and the last one is reported', async () => {
    // The first two requests are never answered, the third at once: a second is its timeout, so that the answer that
    // comes at once is in time on a loaded machine too.
    const { url, seen } = await server((count) => (count < 3 ? undefined : { status: 200, body: { data: { id: 1, name: 'Alfama Jiu-Jitsu' } } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, timeoutMs: 1000, retries: 2, retryBaseDelayMs: 1 });
    try {
      expect((await client.getAcademy(1)).name).toBe('Alfama Jiu-Jitsu');
      expect(seen).toHaveLength(3);
      const { url: silent, seen: tried } = await server(() => undefined);
      const never = createClient({ baseUrl: silent, apiKey: DEMO_KEY, timeoutMs: 100, retries: 1, retryBaseDelayMs: 1 });
      const error = (await never.getMe().catch((error: unknown) => error)) as GymApiError;
      expect({ kind: error.kind, reason: error.reason, message: error.message }).toEqual({
        kind: 'unavailable',
        reason: 'timeout',
        message: 'GET /me: timed out after 100 ms; gave up after 2 attempts',
      });
      // Each attempt reaches the server, however slowly: it waits on nothing else.
      await vi.waitFor(() => expect(tried).toHaveLength(2), { timeout: 60_000 });
      await never.close();
    } finally {
      await client.close();
    }
  });
});

describe('a 5xx, a 408 and a 429', () => {
  it.each([500, 408, 429, 503])('%d is retried, and the next answer is the one handed back', async (status) => {
    const { url, seen } = await server((count) =>
      count === 1 ? { status, body: { message: 'boom', correlationId: 'c-1' } } : { status: 200, body: { data: { id: 1, name: 'Alfama Jiu-Jitsu' } } },
    );
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, retries: 1, retryBaseDelayMs: 1 });
    try {
      expect((await client.getAcademy(1)).name).toBe('Alfama Jiu-Jitsu');
      expect(seen).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('a 500 that persists fails after the last retry, saying so', async () => {
    const { url, seen } = await server(() => ({ status: 500, body: { message: 'boom', correlationId: 'c-1' } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, retries: 2, retryBaseDelayMs: 1 });
    try {
      const error = (await client.getMe().catch((error: unknown) => error)) as GymApiError;
      expect({ kind: error.kind, status: error.status, retryable: error.retryable }).toEqual({ kind: 'unavailable', status: 500, retryable: true });
      expect(error.message).toMatch(/gave up after 3 attempts$/);
      expect(seen).toHaveLength(3);
    } finally {
      await client.close();
    }
  });
});

describe('per-call options', () => {
  it('timeoutMs and retries of one call override the client’s', async () => {
    const { url, seen } = await server(() => undefined);
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, timeoutMs: 30_000, retries: 0, retryBaseDelayMs: 1 });
    try {
      const error = (await client.getAcademy(1, { timeoutMs: 50, retries: 1 }).catch((error: unknown) => error)) as GymApiError;
      expect(error.message).toBe('academy 1: timed out after 50 ms; gave up after 2 attempts');
      await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 60_000 });
      expect(usageOf(await client.getMe({ timeoutMs: 0 }).catch((error: unknown) => error)).message).toContain('invalid timeout 0');
      expect(usageOf(await client.getMe({ retries: 11 }).catch((error: unknown) => error)).message).toContain('invalid retries 11');
      expect(seen).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('headers of a call go over the client’s defaultHeaders, which go over gymctl’s own; neither can set the key', async () => {
    const { url, seen } = await server(() => ({ status: 200, body: { data: { id: 1, name: 'Alfama Jiu-Jitsu' } } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, defaultHeaders: { 'X-Team': 'blue', 'User-Agent': 'my-app/1.0', 'X-Trace': 'client' } });
    try {
      await client.getAcademy(1, { headers: { 'x-trace': 'call-7' } });
      await client.request(operations.academy(1));
      expect(seen[0]).toMatchObject({ 'x-team': 'blue', 'user-agent': 'my-app/1.0', 'x-trace': 'call-7', 'x-api-key': DEMO_KEY, accept: 'application/json' });
      expect(seen[1]).toMatchObject({ 'x-trace': 'client', 'x-api-key': DEMO_KEY });
      for (const name of ['X-API-Key', 'x-api-key', 'Accept-Encoding', 'Host']) {
        const refused = usageOf(await client.getMe({ headers: { [name]: 'other' } }).catch((error: unknown) => error));
        expect(refused.message).toContain(`headers cannot set ${name}`);
        usage(() => createClient({ baseUrl: url, apiKey: DEMO_KEY, defaultHeaders: { [name]: 'other' } }));
      }
      const secret = 'line\r\nX-Injected: 1';
      expect(usageOf(await client.getMe({ headers: { 'X-Note': secret } }).catch((error: unknown) => error)).message).not.toContain('Injected');
      usage(() => createClient({ baseUrl: url, apiKey: DEMO_KEY, defaultHeaders: { 'bad name': 'x' } }));
      expect(seen).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});

function usageOf(error: unknown): GymApiError {
  expect(error).toBeInstanceOf(GymApiError);
  expect((error as GymApiError).kind).toBe('usage');
  return error as GymApiError;
}

describe('the kind guards', () => {
  it('GymApiError.is and one guard per kind of ERROR_KINDS tell the kinds apart, and narrow', () => {
    const notFound: unknown = new GymApiError('not_found', 'academy 9: not found', { status: 404 });
    expect(GymApiError.isNotFound(notFound)).toBe(true);
    expect(GymApiError.isUnauthorized(notFound)).toBe(false);
    expect(GymApiError.is(notFound)).toBe(true);
    expect(GymApiError.is(notFound, 'not_found')).toBe(true);
    expect(GymApiError.is(notFound, 'aborted')).toBe(false);
    if (GymApiError.isNotFound(notFound)) {
      expectTypeOf(notFound).toExtend<GymApiError>();
      expectTypeOf(notFound.kind).toEqualTypeOf<'not_found'>();
      expect(notFound.status).toBe(404);
    }
    if (GymApiError.is(notFound, 'invalid_response')) expectTypeOf(notFound.kind).toEqualTypeOf<'invalid_response'>();
    if (GymApiError.is(notFound)) expectTypeOf(notFound.kind).toEqualTypeOf<ErrorKind>();
    const guards = GymApiError as unknown as Record<string, (error: unknown) => boolean>;
    const guardOf = (kind: ErrorKind) => guards[`is${kind.replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase())}`];
    expect(GymApiError.isInvalidResponse).toBe(guardOf('invalid_response'));
    for (const kind of ERROR_KINDS) {
      const error = new GymApiError(kind, kind);
      expect(ERROR_KINDS.filter((other) => guardOf(other)?.(error))).toEqual([kind]);
      expect(guardOf(kind)?.(error.with({ message: 'copied' }))).toBe(true);
    }
  });

  it('hold only for a GymApiError, whichever copy of the package made it, and leave instanceof and kind as they were', () => {
    for (const other of [new GymctlError('not_found', 'not of the client'), new Error('x'), { kind: 'not_found' }, null, undefined, 'not_found']) {
      expect(GymApiError.is(other)).toBe(false);
      expect(GymApiError.isNotFound(other)).toBe(false);
    }
    // A GymApiError of another copy of the package: another class, with the same brand.
    const brand = Symbol.for('gymctl.GymApiError');
    class OtherCopy extends Error {
      readonly kind = 'unavailable';
    }
    Object.defineProperty(OtherCopy.prototype, brand, { value: true });
    const foreign = new OtherCopy('from another copy');
    expect(foreign).not.toBeInstanceOf(GymApiError);
    expect(GymApiError.isUnavailable(foreign)).toBe(true);
    expect(GymApiError.isNotFound(foreign)).toBe(false);
    const own = new GymApiError('aborted', 'stopped');
    expect(own).toBeInstanceOf(GymApiError);
    expect(own).toBeInstanceOf(GymctlError);
    expect({ name: own.name, kind: own.kind }).toEqual({ name: 'GymApiError', kind: 'aborted' });
    expect(Object.keys(own)).not.toContain(brand.toString());
    expect(JSON.stringify(Object.getOwnPropertySymbols(own))).toBe('[]');
  });
});

describe('the correlation ID of a success', () => {
  it('comes with request(); the typed methods return the data alone, with nothing added to it', async () => {
    const correlationId = '0190a5c4-7b1e-7c3a-9d2f-5e8b4a6c1d20';
    const { url } = await server(() => ({ status: 200, body: { data: { id: 1, name: 'Alfama Jiu-Jitsu' } }, headers: { 'x-correlation-id': correlationId } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY });
    try {
      const response = await client.request(operations.academy(1));
      expect(response.correlationId).toBe(correlationId);
      const academy = await client.getAcademy(1);
      expect(Reflect.ownKeys(academy)).toEqual(['id', 'name']);
    } finally {
      await client.close();
    }
  });
});

describe('withResponse()', () => {
  const correlationId = '0190a5c4-7b1e-7c3a-9d2f-5e8b4a6c1d20';
  /** An academy whose franchiseId is 2^63−1, which a double would round (so its clients ask for bigint ids), and a field the spec does not name. */
  const body = '{"data":{"id":1,"name":"Alfama Jiu-Jitsu","franchiseId":9223372036854775807,"timezone":"Europe/Lisbon"}}';
  const answer = () => ({ status: 200, body, headers: { 'X-Correlation-Id': correlationId, 'X-RateLimit-Remaining': '42' } });

  it('gives the data as awaiting does, with the status, the headers by name in any case, and the correlation ID of the answer', async () => {
    const { url, seen } = await server(answer);
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, ids: 'bigint' });
    try {
      const { data, response, correlationId: id, cached } = await client.getAcademy(1).withResponse();
      // A fetch Response, as openai-node's withResponse() gives, its body already read into data.
      expect(response).toBeInstanceOf(Response);
      expect(response.headers).toBeInstanceOf(Headers);
      expect(response.status).toBe(200);
      expect(response.ok).toBe(true);
      expect(response.url).toBe(`${url}/academies/1`);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('42');
      expect(response.headers.get('X-RATELIMIT-REMAINING')).toBe('42');
      expect(response.headers.get('x-absent')).toBeNull();
      expect(id).toBe(correlationId);
      expect(cached).toBe(false);
      expect(data.franchiseId).toBe(9223372036854775807n);
      expect(extraFields(data, academySchema)).toEqual({ timezone: 'Europe/Lisbon' });
      // Awaiting the call gives the same data, plain: nothing of the response is added to it.
      const awaited = await client.getAcademy(1);
      expect(awaited).toEqual(data);
      expect(Reflect.ownKeys(awaited)).toEqual(['id', 'name', 'franchiseId', 'timezone']);
      expect(seen).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('is on a Promise that sends one request, however it is read', async () => {
    const { url, seen } = await server(answer);
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, ids: 'bigint' });
    try {
      const call = client.getAcademy(1);
      expect(call).toBeInstanceOf(Promise);
      expect(call).toBeInstanceOf(ApiPromise);
      const [data, withResponse, finished] = await Promise.all([call, call.withResponse(), call.finally(() => {})]);
      expect(withResponse.data).toEqual(data);
      expect(finished).toEqual(data);
      expect(seen).toHaveLength(1);
      // then, catch and finally give plain Promises.
      expect(call.then()).not.toBeInstanceOf(ApiPromise);
      expect(call.catch(() => {})).not.toBeInstanceOf(ApiPromise);
    } finally {
      await client.close();
    }
  });

  it('fails as awaiting fails, and a failure read only through it is no unhandled rejection', async () => {
    const { url } = await server(() => ({ status: 404, body: { message: 'Resource not found', correlationId } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, ids: 'bigint' });
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const error = await client
        .getAcademy(7)
        .withResponse()
        .catch((error: unknown) => error);
      expect(GymApiError.isNotFound(error)).toBe(true);
      expect((error as GymApiError).correlationId).toBe(correlationId);
      const bad = await client
        .getAcademy(0)
        .withResponse()
        .catch((error: unknown) => error);
      expect(GymApiError.isUsage(bad)).toBe(true);
      // Unhandled rejections are reported once the microtasks have run: after a macrotask, every one would have been.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
      await client.close();
    }
  });

  it('from the cache: status 200, no headers and no correlation ID, and says so; the data as the server sent it', async () => {
    const { url, seen } = await server(answer);
    const stored = new Map<string, string>();
    const cache: ResponseCache = {
      read: (path) => (stored.has(path) ? { body: stored.get(path)!, ageMs: 1_000 } : undefined),
      write: (path, text) => void stored.set(path, text),
    };
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY, cache, ids: 'bigint' });
    try {
      const fromServer = await client.getAcademy(1).withResponse();
      const fromCache = await client.getAcademy(1).withResponse();
      expect(seen).toHaveLength(1);
      expect(fromCache.data).toEqual(fromServer.data);
      expect(fromCache.data.franchiseId).toBe(9223372036854775807n);
      expect(fromCache).toMatchObject({ correlationId: undefined, cached: true });
      expect(fromCache.response.status).toBe(200);
      expect(fromCache.response.headers.get('x-ratelimit-remaining')).toBeNull();
      expect(fromServer.cached).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe('asResponse()', () => {
  it('gives the answer as a fetch Response, its body unread and unchecked, in one request', async () => {
    // Not an academy: awaiting the call would fail validation, asResponse() does not look.
    const body = '{"data":{"id":"not a number"}}';
    const { url, seen } = await server(() => ({ status: 200, body, headers: { 'X-RateLimit-Remaining': '7' } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY });
    try {
      const response = await client.getAcademy(3).asResponse();
      expect(response).toBeInstanceOf(Response);
      expect(response.bodyUsed).toBe(false);
      expect({ status: response.status, url: response.url, limit: response.headers.get('x-ratelimit-remaining') }).toEqual({
        status: 200,
        url: `${url}/academies/3`,
        limit: '7',
      });
      expect(await response.text()).toBe(body);
      expect(seen).toHaveLength(1);
      expect(GymApiError.isInvalidResponse(await client.getAcademy(3).catch((error: unknown) => error))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('fails on a failure status, as awaiting does', async () => {
    const { url } = await server(() => ({ status: 404, body: { message: 'Resource not found', correlationId: 'c-1' } }));
    const client = createClient({ baseUrl: url, apiKey: DEMO_KEY });
    try {
      expect(
        GymApiError.isNotFound(
          await client
            .getAcademy(7)
            .asResponse()
            .catch((error: unknown) => error),
        ),
      ).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('the User-Agent', () => {
  it('is gymctl/<version>, as the CLI sends it, unless the client names its own', async () => {
    const { url, seen } = await server(() => ({ status: 200, body: { data: { id: 1 } } }));
    const plain = createClient({ baseUrl: url, apiKey: DEMO_KEY });
    const own = createClient({ baseUrl: url, apiKey: DEMO_KEY, userAgent: 'my-app/2.0' });
    try {
      await plain.getAcademy(1);
      await own.getAcademy(1);
      expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
      expect(seen.map((headers) => headers['user-agent'])).toEqual([`gymctl/${VERSION}`, 'my-app/2.0']);
    } finally {
      await plain.close();
      await own.close();
    }
  });
});
