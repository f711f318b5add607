/**
 * Gateways are not the API: real nginx and haproxy (from Debian, installed
 * by .ci/run) in front of a slow API, a dead one, and behind a login of
 * their own. gymctl names what the gateway said, and never blames the key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { closedPort, httpServer } from '../helpers/servers.js';
import { hasTool } from '../helpers/tls.js';

const config = tempConfigDir();
let dir: string;
let slowApi: string;
let deadPort: number;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gymctl-gateways-'));
  chmodSync(dir, 0o755);
  // An API that never answers: gateways give up on it after 1 s, and nothing else can end a request to it.
  slowApi = await httpServer(() => {});
  deadPort = await closedPort();
});
afterAll(() => {
  config.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits until something listens on `port`, at most a minute: a ceiling for a loaded machine. */
async function listening(port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.unref();
      setTimeout(() => resolve(false), 500).unref();
      socket.once('connect', () => socket.destroy());
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Ends a server started in a process group of its own, and every process of the group. */
function killGroup(child: ChildProcess | undefined): void {
  try {
    if (child?.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

const whoami = (baseUrl: string) => runCli(['whoami', '--retries', '0'], config.dir, { env: { GYMCTL_BASE_URL: baseUrl, GYMCTL_API_KEY: DEMO_KEY } });

describe.skipIf(!hasTool('nginx', ['-v']))('behind nginx', () => {
  let nginx: ChildProcess;
  let base: string;
  beforeAll(async () => {
    const port = await closedPort();
    const prefix = path.join(dir, 'nginx');
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(path.join(prefix, 'logs'), { recursive: true });
    // A user for nginx's own login; gymctl never sends a password, so what it hashes does not matter.
    writeFileSync(path.join(prefix, 'htpasswd'), 'gym:$apr1$gymctl00$Qq1gR0Kc6yQ4t0yY0y0y0.\n');
    writeFileSync(
      path.join(prefix, 'nginx.conf'),
      `
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  server {
    listen 127.0.0.1:${port};
    location /dead/ { proxy_pass http://127.0.0.1:${deadPort}/; }
    location /slow/ { proxy_pass ${slowApi}/; proxy_read_timeout 1s; }
    location /login/ { auth_basic "intranet"; auth_basic_user_file ${prefix}/htpasswd; proxy_pass ${slowApi}/; }
  }
}
`,
    );
    // A process group of its own: nginx's workers go with it.
    nginx = spawn('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore', detached: true });
    await listening(port);
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => killGroup(nginx));

  it('a 502 from nginx says a gateway could not reach the API: exit 5', async () => {
    const result = await whoami(`${base}/dead`);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/^gymctl: GET \/me: Bad Gateway: a gateway in front of the API could not reach it \(HTTP 502\)\n$/);
  });

  it('a 504 from nginx says a gateway timed out waiting for the API: exit 5', async () => {
    const result = await whoami(`${base}/slow`);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/^gymctl: GET \/me: Gateway Time-out: a gateway in front of the API timed out waiting for it \(HTTP 504\)\n$/);
  });

  it("nginx's own login (auth_basic) is not blamed on the API key: exit 4", async () => {
    const result = await whoami(`${base}/login`);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/something in front of the API asks for a login of its own \(Basic\), not for the API key/);
    expect(result.stderr).not.toContain('refused the API key');
  });
});

describe.skipIf(!hasTool('haproxy', ['-v']))('behind haproxy', () => {
  let haproxy: ChildProcess;
  let slow: string;
  let dead: string;
  beforeAll(async () => {
    const [slowPort, deadFront] = [await closedPort(), await closedPort()];
    const file = path.join(dir, 'haproxy.cfg');
    const slowTarget = new URL(slowApi);
    writeFileSync(
      file,
      `
defaults
  mode http
  timeout connect 1s
  timeout client 5s
  timeout server 1s
frontend slow
  bind 127.0.0.1:${slowPort}
  default_backend slow
backend slow
  server api ${slowTarget.hostname}:${slowTarget.port}
frontend dead
  bind 127.0.0.1:${deadFront}
  default_backend dead
backend dead
  server api 127.0.0.1:${deadPort}
`,
    );
    haproxy = spawn('haproxy', ['-db', '-f', file], { stdio: 'ignore', detached: true });
    await listening(slowPort);
    await listening(deadFront);
    slow = `http://127.0.0.1:${slowPort}`;
    dead = `http://127.0.0.1:${deadFront}`;
  });
  afterAll(() => killGroup(haproxy));

  it('a 504 from haproxy says a gateway timed out waiting for the API: exit 5', async () => {
    const result = await whoami(slow);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/^gymctl: GET \/me: Gateway Time-out: a gateway in front of the API timed out waiting for it \(HTTP 504\)\n$/);
  });

  it('haproxy with its server down: a gateway page, named as such, not the API: exit 5', async () => {
    const result = await whoami(dead);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(
      /^gymctl: GET \/me: (Bad Gateway: a gateway in front of the API could not reach it|the server is unavailable: it answered 503 Service Unavailable with an HTML page) \(HTTP 50[23]\)\n$/,
    );
  });
});
