/**
 * Real servers misbehave in ways the sandbox does not: gateways that
 * compress, firewalls that answer in HTML, malformed HTTP, deep nesting,
 * 64-bit ids. gymctl in-process against small servers on 127.0.0.1.
 */

import zlib, { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import Table from 'cli-table3';
import { describe, expect, it, vi } from 'vitest';
import { CHUNK_ROWS } from '../../src/output/table.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { gymctl } from '../helpers/harness.js';
import { httpServer, rawServer } from '../helpers/servers.js';

const KEY = 'test_key_0123456789';
const env = (url: string, extra: Record<string, string> = {}) => ({ env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: KEY, ...extra } });
const academy = DEMO_DATA.academies[0]!;
const body = JSON.stringify({ data: academy });

/** A failure: its exit code, nothing on stdout, one line on stderr matching `message`, no stack. */
function expectFailure(result: { code: number; stdout: string; stderr: string }, code: number, message: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
}

describe('compressed bodies', () => {
  const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
  for (const [coding, encode] of Object.entries(encoders)) {
    it(`a ${coding} body is decoded, for the read commands and for gymctl api`, async () => {
      let asked: string | undefined;
      const url = await httpServer((request, response) => {
        asked = request.headers['accept-encoding'];
        response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding }).end(encode(body));
      });
      const result = await gymctl(['academy', '1', '--json'], env(url));
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual(academy);
      expect(asked).toBe('gzip, deflate, br');
      expect((await gymctl(['api', '/academies/1'], env(url))).stdout).toBe(body);
    });
  }

  it('a compression bomb stops at 10 MiB of output: exit 6, in bounded time', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    let requests = 0;
    const url = await httpServer((_request, response) => {
      requests++;
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(bomb);
    });
    // Bounded in work, not in seconds: the bytes gymctl's gunzip hands on are counted as it hands them on.
    const createGunzip = zlib.createGunzip;
    const decoders: number[] = [];
    const spy = vi.spyOn(zlib, 'createGunzip').mockImplementation((options) => {
      const decoder = createGunzip(options);
      const n = decoders.push(0) - 1;
      decoder.on('data', (chunk: Buffer) => (decoders[n]! += chunk.length));
      return decoder;
    });
    try {
      expectFailure(await gymctl(['academy', '1'], env(url)), 6, /the response body is larger than 10 MiB/);
    } finally {
      spy.mockRestore();
    }
    // One request, never retried, and one decoder that stopped within a chunk of 10 MiB: not the 64 MiB the body inflates to.
    expect(requests).toBe(1);
    expect(decoders).toHaveLength(1);
    expect(decoders[0]).toBeGreaterThan(10 * 1024 * 1024);
    expect(decoders[0]).toBeLessThanOrEqual(10 * 1024 * 1024 + 64 * 1024);
  });

  it('a coding gymctl cannot decode, or a corrupt body, is exit 6 saying so', async () => {
    const url = await httpServer((request, response) => {
      const coding = request.url === '/academies/1' ? 'zstd' : 'gzip';
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding }).end('not compressed at all');
    });
    expectFailure(await gymctl(['academy', '1'], env(url)), 6, /content coding gymctl cannot decode \(zstd\)/);
    expectFailure(await gymctl(['academy', '2'], env(url)), 6, /the gzip body cannot be decoded/);
  });
});

describe('gateways and firewalls', () => {
  const html = '<!DOCTYPE html><html><body><h1>Forbidden</h1></body></html>';

  it('a 403 with an HTML page blames something in front of the API, not the key: exit 4', async () => {
    const url = await httpServer((_request, response) => response.writeHead(403, { 'Content-Type': 'text/html' }).end(html));
    const result = await gymctl(['whoami'], env(url));
    expectFailure(
      result,
      4,
      /GET \/me: access was denied by something in front of the API, which answered 403 Forbidden with an HTML page; the API itself did not refuse the key \(HTTP 403\)/,
    );
    expect(result.stderr).not.toContain('refused the API key');
  });

  it('a 403 or 401 with the API error body blames the key; an HTML 401 does not', async () => {
    const url = await httpServer((request, response) => {
      if (request.url === '/me') response.writeHead(403, { 'Content-Type': 'application/json' }).end('{"message":"Unauthorized","correlationId":"c-1"}');
      else response.writeHead(401, { 'Content-Type': 'text/html' }).end(html);
    });
    expectFailure(
      await gymctl(['whoami'], env(url)),
      4,
      /^gymctl: Unauthorized: the server refused the API key from GYMCTL_API_KEY; check it with `gymctl auth status` \(HTTP 403, correlation ID c-1\)/,
    );
    const page = await gymctl(['academy', '1'], env(url));
    expectFailure(page, 4, /^gymctl: academy 1: access was denied by something in front of the API, which answered 401 Unauthorized with an HTML page/);
    expect(page.stderr).not.toContain('refused the API key');
  });

  it('gateways are named, not blamed on the API or the key: 502, 504, a login of their own, a proxy asking for credentials', async () => {
    const url = await httpServer((request, response) => {
      const page = { 'Content-Type': 'text/html' };
      if (request.url === '/academies/2') response.writeHead(502, 'Bad Gateway', page).end(html);
      else if (request.url === '/academies/4') response.writeHead(504, 'Gateway Time-out', page).end(html);
      else if (request.url === '/academies/401') response.writeHead(401, 'Unauthorized', { ...page, 'WWW-Authenticate': 'Basic realm="intranet"' }).end(html);
      else response.writeHead(407, 'Proxy Authentication Required', page).end(html);
    });
    const run = (id: string) => gymctl(['academy', id, '--retries', '0'], env(url));
    expectFailure(await run('2'), 5, /^gymctl: academy 2: Bad Gateway: a gateway in front of the API could not reach it \(HTTP 502\)\n$/);
    expectFailure(await run('4'), 5, /^gymctl: academy 4: Gateway Time-out: a gateway in front of the API timed out waiting for it \(HTTP 504\)\n$/);
    const login = await run('401');
    expectFailure(login, 4, /academy 401: something in front of the API asks for a login of its own \(Basic\), not for the API key/);
    expect(login.stderr).not.toContain('refused the API key');
    expectFailure(await run('407'), 5, /academy 407: Proxy Authentication Required: a proxy between gymctl and the API wants credentials; put them in HTTP_PROXY or HTTPS_PROXY/);
  });

  it('a byte order mark before a JSON body is skipped, as RFC 8259 allows; gymctl api keeps the bytes as sent', async () => {
    const body = '\ufeff{"data":{"id":1,"name":"BOM Academy"}}';
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
    const academy = await gymctl(['academy', '1', '--json'], env(url));
    expect(academy.code, academy.stderr).toBe(0);
    expect(JSON.parse(academy.stdout).name).toBe('BOM Academy');
    const api = await gymctl(['api', '/academies/1'], env(url));
    expect(api.stdout).toBe(body);
    expect((await gymctl(['api', '/academies/1', '--jq', '.data.name'], env(url))).stdout).toBe('BOM Academy\n');
  });

  it('an answer cut off on the way is said to be so; api --jq says the body is not JSON (exit 6), and api alone prints it as received', async () => {
    const body = '{"data":{"id":1,"name":"Cut';
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
    expectFailure(
      await gymctl(['academy', '1'], env(url)),
      6,
      /academy 1: the response is not JSON: the server sent an application\/json body that does not parse \(cut off, or malformed\)/,
    );
    const filtered = await gymctl(['api', '/academies/1', '--jq', '.data.name'], env(url));
    expect(filtered.code).toBe(6);
    expect(filtered.stdout).toBe('');
    expect(JSON.parse(filtered.stderr)).toMatchObject({
      error: { kind: 'invalid_response', status: 200, message: expect.stringContaining('the response is not JSON, so --jq cannot filter it') },
    });
    expect((await gymctl(['api', '/academies/1'], env(url))).stdout).toBe(body);
  });

  it('a 404 HTML page (a missing path prefix) is never "not found": exit 6, naming the base URL, with or without --ignore-not-found, in every format', async () => {
    const url = await httpServer((_request, response) => response.writeHead(404, { 'Content-Type': 'text/html' }).end(html));
    const blamed = `the base URL ${url} (from GYMCTL_BASE_URL) or its path prefix (such as /api/v1) is probably wrong`;
    const whoami = await gymctl(['whoami'], env(url));
    expectFailure(whoami, 6, /^gymctl: GET \/me: the 404 answer \(an HTML page\) is not the API's: /);
    expect(whoami.stderr).toBe(`gymctl: GET /me: the 404 answer (an HTML page) is not the API's: ${blamed} (HTTP 404)\n`);
    for (const format of ['table', 'csv', 'ndjson', 'json']) {
      const result = await gymctl(['academy', '7', '8', '--ignore-not-found', '--format', format], env(url));
      expect(result.code, format).toBe(6);
      expect(result.stdout, format).toBe('');
      expect(result.stderr, format).toContain(blamed);
      expect(result.stderr, format).not.toContain('skipped');
    }
  });

  it("a 404 with the API's error body is not found, and --ignore-not-found skips it", async () => {
    const url = await httpServer((_request, response) =>
      response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"Resource not found","correlationId":"c-9"}'),
    );
    expectFailure(await gymctl(['academy', '7'], env(url)), 3, /^gymctl: academy 7: Resource not found \(HTTP 404, correlation ID c-9\)\n$/);
    const skipped = await gymctl(['academy', '7', '8', '--ignore-not-found', '--format', 'csv'], env(url));
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toBe('');
  });

  it('a 204 or an empty 200 is "the server sent an empty response": exit 6', async () => {
    const url = await httpServer((request, response) => {
      if (request.url === '/me') response.writeHead(204).end();
      else response.writeHead(200, { 'Content-Type': 'application/json' }).end();
    });
    expectFailure(await gymctl(['whoami'], env(url)), 6, /GET \/me: the server sent an empty response \(HTTP 204\)/);
    expectFailure(await gymctl(['academy', '1'], env(url)), 6, /academy 1: the server sent an empty response \(HTTP 200\)/);
  });

  it('a Retry-After beyond any date is "longer than gymctl waits": exit 5, the usual message', async () => {
    const url = await httpServer((_request, response) =>
      response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '99999999999999999999' }).end('{"message":"Slow down"}'),
    );
    expectFailure(
      await gymctl(['whoami'], env(url)),
      5,
      /rate limited by the server: Slow down; the server asks to wait .* longer than gymctl waits \(20 s\): try again much later/,
    );
  });

  it('a huge correlation ID is clipped like messages, and made safe for a terminal', async () => {
    const huge = `\u001b]0;pwned\u0007${'x'.repeat(9 * 1024 * 1024)}`;
    const url = await httpServer((_request, response) =>
      response.writeHead(503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: 'down', correlationId: huge })),
    );
    const result = await gymctl(['whoami', '--retries', '0'], env(url));
    expectFailure(result, 5, /correlation ID \^\[\]0;pwned\^Gx+…\)\n$/);
    expect(result.stderr.length).toBeLessThan(1000);
    expect(result.stderr).not.toContain('\u001b');
  });
});

describe('malformed HTTP is exit 6, "the server sent malformed HTTP"', () => {
  const cases = {
    'a bad header token': 'HTTP/1.1 200 OK\r\nBad Header: x\r\nContent-Length: 2\r\n\r\n{}',
    'a bad Content-Length': 'HTTP/1.1 200 OK\r\nContent-Length: twelve\r\n\r\n{}',
    'headers that overflow': `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`,
  };
  for (const [name, reply] of Object.entries(cases)) {
    it(name, async () => {
      const server = await rawServer(() => reply);
      expectFailure(await gymctl(['whoami', '--retries', '0'], env(server.url)), 6, /GET \/me: the server sent malformed HTTP \(HPE_[A-Z_]+\)/);
    });
  }
});

describe('deep nesting', () => {
  it('30,000 levels are refused as invalid (exit 6) past 1,000, quickly', async () => {
    const deep = `{"data":{"id":1,"x":${'['.repeat(30_000)}${']'.repeat(30_000)}}}`;
    let requests = 0;
    const url = await httpServer((_request, response) => {
      requests++;
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(deep);
    });
    // Quickly, counted in work rather than seconds: the body is refused before it is parsed (let alone laid out, which
    // grows with the square of the depth), and an answer refused as invalid is not asked for again.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expectFailure(await gymctl(['academy', '1', '--json'], env(url)), 6, /academy 1: the response nests deeper than 1000 levels/);
      expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.includes('['.repeat(1001)))).toEqual([]);
    } finally {
      parse.mockRestore();
    }
    expect(requests).toBe(1);
  });

  it('1,000 levels are fine, and --json output stays within a constant factor of the body', async () => {
    const nested = `{"data":{"id":1,"x":${'['.repeat(998)}${']'.repeat(998)}}}`;
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(nested));
    const result = await gymctl(['academy', '1', '--json'], env(url));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.length).toBeLessThan(nested.length * 2100);
  });
});

describe('64-bit ids', () => {
  const big = {
    keys: [
      { secret: KEY, key: { id: 9223372036854775807n, name: 'Big', academyIds: [9007199254740993n, 2], user: { id: 12345678901234567890n, name: 'U', email: 'u@example.com' } } },
    ],
    academies: [
      { id: 9007199254740993n, name: 'Huge', franchiseId: 9223372036854775000n },
      { ...academy, id: 2 },
    ],
    members: [
      { id: 9007199254740995n, academyId: 9007199254740993n, firstName: 'A', lastName: 'B', primaryFamilyMember: true },
      { id: 9007199254740997n, academyId: 9007199254740993n, firstName: 'C', lastName: 'D', primaryFamilyMember: false },
    ],
    families: [[9007199254740995n, 9007199254740997n]],
  };

  it('are accepted and shown with every digit in every format', async () => {
    const sandbox = await startSandbox({ data: big as never });
    try {
      const run = (args: string[], extra: { stdoutTTY?: boolean } = {}) => gymctl(args, { ...env(sandbox.url, { NO_COLOR: '1' }), ...extra, columns: 200 });
      const json = await run(['whoami', '--json']);
      expect(json.stdout).toContain('"id": 9223372036854775807');
      expect(json.stdout).toContain('9007199254740993,\n');
      expect(json.stdout).toContain('"id": 12345678901234567890');
      const tsv = await run(['whoami']);
      expect(tsv.stdout.split('\n')[1]).toBe('9223372036854775807\tBig\t9007199254740993;2\t12345678901234567890\tU\tu@example.com');
      const card = await run(['academy', '9007199254740993'], { stdoutTTY: true });
      expect(card.stdout).toMatch(/^ID\s+9007199254740993$/m);
      expect(card.stdout).toMatch(/^Franchise\s+9223372036854775000$/m);
      const csv = await run(['academies', '--format', 'csv']);
      expect(csv.stdout.split('\r\n')[1]).toMatch(/^9007199254740993,Huge,.*,9223372036854775000,,$/);
      const ndjson = await run(['family', '9007199254740995', '--format', 'ndjson']);
      expect(ndjson.stdout).toBe('{"familyOf":9007199254740995,"id":9007199254740997,"academyId":9007199254740993,"firstName":"C","lastName":"D","primaryFamilyMember":false}\n');
      const slurped = await run(['academy', '9007199254740993', '9007199254740993', '--slurp', '--jq', 'map(.id)']);
      expect(slurped.stdout).toBe('[9007199254740993,9007199254740993]\n');
      const missing = await run(['academy', '9223372036854775807', '--format', 'ndjson']);
      expect(missing.code).toBe(3);
      expect(missing.stderr).toContain('"id":9223372036854775807}}');
    } finally {
      await sandbox.close();
    }
  });

  it("an academy id the server lists that gymctl cannot request fails as the answer's fault, not as a usage error", async () => {
    const paths: string[] = [];
    const url = await httpServer((request, response) => {
      paths.push(request.url ?? '');
      response.setHeader('content-type', 'application/json');
      if (request.url === '/me') response.end('{"data":{"id":1,"name":"k","academyIds":[1,0,9223372036854775808]}}');
      else response.end('{"data":{"id":1,"name":"One"}}');
    });
    const result = await gymctl(['academies', '--format', 'ndjson'], env(url));
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('{"id":1,"name":"One"}\n');
    const errors = result.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).error);
    expect(errors.map((e) => e.kind)).toEqual(['invalid_response', 'invalid_response']);
    expect(errors[0].id).toBe(0);
    expect(result.stderr).toContain('"id":9223372036854775808}}');
    expect(errors[0].message).toContain('the API key lists academy id 0, which gymctl cannot request');
    expect(paths).toEqual(['/me', '/academies/1']);
  });

  it('an id beyond 2^63-1 is a usage error before any request', async () => {
    let requests = 0;
    const url = await httpServer((_request, response) => {
      requests++;
      response.end();
    });
    expectFailure(
      await gymctl(['academy', '9223372036854775808'], env(url)),
      2,
      /academy id "9223372036854775808" is too large \(expected a whole number no larger than 9223372036854775807\)/,
    );
    expect(requests).toBe(0);
  });
});

describe('a terminal table of a 20,000-member family', () => {
  it('is drawn in chunks, linear in its rows: never as one cli-table3 table, whose layout is quadratic', async () => {
    const members = Array.from({ length: 20_000 }, (_, i) => ({ id: 1000 + i, academyId: 1, firstName: `First${i}`, lastName: `Last${i}`, primaryFamilyMember: false }));
    const payload = JSON.stringify({ data: members });
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(payload));
    // cli-table3's layout costs rows² in each table it draws: the rows of each one drawn are counted, not the seconds.
    const draw = Table.prototype.toString;
    const drawn: number[] = [];
    const spy = vi.spyOn(Table.prototype, 'toString').mockImplementation(function (this: Table.Table) {
      drawn.push(this.length);
      return draw.call(this);
    });
    let result: Awaited<ReturnType<typeof gymctl>>;
    try {
      result = await gymctl(['family', '1'], { ...env(url, { NO_COLOR: '1' }), stdoutTTY: true, columns: 100 });
    } finally {
      spy.mockRestore();
    }
    expect(result.code).toBe(0);
    // The rows, the top and bottom borders, the header and the rule under it, and the final newline.
    expect(result.stdout.split('\n')).toHaveLength(20_000 + 5);
    // Drawn as one cli-table3 table it took 25 to 43 s; in chunks of CHUNK_ROWS rows, a second or two (npm run bench times
    // it). Every row is drawn once, and no table drawn holds more than a chunk, nor more than a twentieth of the rows.
    expect(drawn.reduce((sum, rows) => sum + rows, 0)).toBe(20_000);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(CHUNK_ROWS);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(1000);
    // A ceiling of its own: 20,000 rows are parsed, checked, cut to width and drawn, a few seconds of work that a
    // loaded machine can stretch past the default 20 s. The chunking is held by the counts above, not by this.
  });
});

describe('an answer with several schema problems', () => {
  it('says the first with how many more, and --debug lists every one', async () => {
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":{"id":"1","name":2,"address":null}}'));
    const plain = await gymctl(['academy', '1'], env(url));
    expectFailure(plain, 6, /^gymctl: academy 1: unexpected response: data\.id: expected integer, got string \(and 1 more problem\)/);
    const debug = await gymctl(['academy', '1', '--debug'], env(url));
    expect(debug.code).toBe(6);
    const problems = debug.stderr.split('\n').filter((line) => line.includes('< problem: '));
    expect(problems).toEqual([
      expect.stringMatching(/< problem: data\.id: expected integer, got string$/),
      expect.stringMatching(/< problem: data\.name: expected string, got integer$/),
    ]);
  });
});
