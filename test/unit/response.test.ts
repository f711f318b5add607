// Reading an answer's body and what it means (src/api/transport/response.ts), on answers made here: a body cut off
// mid-gzip, a body its server says is not encoded, and one nested past the guard.
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { operationFor } from '../../src/api/client.js';
import { GymApiError } from '../../src/api/errors.js';
import type { Exchange } from '../../src/api/transport/exchange.js';
import { describeAnswer, interpret, isJsonText, readBody, responseHead } from '../../src/api/transport/response.js';
import { MAX_JSON_DEPTH } from '../../src/json/exact.js';
import { academy, whoami } from '../../src/operations/index.js';

const operation = operationFor(academy, 7);

/** An answer with these headers, and this body; `cancelled` says whether the reading was stopped. */
function answer(headers: Record<string, string>, body: Exchange['body'], status = 200) {
  const state = { cancelled: false };
  const exchange: Exchange = {
    status,
    statusText: 'OK',
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    body,
    cancel: () => {
      state.cancelled = true;
    },
  };
  return { exchange, state };
}

const BODY = JSON.stringify({ data: { id: 7, name: 'Alfama' } });

describe('reading a body', () => {
  it('a connection reset mid-gzip fails the call as a body that cannot be decoded, instead of hanging until the timeout', async () => {
    const gzipped = gzipSync(Buffer.from(BODY.repeat(50)));
    const source = new Readable({ read() {} });
    source.on('error', () => {}); // as the sender's own listener does
    const { exchange, state } = answer({ 'content-encoding': 'gzip' }, source);
    let error: unknown;
    let settled = false;
    readBody(exchange, 1 << 20, operation).then(
      () => {
        settled = true;
      },
      (e: unknown) => {
        error = e;
        settled = true;
      },
    );
    source.push(gzipped.subarray(0, 20));
    source.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await new Promise((resolve) => source.on('close', resolve));
    // Settled within a few turns of the event loop once the socket is gone: never left to a timeout.
    for (let turn = 0; turn < 50 && !settled; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
    expect(error).toBeInstanceOf(GymApiError);
    expect((error as GymApiError).message).toBe('academy 7: the gzip body cannot be decoded (ECONNRESET)');
    expect(state.cancelled).toBe(true);
  });

  it('a connection reset in a body with no coding stays a network failure, which is retried, not a body that cannot be decoded', async () => {
    for (const coding of ['', 'identity']) {
      const source = new Readable({ read() {} });
      const { exchange, state } = answer({ 'content-encoding': coding }, source);
      const read = readBody(exchange, 1 << 20, operation);
      source.push(Buffer.from(BODY.slice(0, 10)));
      const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      source.destroy(reset);
      await expect(read, coding).rejects.toBe(reset);
      expect(state.cancelled, coding).toBe(false);
    }
  });

  it('a body the server says is sent with Content-Encoding: identity is read as it is', async () => {
    for (const coding of ['identity', ' Identity ', '']) {
      const { exchange } = answer({ 'content-encoding': coding }, Readable.from([Buffer.from(BODY)]));
      expect((await readBody(exchange, 1 << 20, operation)).toString(), coding).toBe(BODY);
    }
  });

  it('a gzip, deflate or br body is decoded; an unknown coding is refused, naming it', async () => {
    const zlib = await import('node:zlib');
    const encoded = { gzip: zlib.gzipSync(BODY), 'x-gzip': zlib.gzipSync(BODY), deflate: zlib.deflateSync(BODY), br: zlib.brotliCompressSync(BODY) };
    for (const [coding, bytes] of Object.entries(encoded)) {
      const { exchange } = answer({ 'content-encoding': coding }, Readable.from([bytes]));
      expect((await readBody(exchange, 1 << 20, operation)).toString(), coding).toBe(BODY);
    }
    const { exchange } = answer({ 'content-encoding': 'zstd' }, Readable.from([Buffer.from(BODY)]));
    await expect(readBody(exchange, 1 << 20, operation)).rejects.toThrow('academy 7: the response has a content coding gymctl cannot decode (zstd)');
  });
  it('a gzip body that inflates past the cap is refused as too large, not as a body that cannot be decoded', async () => {
    const zlib = await import('node:zlib');
    const bomb = zlib.gzipSync(Buffer.alloc(1 << 20, 0x20));
    expect(bomb.length).toBeLessThan(4096);
    const { exchange, state } = answer({ 'content-encoding': 'gzip' }, Readable.from([bomb]));
    await expect(readBody(exchange, 64 * 1024, operation)).rejects.toThrow(/^academy 7: the response body is larger than 64 KiB$/);
    expect(state.cancelled).toBe(true);
  });
});

describe('what an answer means', () => {
  it(`an answer nested deeper than ${MAX_JSON_DEPTH} levels is refused as such, before it is parsed`, () => {
    const deep = `{"data":${'['.repeat(MAX_JSON_DEPTH + 10)}${']'.repeat(MAX_JSON_DEPTH + 10)}}`;
    const { exchange } = answer({ 'content-type': 'application/json' }, null);
    expect(() => interpret(exchange, deep, operation)).toThrow(`academy 7: the response nests deeper than ${MAX_JSON_DEPTH} levels`);
  });
});

describe('what a failed answer says', () => {
  // status, reason phrase, headers, body, operation (academy 7, or whoami's /me), then the failure's kind, message,
  // reason, retryAfterMs, correlation ID and the server's own message: what the error line shows and what a script reads.
  const CASES: [number, string, Record<string, string>, string, 'academy' | 'me', string, string, string | null, number | null, string | null, string | null][] = [
    [
      401,
      'Unauthorized',
      { 'content-type': 'application/json' },
      '{"message":"Invalid key"}',
      'academy',
      'unauthorized',
      'academy 7: Invalid key: the server refused the API key',
      null,
      null,
      null,
      'Invalid key',
    ],
    [
      401,
      'Unauthorized',
      { 'content-type': 'application/json' },
      '{"message":"Invalid key"}',
      'me',
      'unauthorized',
      'Invalid key: the server refused the API key',
      null,
      null,
      null,
      'Invalid key',
    ],
    [
      401,
      'Unauthorized',
      { 'content-type': 'application/json' },
      '{}',
      'academy',
      'unauthorized',
      'academy 7: Unauthorized: the server refused the API key',
      null,
      null,
      null,
      null,
    ],
    [
      401,
      'Unauthorized',
      { 'www-authenticate': 'Basic realm="x"' },
      '<html>',
      'academy',
      'unauthorized',
      'academy 7: something in front of the API asks for a login of its own (Basic), not for the API key: check the base URL, or what stands between you and the API',
      null,
      null,
      null,
      null,
    ],
    [
      403,
      'Forbidden',
      { 'content-type': 'text/html; charset=utf-8' },
      '<html>',
      'academy',
      'unauthorized',
      'academy 7: access was denied by something in front of the API, which answered 403 Forbidden with an HTML page; the API itself did not refuse the key',
      null,
      null,
      null,
      null,
    ],
    [
      403,
      '',
      {},
      'x',
      'academy',
      'unauthorized',
      'academy 7: access was denied by something in front of the API, which answered 403 with a body with no content type; the API itself did not refuse the key',
      null,
      null,
      null,
      null,
    ],
    [
      404,
      'Not Found',
      { 'content-type': 'text/plain' },
      'nope',
      'academy',
      'invalid_response',
      "academy 7: the 404 answer (a text/plain body) is not the API's: the base URL or its path prefix (such as /api/v1) is probably wrong",
      null,
      null,
      null,
      null,
    ],
    [
      404,
      'Not Found',
      { 'content-type': 'application/json' },
      '{"message":"Resource not found","correlationId":"c-9"}',
      'academy',
      'not_found',
      'academy 7: Resource not found',
      null,
      null,
      'c-9',
      'Resource not found',
    ],
    [
      404,
      'Not Found',
      { 'content-type': 'application/json' },
      '{}',
      'academy',
      'invalid_response',
      "academy 7: the 404 answer (a JSON body that is not the API's error) is not the API's: the base URL or its path prefix (such as /api/v1) is probably wrong",
      null,
      null,
      null,
      null,
    ],
    [
      429,
      'Too Many Requests',
      { 'content-type': 'application/json', 'retry-after': '3' },
      '{"message":"slow down"}',
      'academy',
      'unavailable',
      'academy 7: rate limited by the server: slow down',
      'rate_limited',
      3000,
      null,
      'slow down',
    ],
    [429, 'Too Many Requests', {}, '', 'academy', 'unavailable', 'academy 7: rate limited by the server', 'rate_limited', null, null, null],
    [
      503,
      'Service Unavailable',
      { 'content-type': 'text/html ; charset=utf-8' },
      '<html><body>down</body></html>',
      'academy',
      'unavailable',
      'academy 7: the server is unavailable: it answered 503 Service Unavailable with an HTML page',
      'server_error',
      null,
      null,
      null,
    ],
    [
      503,
      'Service Unavailable',
      { 'content-type': 'model/gltf+json' },
      '{"asset":',
      'academy',
      'unavailable',
      'academy 7: the server is unavailable: it answered 503 Service Unavailable with a model/gltf+json body that does not parse (cut off, or malformed)',
      'server_error',
      null,
      null,
      null,
    ],
    [
      503,
      'Service Unavailable',
      { 'content-type': 'application/json' },
      '{"message":"maintenance"}',
      'academy',
      'unavailable',
      'academy 7: the server is unavailable: maintenance',
      'server_error',
      null,
      null,
      'maintenance',
    ],
    [
      502,
      '',
      { 'content-type': 'text/html' },
      '<html>',
      'academy',
      'unavailable',
      'academy 7: Bad Gateway: a gateway in front of the API could not reach it',
      'server_error',
      null,
      null,
      null,
    ],
    [
      502,
      'Bad Gateway!',
      { 'content-type': 'text/html' },
      '<html>',
      'academy',
      'unavailable',
      'academy 7: Bad Gateway!: a gateway in front of the API could not reach it',
      'server_error',
      null,
      null,
      null,
    ],
    [504, '', {}, '', 'academy', 'unavailable', 'academy 7: Gateway Timeout: a gateway in front of the API timed out waiting for it', 'server_error', null, null, null],
    [
      504,
      'Upstream Timeout',
      {},
      '',
      'academy',
      'unavailable',
      'academy 7: Upstream Timeout: a gateway in front of the API timed out waiting for it',
      'server_error',
      null,
      null,
      null,
    ],
    [
      500,
      'Internal Server Error',
      { 'content-type': 'application/problem+json' },
      '{bad',
      'academy',
      'unavailable',
      'academy 7: the server is unavailable: it answered 500 Internal Server Error with an application/problem+json body that does not parse (cut off, or malformed)',
      'server_error',
      null,
      null,
      null,
    ],
    [
      500,
      'Internal Server Error',
      { 'content-type': 'application/json' },
      '{bad',
      'academy',
      'unavailable',
      'academy 7: the server is unavailable: it answered 500 Internal Server Error with an application/json body that does not parse (cut off, or malformed)',
      'server_error',
      null,
      null,
      null,
    ],
    [
      500,
      'Internal Server Error',
      { 'content-type': 'image/png' },
      'x',
      'academy',
      'unavailable',
      'academy 7: the server is unavailable: it answered 500 Internal Server Error with an image/png body',
      'server_error',
      null,
      null,
      null,
    ],
    [
      500,
      'Internal Server Error',
      { 'content-type': 'application/octet-stream' },
      'x',
      'academy',
      'unavailable',
      'academy 7: the server is unavailable: it answered 500 Internal Server Error with an application/octet-stream body',
      'server_error',
      null,
      null,
      null,
    ],
    [
      301,
      'Moved',
      { location: 'https://elsewhere.example/x' },
      '',
      'academy',
      'invalid_response',
      'academy 7: the server answered with a redirect to https://elsewhere.example/x, which gymctl does not follow',
      null,
      null,
      null,
      null,
    ],
    [399, 'Odd', {}, '', 'academy', 'invalid_response', 'academy 7: the server answered with a redirect, which gymctl does not follow', null, null, null, null],
    [
      400,
      'Bad Request',
      { 'content-type': 'application/json' },
      '{"message":"bad id"}',
      'academy',
      'invalid_response',
      'academy 7: unexpected HTTP status 400 Bad Request: bad id',
      null,
      null,
      null,
      'bad id',
    ],
    [418, "I'm a teapot", {}, '', 'academy', 'invalid_response', "academy 7: unexpected HTTP status 418 I'm a teapot with a body with no content type", null, null, null, null],
    [
      407,
      '',
      {},
      '',
      'academy',
      'unavailable',
      'academy 7: Proxy Authentication Required: a proxy between gymctl and the API wants credentials; put them in HTTP_PROXY or HTTPS_PROXY, as http://user:password@host:port',
      'proxy',
      null,
      null,
      null,
    ],
    [
      407,
      'Proxy Auth Please',
      {},
      '',
      'academy',
      'unavailable',
      'academy 7: Proxy Auth Please: a proxy between gymctl and the API wants credentials; put them in HTTP_PROXY or HTTPS_PROXY, as http://user:password@host:port',
      'proxy',
      null,
      null,
      null,
    ],
    [
      200,
      'OK',
      { 'content-type': 'application/json' },
      '{"message":"oops","correlationId":"c-1"}',
      'academy',
      'invalid_response',
      'academy 7: unexpected response: data: missing (expected object)',
      null,
      null,
      'c-1',
      null,
    ],
    [200, 'OK', { 'content-type': 'application/json' }, '', 'academy', 'invalid_response', 'academy 7: the server sent an empty response', null, null, null, null],
    [200, 'OK', { 'content-type': 'application/json' }, '  ', 'academy', 'invalid_response', 'academy 7: the server sent an empty response', null, null, null, null],
    [
      200,
      'OK',
      { 'content-type': 'text/html' },
      '<html>',
      'academy',
      'invalid_response',
      'academy 7: the response is not JSON: the server sent an HTML page',
      null,
      null,
      null,
      null,
    ],
    [
      200,
      'OK',
      { 'content-type': 'application/json' },
      '[1]',
      'academy',
      'invalid_response',
      'academy 7: unexpected response: (body): expected object, got array',
      null,
      null,
      null,
      null,
    ],
    [
      200,
      'OK',
      { 'content-type': 'application/json' },
      'null',
      'academy',
      'invalid_response',
      'academy 7: unexpected response: (body): expected object, got null',
      null,
      null,
      null,
      null,
    ],
    [
      200,
      'OK',
      { 'content-type': 'application/json' },
      '\ufeff{"data":{"id":7,"name":"A","address":"x","franchiseId":null,"coordinates":null}}',
      'academy',
      'invalid_response',
      'academy 7: unexpected response: data.address: expected object, got string',
      null,
      null,
      null,
      null,
    ],
    [
      200,
      'OK',
      { 'content-type': 'application/json', 'x-correlation-id': 'h-1' },
      '{"data":{"id":"x"}}',
      'academy',
      'invalid_response',
      'academy 7: unexpected response: data.id: expected integer, got string',
      null,
      null,
      'h-1',
      null,
    ],
    [204, 'No Content', {}, '', 'academy', 'invalid_response', 'academy 7: the server sent an empty response', null, null, null, null],
    [
      299,
      'OK',
      { 'content-type': 'application/json' },
      '{"message":"m"}',
      'academy',
      'invalid_response',
      'academy 7: unexpected response: data: missing (expected object)',
      null,
      null,
      null,
      null,
    ],
    [
      300,
      'Multiple',
      { 'content-type': 'application/json' },
      '{"message":"m"}',
      'academy',
      'invalid_response',
      'academy 7: the server answered with a redirect, which gymctl does not follow',
      null,
      null,
      null,
      'm',
    ],
    [
      403,
      'Forbidden',
      { 'content-type': 'application/json' },
      '{}',
      'academy',
      'unauthorized',
      "academy 7: access was denied by something in front of the API, which answered 403 Forbidden with a JSON body that is not the API's error; the API itself did not refuse the key",
      null,
      null,
      null,
      null,
    ],
    [
      403,
      'Forbidden',
      { 'www-authenticate': 'Basic realm="x"' },
      '',
      'academy',
      'unauthorized',
      'academy 7: access was denied by something in front of the API, which answered 403 Forbidden with a body with no content type; the API itself did not refuse the key',
      null,
      null,
      null,
      null,
    ],
  ];

  it('each status, body and header a server or something in front of it sends is told apart, in words, with the right kind', () => {
    for (const [status, statusText, headers, text, which, kind, message, reason, retryAfterMs, correlationId, serverMessage] of CASES) {
      const { exchange } = answer(headers, null, status);
      exchange.statusText = statusText;
      const error = (() => {
        try {
          interpret(exchange, text, which === 'me' ? operationFor(whoami) : operation);
        } catch (e) {
          return e as GymApiError;
        }
        throw new Error(`${status} ${text}: no failure`);
      })();
      const label = `${status} ${statusText} ${JSON.stringify(headers)} ${text}`;
      expect(error, label).toBeInstanceOf(GymApiError);
      expect({ kind: error.kind, message: error.message, reason: error.reason ?? null, retryAfterMs: error.retryAfterMs ?? null }, label).toEqual({
        kind,
        message,
        reason,
        retryAfterMs,
      });
      expect({ correlationId: error.correlationId ?? null, serverMessage: error.serverMessage ?? null, status: error.status }, label).toEqual({
        correlationId,
        serverMessage,
        status,
      });
    }
  });

  it('a success is read past a byte-order mark, with the raw text of its data for --json', () => {
    const data = `{"id":7,"name":"Alfama","address":{"line1":"R. 1","city":"Lisboa","postalCode":"1100-001","country":"PT"}}`;
    const { exchange } = answer({ 'content-type': 'application/json', 'x-correlation-id': 'h-1' }, null);
    const parsed = interpret(exchange, `\ufeff{"data":${data}}`, operation);
    expect(parsed).toMatchObject({ rawData: data, status: 200, correlationId: 'h-1', data: { id: 7, name: 'Alfama' } });
  });

  it('a success whose data comes with a message that reads as the API\'s "not found" is data, not a failure', () => {
    const { exchange } = answer({ 'content-type': 'application/json' }, null);
    const parsed = interpret(exchange, '{"data":{"id":7,"name":"Alfama"},"message":"Resource not found"}', operation);
    expect(parsed.data).toMatchObject({ id: 7, name: 'Alfama' });
  });

  it("a success is traced by its header's correlation ID, not by a correlationId member beside its data", () => {
    const { exchange } = answer({ 'content-type': 'application/json', 'x-correlation-id': 'h-1' }, null);
    const body = '{"data":{"id":7,"name":"Alfama"},"correlationId":"01890a5d-ac96-774b-bcce-b302099a8057"}';
    expect(interpret(exchange, body, operation)).toMatchObject({ correlationId: 'h-1', data: { id: 7 } });
  });

  it('a library request with no schema hands back the body as sent, instead of failing on a schema it does not have', () => {
    const { exchange } = answer({ 'content-type': 'application/json' }, null);
    expect(interpret(exchange, '{"data":{"id":7}}', { path: '/academies/7', subject: 'academy 7' })).toMatchObject({ data: undefined, rawData: '{"data":{"id":7}}' });
  });

  it('a message of exactly 300 characters is shown whole', () => {
    const { exchange } = answer({ 'content-type': 'application/json' }, null, 404);
    const exact = 'x'.repeat(300);
    expect(() => interpret(exchange, JSON.stringify({ message: exact }), operation)).toThrow(/^academy 7: x{300}$/);
  });

  it('a message longer than 300 characters is cut, with an ellipsis', () => {
    const long = 'x'.repeat(301);
    const { exchange } = answer({ 'content-type': 'application/json' }, null, 404);
    const error = (() => {
      try {
        interpret(exchange, JSON.stringify({ message: long }), operation);
      } catch (e) {
        return e as GymApiError;
      }
      throw new Error('no failure');
    })();
    expect(error.message).toBe(`academy 7: ${'x'.repeat(300)}…`);
    expect(error.serverMessage).toBe(`${'x'.repeat(300)}…`);
  });
});

describe('the size cap and what an answer is said to be', () => {
  it('a body its server says is over the cap is refused before it is read, the cap said in the unit it was given in', async () => {
    const cases: [number, string][] = [
      [1024 * 1024, '1 MiB'],
      [3 * 1024 * 1024, '3 MiB'],
      [2048, '2 KiB'],
      [1024, '1 KiB'],
      [1536, '1536 bytes'],
      [1000, '1000 bytes'],
      [1024 * 1024 + 1024, '1025 KiB'],
    ];
    for (const [cap, said] of cases) {
      const { exchange, state } = answer({ 'content-length': String(cap + 1) }, Readable.from([Buffer.from('x')]));
      await expect(readBody(exchange, cap, operation), said).rejects.toThrow(`academy 7: the response body is larger than ${said}`);
      expect(state.cancelled).toBe(true);
    }
  });

  it('a body exactly at the cap is read; one byte more, sent without a length, is refused', async () => {
    const { exchange } = answer({ 'content-length': '4' }, Readable.from([Buffer.from('ab'), Buffer.from('cd')]));
    expect((await readBody(exchange, 4, operation)).toString()).toBe('abcd');
    const over = answer({}, Readable.from([Buffer.from('abcd'), Buffer.from('e')]));
    await expect(readBody(over.exchange, 4, operation)).rejects.toThrow('academy 7: the response body is larger than 4 bytes');
    expect(over.state.cancelled).toBe(true);
  });

  it('an answer with no body reads as empty', async () => {
    const { exchange } = answer({}, null);
    expect((await readBody(exchange, 10, operation)).length).toBe(0);
  });

  it('api -i shows the status line and headers as received, in order, repeated ones each on its own', () => {
    const { exchange } = answer({}, null);
    exchange.rawHeaders = ['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'X-Odd'];
    exchange.httpVersion = '1.0';
    expect(responseHead(exchange)).toEqual({
      version: 'HTTP/1.0',
      status: 200,
      statusText: 'OK',
      headers: [
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
      ],
    });
    const bare = answer({}, null).exchange;
    expect(responseHead(bare)).toEqual({ version: 'HTTP/1.1', status: 200, statusText: 'OK', headers: [] });
  });

  it('an answer is described by its size, its content type and its correlation ID, never its text', () => {
    expect(describeAnswer(answer({ 'content-type': 'application/json ; charset=utf-8', 'x-correlation-id': 'c-1' }, null).exchange, 12)).toBe(
      '12 characters, content type application/json, correlation ID c-1',
    );
    expect(describeAnswer(answer({}, null).exchange, 0)).toBe('0 characters, no content type');
  });

  it('a raw answer is cached only when it is JSON, a byte-order mark allowed', () => {
    expect(isJsonText('\ufeff{"a":1}')).toBe(true);
    expect(isJsonText('[1, 2]')).toBe(true);
    expect(isJsonText('<html>')).toBe(false);
  });

  it('gymctl api hands back a success as sent, unparsed', () => {
    const { exchange } = answer({ 'content-type': 'text/plain' }, null);
    expect(interpret(exchange, 'not json', { path: '/x', subject: 'GET /x', raw: true })).toMatchObject({ rawData: 'not json', status: 200 });
  });
});
