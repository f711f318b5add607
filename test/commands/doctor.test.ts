/**
 * `gymctl doctor`: each check against a failure the suite can stage for
 * real (a refused key, a wrong path prefix, an untrusted CA, a proxy that
 * is down, a loose config mode), its JSON, its exit codes, and that it
 * never prints the key.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { runCli } from '../helpers/cli.js';
import { gymctl } from '../helpers/harness.js';
import { httpServer } from '../helpers/servers.js';
import { hasTool, makeAuthority, type Authority } from '../helpers/tls.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
interface Check {
  check: string;
  status: 'pass' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix: string | null;
}

async function doctor(env: Record<string, string | undefined>, ...args: string[]) {
  const result = await gymctl(['doctor', '--json', ...args], { configDir: world.config.dir, env: { NODE_EXTRA_CA_CERTS: undefined, ...env } });
  const checks = JSON.parse(result.stdout || '[]') as Check[];
  return { ...result, checks, of: (name: string) => checks.find((c) => c.check === name) };
}

const api = () => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });

describe('gymctl doctor', () => {
  it('passes every check against a working API: a stable list of {check, status, detail, fix}, and never the key', async () => {
    const result = await doctor(api());
    expect(result.code, result.stderr).toBe(0);
    expect(result.checks.map((c) => c.check)).toEqual(['node', 'config file', 'profile', 'key', 'base URL', 'proxy', 'API', 'cache folder']);
    for (const check of result.checks) {
      expect(Object.keys(check)).toEqual(['check', 'status', 'detail', 'fix']);
      expect(check.status, check.check).toBe('pass');
    }
    expect(result.of('API')!.detail).toMatch(/^GET \/me: 200 in \d+ ms, correlation ID \S+$/);
    expect(result.of('key')!.detail).toBe('from GYMCTL_API_KEY');
    expect(result.stdout + result.stderr).not.toContain(DEMO_KEY);
  });

  it('a refused key fails the API check, and exits 4', async () => {
    const result = await doctor({ ...api(), GYMCTL_API_KEY: 'wrong_key_0123456789' });
    expect(result.code).toBe(4);
    expect(result.of('API')).toMatchObject({ status: 'fail', fix: 'gymctl auth login with a valid key' });
    expect(result.stdout + result.stderr).not.toContain('wrong_key_0123456789');
  });

  it('an HTML 404 says the path prefix is probably wrong, and exits 5', async () => {
    const url = await httpServer((_request, response) => response.writeHead(404, { 'content-type': 'text/html' }).end('<html>no</html>'));
    const result = await doctor({ GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY }, '--retries', '0');
    expect(result.code).toBe(5);
    expect(result.of('API')!.detail).toMatch(/path prefix/);
  });

  it('a proxy that is down: named, its credentials not shown, and the API fails with exit 5', async () => {
    const result = await doctor({ GYMCTL_BASE_URL: 'https://api.example.test', GYMCTL_API_KEY: DEMO_KEY, HTTPS_PROXY: 'http://user:s3cret@127.0.0.1:9' }, '--retries', '0');
    expect(result.of('proxy')!.detail).toBe('HTTPS_PROXY: http://127.0.0.1:9 (with credentials, not shown)');
    expect(result.of('TLS')).toMatchObject({ status: 'skip' });
    expect(result.of('API')!.status).toBe('fail');
    expect(result.code).toBe(5);
    expect(result.stdout + result.stderr).not.toContain('s3cret');
  });

  it('a config file others can read is a warning, not a failure: exit 0', async () => {
    mkdirSync(world.config.dir, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(world.config.dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: DEMO_KEY, baseUrl: world.sandbox.url } } }), { mode: 0o600 });
    chmodSync(path.join(world.config.dir, 'config.json'), 0o644);
    const result = await doctor({});
    expect(result.of('config file')).toMatchObject({ status: 'warn', fix: `chmod 600 ${path.join(world.config.dir, 'config.json')}` });
    expect(result.of('key')!.detail).toBe('from the config file');
    expect(result.of('API')!.status).toBe('pass');
    expect(result.code).toBe(0);
  });

  it('no key is a failure of the key check: exit 4, and the API is not called', async () => {
    world.requests.length = 0;
    const result = await doctor({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: undefined });
    expect(result.of('key')).toMatchObject({ status: 'fail', fix: 'gymctl auth login, or set GYMCTL_API_KEY' });
    expect(result.of('API')!.status).toBe('skip');
    expect(result.code).toBe(4);
    expect(world.requests).toEqual([]);
  });

  it('--offline sends nothing: the network checks are skipped', async () => {
    world.requests.length = 0;
    const result = await doctor(api(), '--offline');
    expect(result.code).toBe(0);
    expect(result.of('API')).toMatchObject({ status: 'skip', detail: 'skipped (--offline)' });
    expect(world.requests).toEqual([]);
  });

  it('on a terminal: a table drawn by the same renderer as every table', async () => {
    const result = await gymctl(['doctor', '--offline'], { configDir: world.config.dir, env: { ...api(), NO_COLOR: '1' }, stdoutTTY: true, columns: 120 });
    expect(result.stdout).toMatch(/│ Check\s+│ Status │/);
  });
});

describe.skipIf(!hasTool('openssl', ['version']))('gymctl doctor and TLS', () => {
  let authority: Authority;
  beforeAll(() => {
    authority = makeAuthority();
  });
  afterAll(() => authority?.remove());

  it('an untrusted certificate fails the TLS check with the fix (NODE_EXTRA_CA_CERTS), and exits 5', async () => {
    const { key, cert } = authority.issue(['127.0.0.1'], 30);
    const server = https.createServer({ key, cert }, (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"id":1,"name":"k","academyIds":[]}}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const untrusted = await doctor({ GYMCTL_BASE_URL: base, GYMCTL_API_KEY: DEMO_KEY }, '--retries', '0');
      expect(untrusted.of('TLS')).toMatchObject({ status: 'fail', fix: 'trust the CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem' });
      expect(untrusted.of('TLS')!.detail).toMatch(/^127\.0\.0\.1:\d+: [A-Z_]+/);
      expect(untrusted.code).toBe(5);
      // Trusted through NODE_EXTRA_CA_CERTS, which Node reads at start: a process of its own.
      const trusted = await runCli(['doctor', '--json'], world.config.dir, { env: { GYMCTL_BASE_URL: base, GYMCTL_API_KEY: DEMO_KEY, NODE_EXTRA_CA_CERTS: authority.ca.file } });
      const checks = JSON.parse(trusted.stdout) as Check[];
      expect(checks.find((c) => c.check === 'extra CAs')).toMatchObject({ status: 'pass' });
      expect(checks.find((c) => c.check === 'TLS')!.detail).toMatch(/^trusted, for 127\.0\.0\.1; expires in (29|30) days$/);
      expect(trusted.code, trusted.stderr).toBe(0);
    } finally {
      server.close();
    }
  });
});
