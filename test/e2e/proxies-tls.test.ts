/**
 * What only a process shows about proxies and TLS: a CA trusted through
 * NODE_EXTRA_CA_CERTS (read when Node starts), the main proxy path through
 * a real proxy (Debian's squid), and no Node warning on stderr for an
 * https proxy. The API host is not loopback (api.gym.test), or gymctl
 * would rightly bypass the proxy; squid resolves it to 127.0.0.1 through
 * its own hosts_file, so nothing on the machine changes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { sandboxHandler } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { killTree } from '../helpers/proc.js';
import { closedPort } from '../helpers/servers.js';
import { hasTool, makeAuthority, type Authority } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait.js';

const config = tempConfigDir();
afterAll(() => config.remove());

async function httpsSandbox(key: string, cert: string): Promise<{ port: number; close(): void }> {
  const server = https.createServer({ key, cert }, sandboxHandler());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.skipIf(!hasTool('openssl', ['version']))('certificates trusted through NODE_EXTRA_CA_CERTS', () => {
  let authority: Authority;
  const servers: Array<{ close(): void }> = [];
  beforeAll(() => {
    authority = makeAuthority();
  });
  afterAll(() => {
    for (const server of servers) server.close();
    authority?.remove();
  });

  const run = (port: number, host = 'localhost') =>
    runCli(['whoami', '--retries', '0'], config.dir, {
      env: { NODE_EXTRA_CA_CERTS: authority.ca.file, GYMCTL_BASE_URL: `https://${host}:${port}`, GYMCTL_API_KEY: DEMO_KEY },
    });

  it('a certificate for another name says which names it is for: exit 5', async () => {
    const { key, cert } = authority.issue(['other.example']);
    const server = await httpsSandbox(key, cert);
    servers.push(server);
    const result = await run(server.port);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^gymctl: GET \/me: the TLS certificate of localhost:\d+ is for another name \(DNS:other\.example\): check the base URL's host\n$/);
  });

  it('an expired certificate says when it expired: exit 5', async () => {
    const { key, cert } = authority.issue(['localhost'], 0);
    // Valid until the second it was made: used once the clock is past that second.
    const expiry = Date.parse(new X509Certificate(cert).validTo);
    await waitFor('the certificate expired', () => Date.now() > expiry);
    const server = await httpsSandbox(key, cert);
    servers.push(server);
    const result = await run(server.port);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/^gymctl: GET \/me: the TLS certificate of localhost:\d+ expired on \d{4}-\d{2}-\d{2}\n$/);
  });

  it('a certificate sent without its intermediates says the fix is on the server, not NODE_EXTRA_CA_CERTS: exit 5', async () => {
    const { key, cert } = authority.issueViaIntermediate(['localhost']);
    const server = await httpsSandbox(key, cert);
    servers.push(server);
    const result = await run(server.port);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(
      /^gymctl: GET \/me: the TLS certificate of localhost:\d+ came without the intermediate certificates that link it to a trusted authority \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): the server must send its whole chain/,
    );
    expect(result.stderr).not.toContain('NODE_EXTRA_CA_CERTS');
  });

  it('a proxy that intercepts TLS with a certificate of its own is named, not the API host: exit 5', async () => {
    // The proxy answers CONNECT, then speaks TLS itself, with a certificate from a CA gymctl does not trust.
    const stranger = makeAuthority();
    const forged = stranger.issue(['api.gym.test']);
    const interceptor = await httpsSandbox(forged.key, forged.cert).catch((error: unknown) => {
      stranger.remove();
      throw error;
    });
    const proxy = net.createServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
        const upstream = net.connect(interceptor.port, '127.0.0.1', () => {
          socket.pipe(upstream);
          upstream.pipe(socket);
        });
        upstream.on('error', () => socket.destroy());
        socket.on('error', () => upstream.destroy());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runCli(['whoami', '--retries', '0'], config.dir, {
        env: { HTTPS_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, GYMCTL_BASE_URL: 'https://api.gym.test', GYMCTL_API_KEY: DEMO_KEY },
      });
      expect(result.code, result.stderr).toBe(5);
      expect(result.stderr).toMatch(
        /the TLS certificate presented for api\.gym\.test through the proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) is not trusted \([A-Z_]+\): the proxy intercepts TLS/,
      );
    } finally {
      proxy.close();
      interceptor.close();
      stranger.remove();
    }
  });

  it('a trusted certificate for the right name works', async () => {
    const { key, cert } = authority.issue(['localhost']);
    const server = await httpsSandbox(key, cert);
    servers.push(server);
    const result = await run(server.port);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('an https proxy URL', () => {
  it('brings no Node warning to stderr (DEP0123 for an IP address), only the message', async () => {
    const port = await closedPort();
    const result = await runCli(['whoami', '--retries', '0'], config.dir, {
      env: { HTTPS_PROXY: `https://127.0.0.1:${port}`, GYMCTL_BASE_URL: 'https://api.gym.test', GYMCTL_API_KEY: DEMO_KEY },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^gymctl: GET \/me: could not reach the proxy https:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\): connection refused\n$/);
  });
});

describe.skipIf(!hasTool('openssl', ['version']) || !hasTool('squid', ['-v']))('through a real proxy (squid)', () => {
  let authority: Authority;
  let sandbox: { port: number; close(): void };
  let squid: ChildProcess;
  let proxyPort: number;
  let dir: string;

  beforeAll(async () => {
    authority = makeAuthority();
    const { key, cert } = authority.issue(['api.gym.test']);
    sandbox = await httpsSandbox(key, cert);
    dir = mkdtempSync(path.join(tmpdir(), 'gymctl-squid-'));
    chmodSync(dir, 0o777); // squid started as root drops to its own user
    proxyPort = await closedPort();
    writeFileSync(path.join(dir, 'hosts'), '127.0.0.1 api.gym.test\n');
    writeFileSync(
      path.join(dir, 'squid.conf'),
      [
        `http_port 127.0.0.1:${proxyPort}`,
        `pid_filename ${dir}/squid.pid`,
        `cache_log ${dir}/cache.log`,
        `access_log stdio:${dir}/access.log`,
        `coredump_dir ${dir}`,
        `hosts_file ${dir}/hosts`,
        'dns_nameservers 127.0.0.1',
        'pinger_enable off',
        'cache deny all',
        'acl local src 127.0.0.1',
        'http_access allow local',
        'http_access deny all',
        'shutdown_lifetime 0 seconds',
        '',
      ].join('\n'),
    );
    squid = spawn('squid', ['-N', '-f', path.join(dir, 'squid.conf')], { stdio: 'ignore' });
    const deadline = Date.now() + 60_000;
    const started = () => existsSync(path.join(dir, 'cache.log')) && /Accepting HTTP Socket connections/.test(readFileSync(path.join(dir, 'cache.log'), 'utf8'));
    while (!started()) {
      if (Date.now() > deadline) throw new Error('squid did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  afterAll(async () => {
    // squid and its helpers (its pinger, which a SIGKILL to squid alone would leave to init).
    if (squid?.pid !== undefined && squid.exitCode === null) killTree(squid.pid);
    sandbox?.close();
    authority?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an https base URL goes through a CONNECT tunnel: the answer comes back, and the proxy never sees the key', async () => {
    const result = await runCli(['whoami', '--json'], config.dir, {
      env: {
        NODE_EXTRA_CA_CERTS: authority.ca.file,
        HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`,
        GYMCTL_BASE_URL: `https://api.gym.test:${sandbox.port}`,
        GYMCTL_API_KEY: DEMO_KEY,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(DEMO_DATA.keys[0]!.key);
    // squid writes its log line as the tunnel closes, which may be after gymctl has ended.
    const connect = new RegExp(`CONNECT api\\.gym\\.test:${sandbox.port}`);
    await waitFor("squid's log line for the tunnel", () => connect.test(readFileSync(path.join(dir, 'access.log'), 'utf8')));
    for (const file of ['access.log', 'cache.log']) expect(readFileSync(path.join(dir, file), 'utf8')).not.toContain(DEMO_KEY);
  });
});
