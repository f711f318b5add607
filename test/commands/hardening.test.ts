/**
 * Faults, hostile input and secrets: gymctl in-process against sandboxes
 * with injected faults, a recording proxy and an https server, all on
 * loopback. Cases that only a process shows (proxy and CA variables read
 * from its environment, signals, two writers at once) spawn the built binary.
 */
import { execFileSync, spawn } from 'node:child_process';
import fc from 'fast-check';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { parseFault } from '../../src/sandbox/faults.js';
import { sandboxHandler, startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, runCli, spawnWatched, tempConfigDir, type CliResult, type RunOptions } from '../helpers/cli.js';
import { gymctl as inProcess } from '../helpers/harness.js';
import { httpServer } from '../helpers/servers.js';
import { waitFor } from '../helpers/wait.js';

let config: { dir: string; remove: () => void };
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.remove());

/** In-process, as most cases need no process. */
const gymctl = (args: string[], options: RunOptions = {}) =>
  inProcess(args, { configDir: config.dir, ...(options.env ? { env: options.env } : {}), ...(options.stdin !== undefined ? { stdin: options.stdin } : {}) });
/** The built binary, for what only a process shows: proxies and CAs read from its environment, signals, two writers. */
const spawned = (args: string[], options: RunOptions = {}) => runCli(args, config.dir, options);

function expectFailure(result: Pick<CliResult, 'code' | 'stdout' | 'stderr'>, code: number, message: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

/** A sandbox with faults, and the lines it logged. */
async function faulty(...specs: string[]) {
  const requests: string[] = [];
  const sandbox = await startSandbox({ faults: specs.map(parseFault), log: (line) => requests.push(line) });
  return { sandbox, requests, env: { GYMCTL_BASE_URL: sandbox.url, GYMCTL_API_KEY: DEMO_KEY } };
}

const sandboxes: Sandbox[] = [];
async function withFaults(...specs: string[]) {
  const f = await faulty(...specs);
  sandboxes.push(f.sandbox);
  return f;
}
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

describe('retries', () => {
  it('503 twice, then success: exit 0 after three attempts', async () => {
    const { env, requests } = await withFaults('unavailable*2');
    const result = await gymctl(['whoami', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(101);
    expect(requests.map((line) => line.split(' ')[2])).toEqual(['503', '503', '200']);
  });

  it('when retries run out: exit 5, saying what happened, with the last status and correlation ID', async () => {
    const { env, requests } = await withFaults('unavailable');
    const result = await gymctl(['academy', '1', '--retries', '1'], { env });
    expectFailure(result, 5, /^gymctl: academy 1: the server is unavailable: Service unavailable; gave up after 2 attempts \(HTTP 503, correlation ID [0-9a-f-]{36}\)\n$/);
    expect(requests).toHaveLength(2);
  });

  it('--retries 0 does not retry', async () => {
    const { env, requests } = await withFaults('unavailable');
    expectFailure(await gymctl(['whoami', '--retries', '0'], { env }), 5, /HTTP 503/);
    expect(requests).toHaveLength(1);
  });

  it('429 honours Retry-After, then succeeds', async () => {
    const { env } = await withFaults('rate-limit=1*1');
    // Traced (--debug), the wait before the retry is the second Retry-After asked for.
    const result = await gymctl(['whoami', '--json'], { env: { ...env, GYMCTL_DEBUG: '1' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.includes('retrying in'))).toEqual([expect.stringMatching(/retrying in 1000 ms \(attempt 2 of /)]);
  });

  it('a Retry-After longer than 20 s fails at once and says when to try again', async () => {
    const { env, requests } = await withFaults('rate-limit=3600');
    // Traced (--debug), every wait before a retry is a "retrying in" line: at once is none.
    const result = await gymctl(['whoami'], { env: { ...env, GYMCTL_DEBUG: '1' } });
    expectFailure(result, 5, /rate limited by the server.*asks to wait 3600 s, longer than gymctl waits \(20 s\): try again after \d{4}-\d\d-\d\dT.* \(HTTP 429/);
    expect(result.stderr).toContain('debug: > GET ');
    expect(result.stderr).not.toContain('retrying in');
    expect(requests).toHaveLength(1);
  });

  it('a dropped connection is retried', async () => {
    const { env, requests } = await withFaults('reset*1');
    const result = await gymctl(['whoami', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(requests[0]).toMatch(/reset/);
  });

  it('a server that keeps dropping the connection: exit 5', async () => {
    const { env } = await withFaults('reset');
    expectFailure(await gymctl(['whoami', '--retries', '1'], { env }), 5, /connection to 127\.0\.0\.1:\d+ failed .*gave up after 2 attempts/);
  });
});

describe('broken responses', () => {
  it('--timeout bounds each attempt: "timed out after N ms", exit 5', async () => {
    const { env } = await withFaults('slow=5000');
    expectFailure(await gymctl(['whoami', '--timeout', '300ms', '--retries', '0'], { env }), 5, /^gymctl: GET \/me: timed out after 300 ms\n$/);
    // Traced, the attempts and their ends: one request, ended by the timeout (not by the answer 5 s later).
    const traced = await gymctl(['whoami', '--timeout', '300ms', '--retries', '0', '--debug'], { env });
    expect(traced.stderr.match(/^debug: > GET /gm)).toHaveLength(1);
    expect(traced.stderr).toMatch(/^debug: < timed out after 300 ms$/m);
    expect(traced.stderr).not.toContain('retrying in');
  });

  it('a timed-out GET is retried within --retries, as a dropped connection is', async () => {
    const { env } = await withFaults('slow=5000');
    const traced = await gymctl(['whoami', '--timeout', '200ms', '--retries', '1', '--debug'], { env });
    expectFailure(traced, 5, /GET \/me: timed out after 200 ms; gave up after 2 attempts\n$/);
    expect(traced.stderr.match(/^debug: > GET /gm)).toHaveLength(2);
    expect(traced.stderr).toMatch(/^debug: retrying in \d+ ms \(attempt 2 of 2\): GET \/me: timed out after 200 ms$/m);
  });

  it('an HTML 500 page: exit 5 with the status and content type, the page not dumped', async () => {
    const { env } = await withFaults('html');
    const result = await gymctl(['whoami', '--retries', '0'], { env });
    expectFailure(result, 5, /^gymctl: GET \/me: the server is unavailable: it answered 500 Internal Server Error with an HTML page \(HTTP 500, correlation ID /);
    expect(result.stderr).not.toContain('<html');
  });

  it('truncated JSON: exit 6', async () => {
    const { env } = await withFaults('truncated');
    expectFailure(
      await gymctl(['academy', '1'], { env }),
      6,
      /academy 1: the response is not JSON: the server sent an application\/json body that does not parse \(cut off, or malformed\) \(HTTP 200/,
    );
  });

  it('a schema-drifted body: exit 6 naming the field', async () => {
    const { env } = await withFaults('drift');
    expectFailure(await gymctl(['academy', '2'], { env }), 6, /academy 2: unexpected response: data\.id: expected integer, got string/);
    expectFailure(await gymctl(['family', '501'], { env }), 6, /member 501: unexpected response: data: expected array, got object/);
  });

  it('an endless body is cut off at 10 MiB: exit 6', async () => {
    // The sandbox's endless body (it would go on for a minute), and how much of it was written before gymctl let go.
    let written = 0;
    let requests = 0;
    const endless = sandboxHandler(undefined, undefined, [parseFault('endless')]);
    const url = await httpServer((request, response) => {
      requests++;
      const write = response.write.bind(response) as (chunk: string) => boolean;
      response.write = ((chunk: string) => {
        written += Buffer.byteLength(chunk);
        return write(chunk);
      }) as typeof response.write;
      endless(request, response);
    });
    expectFailure(await gymctl(['whoami'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY } }), 6, /the response body is larger than 10 MiB/);
    // Cut off, not read to its end: the 10 MiB read, and what the sockets' buffers took in meanwhile; once.
    expect(written).toBeGreaterThan(10 * 1024 * 1024);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(requests).toBe(1);
  });

  it('a redirect is not followed and names where it pointed; the key goes nowhere else', async () => {
    const elsewhere: http.IncomingHttpHeaders[] = [];
    const other = http.createServer((request, response) => {
      elsewhere.push(request.headers);
      response.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const location = `http://127.0.0.1:${(other.address() as AddressInfo).port}/stolen`;
    const { env } = await withFaults(`redirect=${location}`);
    expectFailure(await gymctl(['whoami'], { env }), 6, new RegExp(`redirect to ${location}, which gymctl does not follow \\(HTTP 302`));
    await new Promise((resolve) => other.close(resolve));
    expect(elsewhere).toEqual([]);
  });
});

describe('the base URL', () => {
  for (const url of ['http://example.com', 'http://192.168.1.10:8080', 'http://[2001:db8::1]/']) {
    it(`plain http off loopback (${url}) exits 2 before connecting`, async () => {
      expectFailure(
        await gymctl(['whoami'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY } }),
        2,
        /refusing to send the API key over plain http to .* use https, or pass --allow-http/,
      );
    });
  }

  it('http is fine on loopback: 127.0.0.0/8, localhost and ::1', async () => {
    const { sandbox } = await withFaults();
    const port = new URL(sandbox.url).port;
    for (const host of ['127.0.0.1', 'localhost']) {
      const result = await gymctl(['whoami', '--json'], { env: { GYMCTL_BASE_URL: `http://${host}:${port}`, GYMCTL_API_KEY: DEMO_KEY } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
    }
  });

  for (const [url, why] of [
    ['https://user:pass@api.example.com', /credentials/],
    ['https://api.example.com/?key=1', /query/],
    ['https://api.example.com/#x', /fragment/],
    ['file:///etc/passwd', /scheme must be https: or http:/],
  ] as const) {
    it(`${url} is refused`, async () => {
      expectFailure(await gymctl(['whoami', '--base-url', url], { env: { GYMCTL_API_KEY: DEMO_KEY } }), 2, why);
    });
  }

  it('config set base-url applies the same rule; config list then takes the --allow-http its refusal asks for', async () => {
    expectFailure(await gymctl(['config', 'set', 'base-url', 'http://api.example.com']), 2, /--allow-http/);
    expect((await gymctl(['config', 'set', 'base-url', 'http://api.example.com', '--allow-http'])).code).toBe(0);
    expectFailure(await gymctl(['config', 'list']), 2, /pass --allow-http if you must\n$/);
    const listed = await gymctl(['config', 'list', '--allow-http']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('base-url=http://api.example.com');
  });
});

describe('proxies', () => {
  let proxy: net.Server;
  let proxyUrl: string;
  let tunnels: string[];
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
    const target = Number(new URL(sandbox.url).port);
    // A CONNECT proxy that records where it was asked to go, and always goes to the sandbox.
    const server = http.createServer((_request, response) => response.writeHead(405).end());
    server.on('connect', (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      tunnels.push(request.url ?? '');
      const upstream = net.connect(target, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    proxy = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    await sandbox.close();
  });
  beforeEach(() => {
    tunnels = [];
  });

  it('HTTP_PROXY is honoured, NO_PROXY bypasses it, and loopback never uses it', async () => {
    const env = { GYMCTL_BASE_URL: 'http://gym.test', GYMCTL_API_KEY: DEMO_KEY, HTTP_PROXY: proxyUrl };
    const result = await spawned(['whoami', '--json', '--allow-http'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(tunnels).toEqual(['gym.test:80']);
    tunnels = [];
    const bypass = await spawned(['whoami', '--json', '--allow-http', '--retries', '0'], { env: { ...env, NO_PROXY: 'gym.test' } });
    expect(bypass.code).toBe(5);
    expect(tunnels).toEqual([]);
    const loopback = await spawned(['whoami', '--json'], { env: { ...env, GYMCTL_BASE_URL: sandbox.url } });
    expect(loopback.code, loopback.stderr).toBe(0);
    expect(tunnels).toEqual([]);
  });

  it('--allow-http sends to a plain http host, with a warning', async () => {
    const env = { GYMCTL_BASE_URL: 'http://gym.test', GYMCTL_API_KEY: DEMO_KEY, HTTP_PROXY: proxyUrl };
    const result = await spawned(['whoami', '--json', '--allow-http'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('gymctl: warning: sending the API key over plain http to gym.test (--allow-http)\n');
    expect(tunnels).toEqual(['gym.test:80']);
  });
});

describe('a custom CA', () => {
  let server: https.Server;
  let url: string;
  let caFile: string;
  /** The CA's key and certificate: a folder of this block's own, removed after it (it holds a private key). */
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gymctl-ca-'));
    const key = path.join(dir, 'key.pem');
    caFile = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=gymctl test CA',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        key,
        '-out',
        caFile,
      ],
      { stdio: 'ignore' },
    );
    server = https.createServer({ key: readFileSync(key), cert: readFileSync(caFile) }, sandboxHandler());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('an unknown certificate authority is refused: exit 5', async () => {
    const result = await spawned(['whoami'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY } });
    expectFailure(result, 5, /the TLS certificate of 127\.0\.0\.1:\d+ is not trusted \([A-Z_]+\); .*NODE_EXTRA_CA_CERTS/);
  });

  it('NODE_EXTRA_CA_CERTS makes it trusted', async () => {
    const result = await spawned(['whoami', '--json'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY, NODE_EXTRA_CA_CERTS: caFile } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(101);
  });
});

describe('Ctrl-C', () => {
  it('aborts the request in flight and exits 130', async () => {
    // A server that never answers, counting the requests that reach it.
    let arrived = 0;
    const url = await httpServer(() => {
      arrived++;
    });
    const { child, ready } = spawnWatched(['whoami'], cleanEnv(config.dir, { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await ready;
    // Ctrl-C once the request is at the server, however long a loaded machine took to send it.
    await waitFor('the request at the server', () => arrived > 0 || child.exitCode !== null);
    child.kill('SIGINT');
    // Not aborted, the request would wait for its 30 s timeout (exit 5): only the interrupt gives 130.
    const code = await closed;
    expect(code, stderr).toBe(130);
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(arrived).toBe(1);
  });
});

describe('secrets', () => {
  it('--debug traces requests with the key redacted; GYMCTL_DEBUG=1 too', async () => {
    const secret = 'sk_live_this_must_never_show_1234';
    const { sandbox } = await withFaults('unavailable*1');
    for (const [args, extra] of [
      [['whoami', '--debug'], {}],
      [['whoami'], { GYMCTL_DEBUG: '1' }],
    ] as const) {
      const result = await gymctl([...args], { env: { GYMCTL_BASE_URL: sandbox.url, GYMCTL_API_KEY: secret, ...extra } });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('debug: > X-API-Key: [redacted]');
      expect(result.stderr).toMatch(/debug: > GET http:\/\/127\.0\.0\.1:\d+\/me/);
      expect(result.stderr).toMatch(/debug: < 401 Unauthorized in \d+ ms.*correlation ID/);
      expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
      expect(`${result.stdout}${result.stderr}`).not.toContain('this_must_never_show');
    }
  });

  it('a config file others can read earns a warning naming it and the fix', async () => {
    mkdirSync(config.dir, { recursive: true });
    const file = path.join(config.dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { default: { format: 'json' } } }));
    chmodSync(file, 0o644);
    const result = await gymctl(['config', 'get', 'format']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('json\n');
    expect(result.stderr).toBe(`gymctl: warning: config file ${file} can be read by others (mode 0644) and may hold your API key; fix it with: chmod 600 ${file}\n`);
    chmodSync(file, 0o600);
    expect((await gymctl(['config', 'get', 'format'])).stderr).toBe('');
  });

  it('two gymctl processes writing the config at once lose neither write', async () => {
    // The profiles exist (only auth login creates one); each writer changes its own.
    mkdirSync(config.dir, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(config.dir, 'config.json'), JSON.stringify({ profiles: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`p${i}`, {}])) }), { mode: 0o600 });
    const writers = Array.from({ length: 8 }, (_, i) => spawned(['config', 'set', 'timeout', `${1000 + i}ms`, '--profile', `p${i}`]));
    const results = await Promise.all(writers);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(path.join(config.dir, 'config.json'), 'utf8'));
    expect(Object.keys(stored.profiles).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}`));
    for (let i = 0; i < 8; i++) expect(stored.profiles[`p${i}`]).toEqual({ timeout: 1000 + i });
  });
});

describe('gymctl sandbox --fault', () => {
  it('injects the fault it is given, then answers normally', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--fault', 'unavailable*1'], { env: cleanEnv(config.dir) });
    let stdout = '';
    const url = await new Promise<string>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (\S+)/.exec(stdout);
        if (match) resolve(match[1]!);
      }),
    );
    const first = await fetch(`${url}/me`, { headers: { 'X-API-Key': DEMO_KEY } });
    const second = await fetch(`${url}/me`, { headers: { 'X-API-Key': DEMO_KEY } });
    expect([first.status, second.status]).toEqual([503, 200]);
    child.kill('SIGINT');
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(130);
  });

  it('an unknown fault is a usage error', async () => {
    expectFailure(await gymctl(['sandbox', '--fault', 'meltdown']), 2, /unknown fault "meltdown"/);
    // A fault that would hit no request is a mistake, not a no-op.
    expectFailure(await gymctl(['sandbox', '--fault', 'unavailable*0']), 2, /unknown fault "unavailable\*0".*TIMES a whole number from 1/);
  });
});

describe('arbitrary server answers, through the CLI', () => {
  it('always a documented exit code, never a stack trace, nothing on stdout after a failure', async () => {
    let reply = { status: 200, body: '', type: 'application/json' };
    const server = http.createServer((_request, response) => {
      response.writeHead(reply.status, reply.type ? { 'content-type': reply.type } : {});
      response.end(reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env = { GYMCTL_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, GYMCTL_API_KEY: DEMO_KEY };
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(200, 201, 302, 400, 401, 404, 418, 429, 500, 503),
          fc.oneof(
            fc.string(),
            fc.anything().map((value) => JSON.stringify({ data: value }) ?? ''),
            fc.record({ message: fc.string(), correlationId: fc.string() }).map((b) => JSON.stringify(b)),
          ),
          fc.constantFrom('application/json', 'text/html', ''),
          fc.constantFrom(['whoami'], ['academy', '1'], ['family', '1'], ['academy', '1', '2', '--format', 'csv']),
          async (status, body, type, args) => {
            reply = { status, body, type };
            const result = await gymctl([...args, '--retries', '0'], { env });
            expect([0, 3, 4, 5, 6]).toContain(result.code);
            expect(result.stderr).not.toMatch(/\n\s+at |TypeError|ReferenceError/);
            if (result.code !== 0) expect(result.stdout).toBe('');
            if (result.code === 0) expect(result.stderr).toBe('');
          },
        ),
        { numRuns: 24 },
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('what the review found', () => {
  it('a config file that is not JSON is reported by line and column, never quoting it (it may hold the key)', async () => {
    mkdirSync(config.dir, { recursive: true });
    writeFileSync(path.join(config.dir, 'config.json'), `{"profiles":{"default":{"apiKey":'k3y_9f8e7d_secret'}}}`, { mode: 0o600 });
    const result = await gymctl(['auth', 'status']);
    expectFailure(result, 1, /config file .*config\.json is not valid JSON \(error at line 1, column 34\); fix or remove it\n$/);
    expect(result.stderr).not.toMatch(/k3y|secret/);
  });

  it('a failed write to stdout is one line and exit 1, not a stack trace', async () => {
    const child = spawn('bash', ['-c', `'${process.execPath}' '${BIN}' config path > /dev/full`], { env: cleanEnv(config.dir) });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe('gymctl: cannot write output (ENOSPC)\n');
  });

  it('--sandbox ignores base URLs it does not use, however broken', async () => {
    const result = await gymctl(['academy', '1', '--sandbox', '--json'], { env: { GYMCTL_BASE_URL: 'ftp://bad' } });
    expect(result.code, result.stderr).toBe(0);
  });

  it('a stored json format makes every error a JSON line, even one found before the settings are read', async () => {
    expect((await gymctl(['config', 'set', 'format', 'json'])).code).toBe(0);
    for (const args of [
      ['academy', 'abc', '--sandbox'],
      ['academy', '99', '--sandbox'],
      ['whoami', '--timeout', '0', '--sandbox'],
    ]) {
      const result = await gymctl(args);
      expect(result.stdout).toBe('');
      expect(JSON.parse(result.stderr).error.kind).toMatch(/usage|not_found/);
    }
  });

  it('an unknown --option=value does not repeat the value', async () => {
    const result = await gymctl(['auth', 'login', '--with-key=sk_live_SECRET123']);
    expectFailure(result, 2, /unknown option '--with-key=…'/);
    expect(result.stderr).not.toContain('SECRET');
  });

  it('a key with characters no key can have is refused, saying where it came from but not what it is', async () => {
    const result = await gymctl(['whoami'], { env: { GYMCTL_API_KEY: 'clé_secrète_1234', GYMCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expectFailure(result, 2, /^gymctl: the API key from GYMCTL_API_KEY contains characters an API key cannot have .*the key is not shown\n$/);
    expect(result.stderr).not.toContain('secr');
  });

  it('an empty --host is refused rather than listening everywhere', async () => {
    expectFailure(await gymctl(['sandbox', '--host', '', '--port', '0']), 2, /--host needs an address/);
  });
});

describe('what the second review found', () => {
  it('loopback never goes through a proxy: --sandbox works with HTTP_PROXY pointing nowhere', async () => {
    const result = await gymctl(['whoami', '--sandbox', '--json'], { env: { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9' } });
    expect(result.code, result.stderr).toBe(0);
  });

  it('auth status --all holds stored base URLs to the https rule', async () => {
    mkdirSync(config.dir, { recursive: true });
    writeFileSync(path.join(config.dir, 'config.json'), JSON.stringify({ profiles: { plain: { apiKey: 'abcdefghijklmnop', baseUrl: 'http://gym.test:4311' } } }), { mode: 0o600 });
    const result = await gymctl(['auth', 'status', '--all']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^false\tplain\thttp:\/\/gym\.test:4311\t\*\*\*\*mnop\tconfig\tfailed: refusing to send the API key over plain http/m);
    expect(result.stderr).toBe('');
  });

  it('a proxy that drops every CONNECT ends in a timeout, not a spin', async () => {
    const proxy = http.createServer().on('connect', (_request, socket: net.Socket) => socket.destroy());
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const result = await spawned(['whoami', '--timeout', '800ms', '--retries', '0', '--base-url', 'https://api.example.com'], {
      env: { HTTPS_PROXY: proxyUrl, GYMCTL_API_KEY: 'abcdefghijklmnop' },
    });
    await new Promise((resolve) => proxy.close(resolve));
    // The process ends, and by its own timeout (a spin would go on until the test's ceiling ended it).
    expectFailure(result, 5, /timed out after 800 ms/);
  });

  it('--version and --help into a full disk: one line, exit 1', async () => {
    for (const flag of ['--version', '--help']) {
      const child = spawn('bash', ['-c', `'${process.execPath}' '${BIN}' ${flag} > /dev/full`], { env: cleanEnv(config.dir) });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await new Promise((resolve) => child.on('close', resolve))).toBe(1);
      expect(stderr).toBe('gymctl: cannot write output (ENOSPC)\n');
    }
  });

  it('a server that echoes the key in its correlation header does not get it into --debug', async () => {
    const server = http.createServer((request, response) => {
      response.writeHead(401, { 'X-Correlation-Id': String(request.headers['x-api-key']) }).end('{"message":"Unauthorized"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const result = await gymctl(['whoami', '--debug'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: 'echoed_key_1234567890' } });
    await new Promise((resolve) => server.close(resolve));
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('correlation ID [redacted]');
    expect(result.stderr).not.toContain('echoed_key_1234567890');
  });
});
