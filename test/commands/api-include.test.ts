/**
 * `gymctl api --include` (`-i`), as `gh api -i`: the status line and the
 * response headers, an empty line, then the body; as received in a pipe,
 * made safe on a terminal. In-process, against the sandbox or a server
 * that writes exact bytes (headers the sandbox never sends).
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { type FakeStreams, gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { rawServer } from '../helpers/servers.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();

const gymctl = (args: string[], options: GymctlOptions = {}) =>
  inProcess(args, { configDir: world.config.dir, ...options, env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY, ...options.env } });

/** What -i printed, split at the first empty line: the head's lines, and the body. */
function split(text: string): { head: string[]; body: string } {
  const at = text.indexOf('\n\n');
  expect(at, text).toBeGreaterThan(0);
  return { head: text.slice(0, at).split('\n'), body: text.slice(at + 2) };
}

/** Text whose UTF-8 bytes are written one a character, as a server's head is sent. */
const utf8Bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

/** A server that answers with these head lines and body, byte for byte (CRLF line ends, as on the wire). */
async function answering(lines: string[], body: string): Promise<string> {
  const head = [...lines, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  const { url } = await rawServer(() => Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'latin1'));
  return url;
}

const BODY = '{"data":{"id":1,"name":"A"}}';

/** Headers the sandbox never sends: an escape in the reason phrase, Set-Cookie twice and in two spellings, UTF-8, a C1 control. */
const ODD_HEAD = [
  'HTTP/1.1 200 Fine \x1b[31mThanks',
  'Content-Type: application/json',
  'Set-Cookie: a=1',
  'X-RateLimit-Remaining: 59',
  'set-cookie: b=2; Path=/',
  `X-Name: ${utf8Bytes('café')}`,
  // CSI (U+009B) as UTF-8, and as the lone byte an 8-bit terminal runs: both escape sequences.
  `X-Csi: ${utf8Bytes('\u009b31m')}`,
  'X-Lone: \x9b2J',
];

describe('gymctl api --include', () => {
  it('prints the status line, the response headers and an empty line, then the body as without it', async () => {
    const plain = await gymctl(['api', '/me']);
    for (const flag of ['-i', '--include']) {
      const result = await gymctl(['api', flag, '/me']);
      expect(result.code, result.stderr).toBe(0);
      const { head, body } = split(result.stdout);
      expect(head[0]).toBe('HTTP/1.1 200 OK');
      expect(head).toContain('Content-Type: application/json; charset=utf-8');
      expect(head.filter((line) => line.startsWith('X-Correlation-Id: '))).toEqual([expect.stringMatching(/^X-Correlation-Id: [0-9a-f-]{36}$/)]);
      expect(body).toBe(plain.stdout);
      // The server's headers only: none of those gymctl sent, and never the key.
      expect(result.stdout).not.toContain(DEMO_KEY);
      expect(result.stdout).not.toMatch(/^(X-API-Key|User-Agent|Accept|Accept-Encoding):/im);
    }
  });

  it('in a pipe: the head byte for byte as received, in order, names as spelled, repeated headers kept, LF line ends', async () => {
    const url = await answering(ODD_HEAD, BODY);
    let streams: FakeStreams | undefined;
    const result = await gymctl(['api', '-i', '/anything'], { env: { GYMCTL_BASE_URL: url }, started: (fakes) => (streams = fakes) });
    expect(result.code, result.stderr).toBe(0);
    const expected = [...ODD_HEAD, `Content-Length: ${BODY.length}`, 'Connection: close'];
    expect(streams!.stdoutBytes().toString('latin1')).toBe(`${expected.join('\n')}\n\n${BODY}`);
  });

  it('on a terminal: the head made safe (escape sequences shown, UTF-8 read as such), the body laid out as without it', async () => {
    const url = await answering(ODD_HEAD, BODY);
    const result = await gymctl(['api', '-i', '/anything'], { env: { GYMCTL_BASE_URL: url }, stdoutTTY: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'HTTP/1.1 200 Fine ^[[31mThanks',
        'Content-Type: application/json',
        'Set-Cookie: a=1',
        'X-RateLimit-Remaining: 59',
        'set-cookie: b=2; Path=/',
        'X-Name: café',
        'X-Csi: ^[[31m',
        'X-Lone: ^[[2J',
        `Content-Length: ${BODY.length}`,
        'Connection: close',
        '',
        '{',
        '  "data": {',
        '    "id": 1,',
        '    "name": "A"',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toMatch(/[\u001b\u009b]/);
  });

  it('with --jq: the head first, then the filter over the body alone', async () => {
    const name = JSON.parse((await gymctl(['api', '/me'])).stdout).data.name;
    for (const stdoutTTY of [false, true]) {
      const result = await gymctl(['api', '-i', '/me', '--jq', '.data.name'], { stdoutTTY });
      expect(result.code, result.stderr).toBe(0);
      const { head, body } = split(result.stdout);
      expect(head[0]).toBe('HTTP/1.1 200 OK');
      expect(body).toBe(`${name}\n`);
    }
  });

  it('with --jq that fails before printing: stdout stays empty, the head goes to stderr inside the JSON error line (--jq implies --json); after a result, both stay on stdout', async () => {
    const failing = await gymctl(['api', '-i', '/me', '--jq', '.data.name | error("no \\(.)")']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toBe('');
    // --jq implies --json: errors are JSON lines, so the head is inside the one line.
    const line = JSON.parse(failing.stderr) as { error: { message: string; head: { status: number } } };
    expect(line.error.message).toMatch(/^--jq filter failed: no .+$/);
    expect(line.error.head.status).toBe(200);
    // jq prints what it has, then fails: the head is printed with the first result.
    const partial = await gymctl(['api', '-i', '/me', '--jq', '.data.id, error("stop")']);
    expect(partial.code).toBe(1);
    expect(split(partial.stdout).body).toMatch(/^\d+\n$/);
    expect(JSON.parse(partial.stderr)).toMatchObject({ error: { message: '--jq filter failed: stop' } });
    // A filter with no result still gets the head.
    const empty = await gymctl(['api', '-i', '/me', '--jq', 'empty']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(split(empty.stdout)).toEqual({ head: expect.arrayContaining(['HTTP/1.1 200 OK']), body: '' });
  });

  it('with errors as JSON (a stored json format), stderr stays one JSON line: the head is inside it, headers in the order received', async () => {
    expect((await gymctl(['config', 'set', 'format', 'ndjson'])).code).toBe(0);
    const url = await answering(
      ['HTTP/1.1 429 Too Many Requests', 'Retry-After: 30', `X-Name: ${utf8Bytes('café')}`, 'X-Correlation-Id: c-429', 'Content-Type: application/json'],
      '{"message":"Too many calls"}',
    );
    const result = await gymctl(['api', '-i', '/me', '--retries', '0'], { env: { GYMCTL_BASE_URL: url } });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toHaveLength(2);
    const { error } = JSON.parse(result.stderr);
    expect(error).toMatchObject({ message: 'Too many calls', status: 429, correlationId: 'c-429', kind: 'unavailable' });
    expect(error.head).toEqual({
      version: 'HTTP/1.1',
      status: 429,
      statusText: 'Too Many Requests',
      headers: [
        ['Retry-After', '30'],
        ['X-Name', 'café'],
        ['X-Correlation-Id', 'c-429'],
        ['Content-Type', 'application/json'],
        ['Content-Length', '28'],
        ['Connection', 'close'],
      ],
    });
    // Without -i, the error line as always, with no head.
    const plain = await gymctl(['api', '/me', '--retries', '0'], { env: { GYMCTL_BASE_URL: url } });
    expect(JSON.parse(plain.stderr).error).not.toHaveProperty('head');
  });

  it('on an HTTP error: stdout stays empty; the head goes to stderr, made safe, before the usual error, with the usual exit code', async () => {
    const url = await answering(
      ['HTTP/1.1 429 Slow \x1b]0;down\x07Down', 'Retry-After: 30', 'X-RateLimit-Remaining: 0', 'X-Correlation-Id: c-429', 'Content-Type: application/json'],
      '{"message":"Too many calls"}',
    );
    const result = await gymctl(['api', '-i', '/me', '--retries', '0'], { env: { GYMCTL_BASE_URL: url } });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    const { head, body } = split(result.stderr);
    expect(head).toEqual([
      'HTTP/1.1 429 Slow ^[]0;down^GDown',
      'Retry-After: 30',
      'X-RateLimit-Remaining: 0',
      'X-Correlation-Id: c-429',
      'Content-Type: application/json',
      'Content-Length: 28',
      'Connection: close',
    ]);
    const errorLine = /^gymctl: GET \/me: rate limited by the server: Too many calls.*\(HTTP 429, correlation ID c-429\)\n$/;
    expect(body).toMatch(errorLine);
    // Without -i, the error line alone, as always.
    const plain = await gymctl(['api', '/me', '--retries', '0'], { env: { GYMCTL_BASE_URL: url } });
    expect(plain.stderr).toMatch(errorLine);
  });

  it('after retries, the head shown is that of the last answer, on success and on failure', async () => {
    const serve = async (statuses: string[]) => {
      let attempt = 0;
      const { url } = await rawServer(() => {
        const status = statuses[attempt++] ?? statuses.at(-1)!;
        const body = status.startsWith('200') ? BODY : '{"message":"busy"}';
        return `HTTP/1.1 ${status}\r\nX-Attempt: ${attempt}\r\nRetry-After: 0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
      });
      return url;
    };
    const recovered = await gymctl(['api', '-i', '/me', '--retries', '1'], { env: { GYMCTL_BASE_URL: await serve(['503 Service Unavailable', '200 OK']) } });
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(split(recovered.stdout).head).toEqual(expect.arrayContaining(['HTTP/1.1 200 OK', 'X-Attempt: 2']));
    const failed = await gymctl(['api', '-i', '/me', '--retries', '1'], { env: { GYMCTL_BASE_URL: await serve(['503 Service Unavailable', '429 Too Many Requests']) } });
    expect(failed.code).toBe(5);
    expect(failed.stdout).toBe('');
    expect(split(failed.stderr).head).toEqual(expect.arrayContaining(['HTTP/1.1 429 Too Many Requests', 'X-Attempt: 2']));
  });

  it("the sandbox's 404: exit 3, nothing on stdout, its head and correlation ID on stderr", async () => {
    const result = await gymctl(['api', '-i', '/academies/999']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    const { head, body } = split(result.stderr);
    expect(head[0]).toBe('HTTP/1.1 404 Not Found');
    const id = head.find((line) => line.startsWith('X-Correlation-Id: '))!.slice('X-Correlation-Id: '.length);
    expect(body).toBe(`gymctl: GET /academies/999: Resource not found (HTTP 404, correlation ID ${id})\n`);
  });

  it('a server that echoes the key in a header does not get it printed, on success or failure', async () => {
    for (const status of ['200 OK', '401 Unauthorized']) {
      const { url } = await rawServer((request) => {
        const key = /^x-api-key: (.*)\r$/im.exec(request)![1]!;
        const body = status.startsWith('200') ? BODY : '{"message":"Unauthorized"}';
        return `HTTP/1.1 ${status}\r\nX-Echo: key=${key};\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
      });
      const result = await gymctl(['api', '-i', '/me'], { env: { GYMCTL_BASE_URL: url } });
      expect(`${result.stdout}${result.stderr}`).not.toContain(DEMO_KEY);
      expect(`${result.stdout}${result.stderr}`).toContain('X-Echo: key=[redacted];\n');
    }
  });

  it('with --cache, a cached answer shows the head kept with it: the same bytes as when it was fetched', async () => {
    const args = ['api', '-i', '/me', '--cache', '5m'];
    const first = await gymctl(args);
    const second = await gymctl(args);
    expect(world.requests.length).toBe(1);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(split(second.stdout).head[0]).toBe('HTTP/1.1 200 OK');
  });

  it('is an option of api alone, and Tab offers it there', async () => {
    for (const args of [
      ['whoami', '-i'],
      ['academy', '1', '--include'],
    ]) {
      const result = await gymctl(args);
      expect({ code: result.code, stdout: result.stdout }, args.join(' ')).toEqual({ code: 2, stdout: '' });
    }
    const offered = (await gymctl(['__complete', '--', 'api', '-'])).stdout.split('\n');
    expect(offered).toEqual(expect.arrayContaining(['--include', '-i']));
    expect((await gymctl(['__complete', '--', 'whoami', '-'])).stdout.split('\n')).not.toContain('--include');
  });
});
