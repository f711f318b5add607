/**
 * `gymctl doctor`: each check against a failure the suite can stage for
 * real (a refused key, a wrong path prefix, an untrusted CA, a proxy that
 * is down, a loose config mode), its JSON, its exit codes, and that it
 * never prints the key.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { gymctl } from '../helpers/harness.js';
import { closedPort, httpServer } from '../helpers/servers.js';
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
    expect(result.checks.map((c) => c.check)).toEqual(['node', 'config file', 'profile', 'key', 'base URL', 'proxy', 'API', 'cache folder', 'cache secret', 'code cache']);
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

  it('on a terminal at 80 and 100 columns, Detail and Fix are wrapped in their column, never cut', async () => {
    const env = { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: undefined, NODE_EXTRA_CA_CERTS: undefined };
    const { checks } = await doctor(env, '--offline');
    expect(checks.find((c) => c.check === 'key')!.fix).toBe('gymctl auth login, or set GYMCTL_API_KEY');
    for (const columns of [80, 100]) {
      const table = await gymctl(['doctor', '--offline'], { configDir: world.config.dir, env: { ...env, NO_COLOR: '1' }, stdoutTTY: true, columns });
      expect(table.code).toBe(4);
      const lines = table.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
      expect(table.stdout).not.toContain('…');
      // Each row's lines, its cells read across them: a row starts where Check is not empty.
      const rows: string[][][] = [];
      for (const line of lines.filter((l) => l.startsWith('│')).slice(1)) {
        const cells = line
          .split('│')
          .slice(1, -1)
          .map((cell) => cell.trim());
        if (cells[0]) rows.push(cells.map((cell) => [cell]));
        else for (const [i, cell] of cells.entries()) if (cell) rows.at(-1)![i]!.push(cell);
      }
      expect(rows.map((row) => row[0]![0])).toEqual(checks.map((c) => c.check));
      const squeeze = (text: string) => text.replace(/\s+/g, '');
      for (const [i, check] of checks.entries()) {
        expect(squeeze(rows[i]![2]!.join(''))).toBe(squeeze(check.detail));
        expect(squeeze(rows[i]![3]!.join(''))).toBe(squeeze(check.fix ?? '-'));
      }
      // Broken between words: the fix reads as written.
      expect(rows.find((row) => row[0]![0] === 'key')![3]!.join(' ')).toBe('gymctl auth login, or set GYMCTL_API_KEY');
    }
  });

  it('on a terminal, a column that holds nothing (Fix, when all is well) is left out, and Detail has its room; a pipe keeps every column', async () => {
    const env = { ...api(), NO_COLOR: '1', NODE_EXTRA_CA_CERTS: undefined };
    const { checks } = await doctor(env, '--offline');
    expect(checks.every((c) => c.fix === null)).toBe(true);
    // Wide enough for Check, Status and the longest Detail in their box ("│ " before each, " " after, and "│"), not for a Fix column too.
    const width = (key: 'check' | 'status' | 'detail') => Math.max(key.length, ...checks.map((c) => c[key].length));
    const columns = width('check') + width('status') + width('detail') + 3 * 3 + 1;
    const table = await gymctl(['doctor', '--offline'], { configDir: world.config.dir, env, stdoutTTY: true, columns });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/│ Check\s+│ Status │ Detail\s+│\n/);
    expect(table.stdout).not.toContain('Fix');
    for (const check of checks) expect(table.stdout).toContain(`│ ${check.detail} `);
    const piped = await gymctl(['doctor', '--offline'], { configDir: world.config.dir, env });
    expect(piped.stdout.split('\n')[0]).toBe('check\tstatus\tdetail\tfix');
  });
});

describe('gymctl doctor reports what would break other commands', () => {
  it('a config file that is not valid JSON is a failing row, and the rest is still reported (exit 2), as JSON and as a table', async () => {
    mkdirSync(world.config.dir, { recursive: true, mode: 0o700 });
    const file = path.join(world.config.dir, 'config.json');
    writeFileSync(file, '{"profiles": {', { mode: 0o600 });
    const result = await doctor({ GYMCTL_BASE_URL: world.sandbox.url });
    expect(result.code).toBe(2);
    expect(result.of('config file')).toMatchObject({ status: 'fail', fix: `fix or remove ${file}` });
    expect(result.of('config file')!.detail).toContain('is not valid JSON');
    expect(result.checks.map((c) => c.check)).toEqual(['node', 'config file', 'base URL', 'cache folder', 'cache secret', 'code cache']);
    expect(result.stderr).toBe('');
    const table = await gymctl(['doctor'], { configDir: world.config.dir, env: { NO_COLOR: '1' }, stdoutTTY: true, columns: 200 });
    expect(table.code).toBe(2);
    expect(table.stdout).toMatch(/│ config file\s+│ fail\s+│ config file .* is not valid JSON/);
    expect(table.stderr).toBe('');
  });

  it('a config folder that is a file is a failing row that says so, with its fix, and the rest is still reported (exit 2)', async () => {
    mkdirSync(world.config.dir, { recursive: true, mode: 0o700 });
    const file = path.join(world.config.dir, 'a-file');
    writeFileSync(file, '', { mode: 0o600 });
    const result = await gymctl(['doctor', '--json', '--offline'], { configDir: file, env: { NODE_EXTRA_CA_CERTS: undefined } });
    const checks = JSON.parse(result.stdout) as Check[];
    expect(result.code).toBe(2);
    expect(checks.find((c) => c.check === 'config file')).toMatchObject({ status: 'fail', fix: 'point GYMCTL_CONFIG_DIR at a folder' });
    expect(checks.find((c) => c.check === 'config file')!.detail).toContain(`config folder ${file} is not a folder`);
    expect(checks.map((c) => c.check)).toContain('cache folder');
    expect(result.stderr).toBe('');
  });

  it('a profile the config file does not hold is a failing row that says so (exit 2), not a missing key, as every command says it', async () => {
    const result = await doctor({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_PROFILE: 'wrok' }, '--offline');
    expect(result.code).toBe(2);
    expect(result.of('profile')).toMatchObject({ status: 'fail', fix: 'gymctl auth login --profile wrok' });
    expect(result.of('profile')!.detail).toContain('there is no profile "wrok" (from GYMCTL_PROFILE)');
    expect(result.of('key')).toBeUndefined();
  });

  it('a stored plain-http base URL, which every command refuses, is a failing row with the way out, and the rest is still reported (exit 2)', async () => {
    expect((await gymctl(['config', 'set', 'base-url', 'http://example.com', '--allow-http'], { configDir: world.config.dir })).code).toBe(0);
    const result = await doctor({}, '--offline');
    expect(result.code).toBe(2);
    expect(result.of('base URL')).toEqual({
      check: 'base URL',
      status: 'fail',
      detail: 'refusing to send the API key over plain http to example.com (base URL from profile "default"): use https, or pass --allow-http if you must',
      fix: 'gymctl config set base-url URL',
    });
    expect(result.checks.map((c) => c.check)).toEqual(['node', 'config file', 'profile', 'base URL', 'cache folder', 'cache secret', 'code cache']);
    expect(result.stderr).toBe('');
    expect((await doctor({}, '--offline', '--allow-http')).of('base URL')).toMatchObject({ status: 'pass', detail: 'http://example.com (from profile "default")' });
    // A flag or variable refused is the command's usage error, as for every command, not a row.
    for (const [env, args] of [
      [{}, ['--timeout', 'abc']],
      [{ GYMCTL_BASE_URL: 'http://example.com' }, []],
    ] as const) {
      const refused = await doctor(env, '--offline', ...args);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect((JSON.parse(refused.stderr) as { error: { message: string } }).error.message).toMatch(
        /^(invalid timeout "abc" \(from --timeout\)|refusing to send the API key over plain http to example\.com \(base URL from GYMCTL_BASE_URL\))/,
      );
    }
    // The profile's stored format still holds, as it does for every command's error: the report is JSON without --json.
    expect((await gymctl(['config', 'set', 'format', 'json'], { configDir: world.config.dir })).code).toBe(0);
    const stored = await gymctl(['doctor', '--offline'], { configDir: world.config.dir, env: { NODE_EXTRA_CA_CERTS: undefined } });
    expect(stored.code).toBe(2);
    expect((JSON.parse(stored.stdout) as Check[]).find((c) => c.check === 'base URL')).toMatchObject({ status: 'fail', fix: 'gymctl config set base-url URL' });
  });

  it('a cache secret that is not a regular file (a FIFO) is a warning with its fix, as every --cache run warns of it', async () => {
    const cache = path.join(cleanEnv(world.config.dir).XDG_CACHE_HOME!, 'gymctl');
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    const secret = path.join(cache, 'secret');
    expect(spawnSync('mkfifo', [secret]).status).toBe(0);
    const result = await doctor(api(), '--offline');
    expect(result.of('cache secret')).toMatchObject({ status: 'warn', fix: `rm ${secret}` });
    expect(result.of('cache secret')!.detail).toContain('not a regular file');
    expect(result.code).toBe(0);
    // What a --cache run says of it.
    const cached = await gymctl(['whoami', '--cache', '1m', '--json'], { configDir: world.config.dir, env: api() });
    expect(cached.stderr).toContain(`${secret} is not a regular file`);
  });

  it('a cache folder that cannot be made (a file where XDG_CACHE_HOME points) is a warning, not "none yet"', async () => {
    const file = `${world.config.dir}-file`;
    writeFileSync(file, '');
    try {
      const result = await doctor({ ...api(), XDG_CACHE_HOME: file }, '--offline');
      for (const check of ['cache folder', 'code cache']) expect(result.of(check), check).toMatchObject({ status: 'warn', fix: 'set XDG_CACHE_HOME to a folder of your own' });
      expect(result.of('cache folder')!.detail).toBe(`${path.join(file, 'gymctl')} cannot be made (ENOTDIR)`);
      expect(result.code).toBe(0);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('a code cache folder others can open (which turns the code cache off), or a link in its place, is a warning with its fix', async () => {
    const cacheHome = `${world.config.dir}-xdg`;
    const dir = path.join(cacheHome, 'gymctl-code-cache');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      const env = { ...api(), XDG_CACHE_HOME: cacheHome };
      expect((await doctor(env, '--offline')).of('code cache')).toMatchObject({ status: 'pass', detail: `${dir} (mode 700)` });
      chmodSync(dir, 0o755);
      const open = await doctor(env, '--offline');
      expect(open.of('code cache')).toMatchObject({ status: 'warn', fix: `chmod 700 ${dir}` });
      expect(open.of('code cache')!.detail).toMatch(/mode 755: others can open it, so the code cache is off/);
      expect(open.code).toBe(0);
      rmSync(dir, { recursive: true });
      mkdirSync(`${dir}-elsewhere`, { mode: 0o700 });
      symlinkSync(`${dir}-elsewhere`, dir);
      expect((await doctor(env, '--offline')).of('code cache')).toMatchObject({ status: 'warn', fix: `rm ${dir} (gymctl makes the folder again)` });
      expect((await doctor({ ...env, GYMCTL_NO_CODE_CACHE: '1' }, '--offline')).of('code cache')).toMatchObject({ status: 'pass' });
    } finally {
      rmSync(cacheHome, { recursive: true, force: true });
    }
  });

  it('a refused connection: the fix names the base URL, where it came from, and the commands to run next', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const fromEnv = await doctor({ GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY }, '--retries', '0');
    expect(fromEnv.code).toBe(5);
    expect(fromEnv.of('base URL')!.detail).toBe(`${url} (from GYMCTL_BASE_URL)`);
    expect(fromEnv.of('API')!.fix).toBe(
      `nothing listens at ${url} (the base URL, from GYMCTL_BASE_URL): start the API there, or use the right URL: \`export GYMCTL_BASE_URL=URL\`; for the reference API, run \`gymctl sandbox --port ${port}\` in another terminal; then run \`gymctl doctor\` again`,
    );
    const fromFlag = await doctor({ GYMCTL_API_KEY: DEMO_KEY }, '--retries', '0', '--base-url', url);
    expect(fromFlag.of('API')!.fix).toContain(`(the base URL, from --base-url): start the API there, or use the right URL: \`gymctl doctor --base-url URL\``);
    mkdirSync(world.config.dir, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(world.config.dir, 'config.json'), JSON.stringify({ profiles: { work: { apiKey: DEMO_KEY, baseUrl: url } } }), { mode: 0o600 });
    const fromProfile = await doctor({ GYMCTL_PROFILE: 'work' }, '--retries', '0');
    expect(fromProfile.of('API')!.fix).toContain('(the base URL, from profile "work"): start the API there, or use the right URL: `gymctl config set base-url URL --profile work`');
  });

  it('a server that never answers: the API check gives up within its budget (5 s, not the 30 s of a command) and says so; progress on a terminal’s stderr only', async () => {
    const silent = await httpServer(() => {}); // never answers
    const result = await gymctl(['doctor', '--json'], { configDir: world.config.dir, env: { GYMCTL_BASE_URL: silent, GYMCTL_API_KEY: DEMO_KEY }, stderrTTY: true });
    expect(result.code).toBe(5);
    const api = (JSON.parse(result.stdout) as Check[]).find((c) => c.check === 'API')!;
    expect(api).toMatchObject({ status: 'fail', detail: 'GET /me: no answer within 5 s' });
    expect(api.fix).toMatch(new RegExp(`^nothing answered at ${silent.replace(/\./g, '\\.')} \\(the base URL, from GYMCTL_BASE_URL\\): .*then run \`gymctl doctor\` again$`));
    // The line said what it waited on, and was erased.
    expect(result.stderr).toBe(`\r\u001b[KChecking the API: GET ${silent}/me (at most 5 s)…\r\u001b[K`);
    // --timeout sets the budget; in a pipe, no progress.
    const piped = await doctor({ GYMCTL_BASE_URL: silent, GYMCTL_API_KEY: DEMO_KEY }, '--timeout', '300ms');
    expect(piped.of('API')!.status).toBe('fail');
    expect(piped.stderr).toBe('');
    // Accessible: a line appended, never redrawn.
    const spoken = await gymctl(['doctor', '--json', '--timeout', '300ms'], {
      configDir: world.config.dir,
      env: { GYMCTL_BASE_URL: silent, GYMCTL_API_KEY: DEMO_KEY, GYMCTL_ACCESSIBLE: '1' },
      stderrTTY: true,
    });
    expect(spoken.stderr).toBe(`Checking the API: GET ${silent}/me (at most 300 ms)…\n`);
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
