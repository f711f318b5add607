/**
 * Proxies and TLS as users meet them, in-process: a proxy that is down,
 * does not resolve, wants credentials or refuses the tunnel; a server that
 * does not speak TLS, or speaks only HTTP/2. What needs a trusted CA or a
 * real proxy is in test/e2e/proxies-tls.test.ts.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gymctl } from '../helpers/harness.js';
import { closedPort, httpServer, rawServer } from '../helpers/servers.js';
import { hasTool, makeAuthority, type Authority } from '../helpers/tls.js';

const KEY = 'test_key_0123456789';
/** Not loopback, so that the proxy is used; it never needs to resolve, as every connection goes to the proxy. */
const API = 'https://api.gym.test';

function expectFailure(result: { code: number; stdout: string; stderr: string }, code: number, message: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
}

const viaProxy = (proxy: string, name = 'HTTPS_PROXY') => ({ env: { GYMCTL_BASE_URL: API, GYMCTL_API_KEY: KEY, [name]: proxy } });

describe('proxies', () => {
  it('a proxy that is down is named, with the variable it came from, not the API host', async () => {
    const port = await closedPort();
    const result = await gymctl(['whoami', '--retries', '0'], viaProxy(`http://127.0.0.1:${port}`));
    expectFailure(result, 5, new RegExp(`could not reach the proxy http://127\\.0\\.0\\.1:${port} \\(from HTTPS_PROXY\\): connection refused`));
    expect(result.stderr).not.toContain('api.gym.test (connection refused)');
  });

  it('a proxy whose name does not resolve is named too', async () => {
    expectFailure(
      await gymctl(['whoami', '--retries', '0'], viaProxy('http://proxy.invalid:3128', 'https_proxy')),
      5,
      /could not reach the proxy http:\/\/proxy\.invalid:3128 \(from https_proxy\): its name does not resolve/,
    );
  });

  it('a 407 says the proxy wants credentials and how to give them, never printing a password', async () => {
    const proxy = await rawServer(() => 'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n');
    expectFailure(
      await gymctl(['whoami'], viaProxy(proxy.url)),
      5,
      /the proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) wants credentials: put them in HTTPS_PROXY, as http:\/\/user:password@host:port/,
    );
    const withPassword = await gymctl(['whoami'], viaProxy(`http://rita:s3cret-pass@127.0.0.1:${proxy.port}`));
    expectFailure(withPassword, 5, /the proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) refused the credentials in HTTPS_PROXY/);
    expect(withPassword.stderr).not.toContain('s3cret-pass');
  });

  for (const status of [403, 502]) {
    it(`a proxy that refuses the tunnel (${status}) says so, with its status`, async () => {
      const proxy = await rawServer(() => `HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\n\r\n`);
      expectFailure(
        await gymctl(['whoami'], viaProxy(proxy.url)),
        5,
        new RegExp(`the proxy http://127\\.0\\.0\\.1:\\d+ \\(from HTTPS_PROXY\\) refused to open a tunnel to api\\.gym\\.test \\(it answered ${status}\\)`),
      );
    });
  }

  it('a proxy variable that is not a URL is a usage error naming it; a value that may hold a password is not shown', async () => {
    expectFailure(await gymctl(['whoami'], viaProxy('not-a-url')), 2, /HTTPS_PROXY is not a proxy URL such as http:\/\/proxy\.example\.com:3128 \("not-a-url"\)/);
    const secret = await gymctl(['whoami'], viaProxy('rita:s3cret@proxy', 'HTTPS_PROXY'));
    expectFailure(secret, 2, /HTTPS_PROXY is not a proxy URL .*its value is not shown/);
    expect(secret.stderr).not.toContain('s3cret');
  });

  it('a proxy password with a bare % is a usage error saying to write it as %25, never "URI malformed", and the password is not shown', async () => {
    for (const value of ['http://rita:50%off@127.0.0.1:9', 'http://rita%zz:pw@127.0.0.1:9', 'http://rita:%ff@127.0.0.1:9']) {
      const result = await gymctl(['whoami'], viaProxy(value, 'HTTPS_PROXY'));
      expectFailure(result, 2, /^gymctl: HTTPS_PROXY has a user or password that cannot be percent-decoded: write a % in it as %25 \(its value is not shown\)$/m);
      expect(result.stderr).not.toMatch(/50%off|rita|URI malformed/);
    }
    // Written as the message says, the same password is sent: the proxy is reached (here, a port that refuses).
    const port = await closedPort();
    const written = await gymctl(['whoami', '--retries', '0'], viaProxy(`http://rita:50%25off@127.0.0.1:${port}`, 'HTTPS_PROXY'));
    expectFailure(written, 5, new RegExp(`could not reach the proxy http://127\\.0\\.0\\.1:${port} \\(from HTTPS_PROXY\\): connection refused`));
    expect(written.stderr).not.toMatch(/rita|50%/);
  });

  it('NO_PROXY and loopback bypass it', async () => {
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":{"id":1,"academyIds":[]}}'));
    const port = await closedPort();
    const result = await gymctl(['whoami', '--json'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: KEY, HTTP_PROXY: `http://127.0.0.1:${port}` } });
    expect(result.code, result.stderr).toBe(0);
  });
});

describe.skipIf(!hasTool('openssl', ['version']))('TLS', () => {
  let authority: Authority;
  beforeAll(() => {
    authority = makeAuthority();
  });
  afterAll(() => authority?.remove());

  it('plain http on the TLS port: the server does not speak TLS there (is the base URL http:?)', async () => {
    const url = await httpServer((_request, response) => response.end('{}'));
    const https = url.replace('http:', 'https:');
    expectFailure(
      await gymctl(['whoami', '--retries', '0'], { env: { GYMCTL_BASE_URL: https, GYMCTL_API_KEY: KEY } }),
      5,
      /GET \/me: the server at 127\.0\.0\.1:\d+ does not speak TLS there: is the base URL meant to be http:\?/,
    );
  });

  it('an HTTP/2-only server fails the handshake honestly (ALPN offers http/1.1): exit 5, never 4', async () => {
    const { key, cert } = authority.issue(['127.0.0.1']);
    const server = http2.createSecureServer({ key, cert, allowHTTP1: false }, (_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expectFailure(
        await gymctl(['whoami', '--retries', '0'], { env: { GYMCTL_BASE_URL: base, GYMCTL_API_KEY: KEY } }),
        5,
        /the server at 127\.0\.0\.1:\d+ speaks only HTTP\/2, and gymctl speaks HTTP\/1\.1/,
      );
    } finally {
      server.close();
    }
  });
});
