/**
 * The transport's real code against HTTP intercepted by nock (which hooks
 * Node's global fetch, dispatcher and all), through the fetch sender, which
 * these tests pass in; the default sender, node:http, meets real servers in
 * the command and e2e tests.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, operations } from '../../src/api/client.js';
import { GymApiError } from '../../src/api/errors.js';
import { redactHeaders } from '../../src/api/transport/redact.js';
import { parseRetryAfter } from '../../src/api/transport/retry.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { failure } from '../helpers/failures.js';

const BASE = 'https://api.gym.test';
const KEY = 'test_key_0123456789abcdef';
const academy = DEMO_DATA.academies[0]!;
const me = DEMO_DATA.keys[0]!.key;

interface TestOptions {
  timeoutMs?: number;
  maxBodyBytes?: number;
  baseUrl?: string;
  retries?: number;
  maxRetryAfterMs?: number;
  debug?: (line: string) => void;
  ids?: 'bigint';
}

/**
 * Through Node's global fetch, looked up at call time so that nock's
 * interception applies; no retries unless a test asks, with short backoffs.
 */
const client = (options: TestOptions = {}) =>
  createClient({
    baseUrl: BASE,
    apiKey: KEY,
    userAgent: 'gymctl/test',
    retries: 0,
    retryBaseDelayMs: 5,
    fetch: (url, init) => globalThis.fetch(url, init),
    ...options,
  });

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, 'every stub is used').toEqual([]);
});
afterAll(() => nock.enableNetConnect());

describe('requests', () => {
  it('sends the key, Accept and User-Agent headers to base URL + path', async () => {
    nock(BASE, {
      reqheaders: { 'x-api-key': KEY, accept: 'application/json', 'user-agent': 'gymctl/test' },
    })
      .get('/me')
      .reply(200, { data: me });
    await expect(client().getMe()).resolves.toEqual(me);
  });

  it('keeps the base URL path and encodes path parameters', async () => {
    nock(BASE)
      .get('/v2/academies/7')
      .reply(200, { data: { ...academy, id: 7 } });
    nock(BASE).get('/v2/members/9/family').reply(200, { data: [] });
    const c = client({ baseUrl: `${BASE}/v2/` });
    expect((await c.getAcademy(7)).id).toBe(7);
    expect(await c.listFamily(9)).toEqual([]);
  });

  it('refuses an id that is not a positive safe integer before any request', async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      const error = await failure(client().getAcademy(bad));
      expect(error.kind).toBe('usage');
    }
  });

  it('refuses a key that cannot be a header value, without quoting it', () => {
    let error: unknown;
    try {
      createClient({ baseUrl: BASE, apiKey: 'secret\nvalue' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GymApiError);
    expect((error as GymApiError).kind).toBe('usage');
    expect((error as GymApiError).message).not.toContain('secret');
  });

  it('returns the data member raw, exactly as sent', async () => {
    const body = '{"data":{"id":1,"name":"A","coordinates":{"lat":38.70,"lng":-9.1e0},"2":"x"},"meta":1}';
    nock(BASE).get('/academies/1').reply(200, body, { 'content-type': 'application/json' });
    const response = await client().request(operations.academy(1));
    expect(response.rawData).toBe('{"id":1,"name":"A","coordinates":{"lat":38.70,"lng":-9.1e0},"2":"x"}');
    expect(response.data.name).toBe('A');
    expect(response.status).toBe(200);
  });
});

describe('error classification', () => {
  const cases: Array<[number, object, GymApiError['kind']]> = [
    [401, { message: 'Unauthorized', correlationId: 'c-1' }, 'unauthorized'],
    [403, { message: 'Forbidden', correlationId: 'c-1' }, 'unauthorized'],
    [404, { message: 'Resource not found', correlationId: 'c-1' }, 'not_found'],
    [500, { message: 'boom', correlationId: 'c-1' }, 'unavailable'],
    [503, { message: 'down', correlationId: 'c-1' }, 'unavailable'],
    [429, { message: 'slow down', correlationId: 'c-1' }, 'unavailable'],
    // The spec fixes no status codes: its message strings decide.
    [400, { message: 'Unauthorized', correlationId: 'c-1' }, 'unauthorized'],
    [422, { message: 'Resource not found', correlationId: 'c-1' }, 'not_found'],
    [200, { message: 'Unauthorized', correlationId: 'c-1' }, 'unauthorized'],
    [200, { message: 'Resource not found', correlationId: 'c-1' }, 'not_found'],
    [400, { message: 'Bad request', correlationId: 'c-1' }, 'invalid_response'],
  ];
  for (const [status, body, kind] of cases) {
    it(`${status} ${JSON.stringify(body)} is ${kind}`, async () => {
      nock(BASE).get('/academies/3').reply(status, body);
      const error = await failure(client().getAcademy(3));
      expect(error.kind).toBe(kind);
      expect(error.status).toBe(status);
      expect(error.correlationId).toBe('c-1');
      expect(error.id).toBe(3);
    });
  }

  it('names the academy and keeps the server message for not found', async () => {
    nock(BASE).get('/academies/42').reply(404, { message: 'Resource not found', correlationId: 'c-9' });
    const error = await failure(client().getAcademy(42));
    expect(error.message).toBe('academy 42: Resource not found');
  });

  it('takes the correlation ID from the X-Correlation-Id header when the body has none', async () => {
    nock(BASE).get('/me').reply(401, { message: 'Unauthorized' }, { 'X-Correlation-Id': 'hdr-123' });
    const error = await failure(client().getMe());
    expect(error.kind).toBe('unauthorized');
    expect(error.correlationId).toBe('hdr-123');
  });

  it('prefers the body correlation ID over the header', async () => {
    nock(BASE).get('/me').reply(401, { message: 'Unauthorized', correlationId: 'body-1' }, { 'X-Correlation-Id': 'hdr-1' });
    expect((await failure(client().getMe())).correlationId).toBe('body-1');
  });

  it('reports an HTML error page by status and content type, without its text', async () => {
    nock(BASE).get('/me').reply(502, '<html><body>Bad gateway secret-page</body></html>', { 'content-type': 'text/html' });
    const error = await failure(client().getMe());
    expect(error.kind).toBe('unavailable');
    expect(error.status).toBe(502);
    expect(error.message).not.toContain('secret-page');
  });

  it('does not follow a redirect, and names where it pointed', async () => {
    nock(BASE).get('/me').reply(302, '', { Location: 'https://elsewhere.test/me' });
    const error = await failure(client().getMe());
    expect(error.kind).toBe('invalid_response');
    expect(error.status).toBe(302);
    expect(error.message).toContain('https://elsewhere.test/me');
  });
});

describe('invalid responses', () => {
  it('a 2xx body that is not JSON', async () => {
    nock(BASE).get('/me').reply(200, 'hello', { 'content-type': 'text/plain' });
    const error = await failure(client().getMe());
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('not JSON');
    expect(error.message).toContain('text/plain');
  });

  it('truncated JSON', async () => {
    nock(BASE).get('/me').reply(200, '{"data":{"id":1,', { 'content-type': 'application/json' });
    expect((await failure(client().getMe())).kind).toBe('invalid_response');
  });

  it('a schema mismatch names the field path and the expected type', async () => {
    nock(BASE)
      .get('/academies/1')
      .reply(200, { data: { ...academy, id: '1' } });
    const error = await failure(client().getAcademy(1));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('data.id: expected integer, got string');
  });

  it('a family that is not an array', async () => {
    nock(BASE)
      .get('/members/5/family')
      .reply(200, { data: { id: 1 } });
    const error = await failure(client().listFamily(5));
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('data: expected array, got object');
  });

  it('a body without data', async () => {
    nock(BASE).get('/me').reply(200, { result: me });
    expect((await failure(client().getMe())).message).toContain('data: missing');
  });

  it('a body larger than the cap', async () => {
    nock(BASE)
      .get('/me')
      .reply(200, JSON.stringify({ data: me, pad: 'x'.repeat(5000) }));
    const error = await failure(client({ maxBodyBytes: 1024 }).getMe());
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('larger than 1 KiB');
  });

  it('accepts unknown fields, nulls and absent strings', async () => {
    const drifted = { id: 1, academyIds: [], name: null, user: { id: 2 }, extra: { nested: true } };
    nock(BASE).get('/me').reply(200, { data: drifted });
    await expect(client().getMe()).resolves.toEqual(drifted);
  });
});

describe('time limits', () => {
  it('a response slower than the timeout is unavailable, saying how long it waited', async () => {
    nock(BASE).get('/me').delay(2000).reply(200, { data: me });
    const error = await failure(client({ timeoutMs: 100 }).getMe());
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('timed out after 100 ms');
    expect(error.reason).toBe('timeout');
  });

  it('a network failure is unavailable', async () => {
    nock(BASE)
      .get('/me')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const error = await failure(client().getMe());
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('ECONNRESET');
  });

  it('a refused connection names the host', async () => {
    nock(BASE)
      .get('/me')
      .replyWithError(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }));
    const error = await failure(client().getMe());
    expect(error.kind).toBe('unavailable');
    expect(error.message).toBe('GET /me: could not connect to api.gym.test (connection refused)');
    // Both are unavailable; the reason tells them apart, and only the refused connection is worth retrying.
    expect(error.reason).toBe('connection_refused');
    expect(error.retryable).toBe(true);
  });
});

describe('retries', () => {
  it('retries 503 and then succeeds', async () => {
    nock(BASE).get('/me').times(2).reply(503, { message: 'down', correlationId: 'c-1' });
    nock(BASE).get('/me').reply(200, { data: me });
    await expect(client({ retries: 2 }).getMe()).resolves.toEqual(me);
  });

  // 408, 429 and every 5xx: every operation is a GET, safe to send again.
  for (const status of [408, 429, 500, 501, 502, 504, 599]) {
    it(`retries ${status}`, async () => {
      nock(BASE).get('/me').reply(status, { message: 'x', correlationId: 'c-1' });
      nock(BASE).get('/me').reply(200, { data: me });
      await expect(client({ retries: 1 }).getMe()).resolves.toEqual(me);
    });
  }

  it('retries a reset connection', async () => {
    nock(BASE)
      .get('/me')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    nock(BASE).get('/me').reply(200, { data: me });
    await expect(client({ retries: 1 }).getMe()).resolves.toEqual(me);
  });

  it('gives up after the last retry, saying so, with the last status and correlation ID', async () => {
    nock(BASE).get('/me').reply(503, { message: 'down', correlationId: 'c-1' });
    nock(BASE).get('/me').reply(503, { message: 'still down', correlationId: 'c-2' });
    const error = await failure(client({ retries: 1 }).getMe());
    expect(error).toMatchObject({ kind: 'unavailable', status: 503, correlationId: 'c-2' });
    expect(error.message).toBe('GET /me: the server is unavailable: still down; gave up after 2 attempts');
  });

  for (const [status, body] of [
    [400, { message: 'bad', correlationId: 'c' }],
    [404, { message: 'Resource not found', correlationId: 'c' }],
    [401, { message: 'Unauthorized', correlationId: 'c' }],
  ] as const) {
    it(`does not retry ${status}: one attempt, whatever the retry budget`, async () => {
      let attempts = 0;
      nock(BASE)
        .get('/me')
        .reply(() => {
          attempts++;
          return [status, body];
        })
        .persist();
      const error = await failure(client({ retries: 3 }).getMe());
      expect(attempts).toBe(1);
      expect(error.status).toBe(status);
    });
  }

  it('a failure keeps the headers of the response it came with (Retry-After, rate limits, correlation ID)', async () => {
    nock(BASE).get('/me').reply(429, { message: 'slow down' }, { 'Retry-After': '120', 'X-RateLimit-Remaining': '0', 'X-Correlation-Id': 'c-429' });
    const error = await failure(client({ retries: 0 }).getMe());
    expect(error.headers?.get('retry-after')).toBe('120');
    expect(error.headers?.get('X-RateLimit-Remaining')).toBe('0');
    expect(error.headers?.get('x-correlation-id')).toBe('c-429');
  });

  it('waits as long as Retry-After says, in seconds', async () => {
    nock(BASE).get('/me').reply(429, { message: 'slow down', correlationId: 'c' }, { 'Retry-After': '1' });
    nock(BASE).get('/me').reply(200, { data: me });
    // The wait it takes, as traced: that it really waits what it takes is withRetries' test, on a fake clock (retry.test.ts).
    const trace: string[] = [];
    await client({ retries: 1, debug: (line) => trace.push(line) }).getMe();
    expect(trace.filter((line) => line.includes('retrying in'))).toEqual([expect.stringMatching(/^retrying in 1000 ms \(attempt 2 of 2\): /)]);
  });

  it('a Retry-After beyond the bound fails at once and says when to try again', async () => {
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    nock(BASE).get('/me').reply(429, { message: 'slow down', correlationId: 'c-9' }, { 'Retry-After': later });
    // Every wait before a retry is traced as "retrying in": at once is none, after one request.
    const trace: string[] = [];
    const error = await failure(client({ retries: 2, debug: (line) => trace.push(line) }).getMe());
    expect(trace.filter((line) => line.startsWith('> GET '))).toHaveLength(1);
    expect(trace.filter((line) => line.includes('retrying in'))).toEqual([]);
    expect(error).toMatchObject({ kind: 'unavailable', status: 429, correlationId: 'c-9' });
    expect(error.message).toMatch(/rate limited by the server.*asks to wait \d+(\.\d)? s, longer than gymctl waits \(20 s\): try again after \d{4}-/);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('debug trace', () => {
  it('traces each request and response with the key redacted', async () => {
    nock(BASE).get('/academies/2').reply(503, { message: 'down', correlationId: 'c-1' }, { 'X-Correlation-Id': 'c-1' });
    nock(BASE)
      .get('/academies/2')
      .reply(200, { data: { ...academy, id: 2 } });
    const lines: string[] = [];
    await client({ retries: 1, debug: (line) => lines.push(line) }).getAcademy(2);
    const trace = lines.join('\n');
    expect(trace).toContain(`> GET ${BASE}/academies/2`);
    expect(trace).toContain('> X-API-Key: [redacted]');
    expect(trace).toMatch(/< 503 .*correlation ID c-1/);
    expect(trace).toMatch(/retrying in \d+ ms \(attempt 2 of 2\)/);
    expect(trace).toMatch(/< 200 /);
    expect(trace).not.toContain(KEY);
  });

  it('redactHeaders hides every secret header, whatever its case', () => {
    expect(redactHeaders({ 'x-api-key': 'k', Authorization: 'Bearer t', Cookie: 'c', Accept: 'a' })).toEqual({
      'x-api-key': '[redacted]',
      Authorization: '[redacted]',
      Cookie: '[redacted]',
      Accept: 'a',
    });
  });
});

describe('what the review found', () => {
  it('a server that echoes the key back does not get it printed', async () => {
    nock(BASE)
      .get('/me')
      .reply(401, { message: `bad key ${KEY} refused`, correlationId: KEY });
    const error = await failure(client().getMe());
    expect(error.message).toBe('bad key [redacted] refused: the server refused the API key');
    expect(error.correlationId).toBe('[redacted]');
  });

  it('a bad base URL, timeout or retry count is a usage error, not a TypeError', () => {
    for (const options of [{ baseUrl: 'not a url' }, { timeoutMs: 0 }, { timeoutMs: 2 ** 31 }, { retries: -1 }, { retries: 1.5 }]) {
      let error: unknown;
      try {
        createClient({ baseUrl: BASE, apiKey: KEY, ...options });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(options)).toBeInstanceOf(GymApiError);
      expect((error as GymApiError).kind).toBe('usage');
    }
  });

  it("an id beyond 2^53 fails by default, naming ids: 'bigint', which gives it back exact; a number beyond a double gets a clear message", async () => {
    const big = '{"data":{"id":12345678901234567890,"franchiseId":9007199254740993}}';
    nock(BASE).get('/academies/1').reply(200, big, { 'content-type': 'application/json' });
    const rounded = await failure(client().getAcademy(1));
    expect(rounded.kind).toBe('invalid_response');
    expect(rounded.message).toContain("ids: 'bigint'");
    nock(BASE).get('/academies/1').reply(200, big, { 'content-type': 'application/json' });
    const academy = await client({ ids: 'bigint' }).getAcademy(1);
    expect(academy.id).toBe(12345678901234567890n);
    expect(academy.franchiseId).toBe(9007199254740993n);
    nock(BASE).get('/academies/1').reply(200, '{"data":{"id":1e30}}', { 'content-type': 'application/json' });
    expect((await failure(client().getAcademy(1))).message).toContain('data.id: expected integer, got an integer written so that it cannot be exact');
    nock(BASE).get('/academies/1').reply(200, '{"data":{"id":1,"coordinates":{"lat":1e999}}}', { 'content-type': 'application/json' });
    expect((await failure(client().getAcademy(1))).message).toContain('data.coordinates.lat: expected number, got a number out of range');
  });
});
