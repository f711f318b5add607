/**
 * --cache DURATION and --refresh, in-process against the sandbox (which
 * logs each request it serves) or a small server that answers as told,
 * with a cache folder and a config folder of the test's own.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MoveSeams, moveSeams } from '../../src/files/moves.js';
import { DEMO_KEY, DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { httpServer } from '../helpers/servers.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
let cacheHome: string;
beforeEach(() => {
  cacheHome = mkdtempSync(path.join(tmpdir(), 'gymctl-cache-'));
});
afterEach(() => rmSync(cacheHome, { recursive: true, force: true }));

const gymctl = (args: string[], options: GymctlOptions = {}) =>
  inProcess(args, {
    configDir: world.config.dir,
    ...options,
    env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY, XDG_CACHE_HOME: cacheHome, ...options.env },
  });

/** Every file under the cache folder, with its mode. */
function cacheFiles(): Array<{ file: string; mode: number }> {
  const found: Array<{ file: string; mode: number }> = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      const stat = statSync(file);
      found.push({ file, mode: stat.mode & 0o777 });
      if (stat.isDirectory()) walk(file);
    }
  };
  walk(cacheHome);
  return found;
}

/** A server that answers each request with the next of `replies` (the last one again when they run out), counting them. */
async function scripted(replies: Array<{ status: number; body: string }>) {
  let count = 0;
  const url = await httpServer((_, response) => {
    const reply = replies[Math.min(count++, replies.length - 1)]!;
    response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
  });
  return { url, count: () => count };
}

describe('--cache DURATION', () => {
  it('answers from the cache within the duration, byte for byte what the server gave', async () => {
    for (const args of [
      ['academy', '1', '2', '--json'],
      ['family', '530', '--format', 'ndjson'],
      ['whoami', '--format', 'csv'],
      ['api', '/academies/3'],
    ]) {
      world.requests.length = 0;
      const first = await gymctl([...args, '--cache', '5m']);
      const second = await gymctl([...args, '--cache', '5m']);
      expect(first.code, args.join(' ')).toBe(0);
      expect(second.stdout, args.join(' ')).toBe(first.stdout);
      expect(world.requests.length, args.join(' ')).toBe(args[0] === 'academy' ? 2 : 1);
    }
  });

  it('gymctl api keeps bytes as received: it shares no entry with the commands, and keeps only JSON', async () => {
    const body = '{ "data" : {"id":101,"name":"Front desk","academyIds":[1]} ,  "meta": {"x": 1} }';
    const server = await scripted([{ status: 200, body }]);
    const env = { GYMCTL_BASE_URL: server.url };
    expect((await gymctl(['whoami', '--json', '--cache', '5m'], { env })).code).toBe(0);
    const api = await gymctl(['api', '/me', '--cache', '5m'], { env });
    expect(api.stdout).toBe(body);
    expect(server.count()).toBe(2);
    const page = await scripted([
      { status: 200, body: '<html>portal</html>' },
      { status: 200, body: '' },
      { status: 200, body: '<html>portal</html>' },
    ]);
    for (let i = 0; i < 3; i++) await gymctl(['api', '/me', '--cache', '5m'], { env: { GYMCTL_BASE_URL: page.url } });
    expect(page.count()).toBe(3);
  });

  it('gymctl api keeps the status line and headers with the body (for api -i); without them, or garbled, its entry is a miss', async () => {
    await gymctl(['api', '/me', '--cache', '5m']);
    const [entry] = cacheFiles().filter(({ file }) => file.endsWith('.json'));
    const kept = JSON.parse(readFileSync(entry!.file, 'utf8'));
    expect(kept.head).toMatchObject({ version: 'HTTP/1.1', status: 200, statusText: 'OK' });
    expect(kept.head.headers).toContainEqual(['Content-Type', 'application/json; charset=utf-8']);
    await gymctl(['api', '/me', '--cache', '5m']);
    expect(world.requests).toHaveLength(1);
    const { head: _, ...withoutHead } = kept;
    for (const text of [JSON.stringify(withoutHead), JSON.stringify({ ...kept, head: { status: 'x' } })]) {
      writeFileSync(entry!.file, text);
      expect((await gymctl(['api', '/me', '--cache', '5m'])).code).toBe(0);
    }
    expect(world.requests).toHaveLength(3);
    // The commands' entries never had one, and stay answers.
    await gymctl(['whoami', '--cache', '5m']);
    await gymctl(['whoami', '--cache', '5m']);
    expect(world.requests).toHaveLength(4);
  });

  it('keeps numbers as sent: a cached 38.70 and an id beyond 2^53 come back unchanged', async () => {
    const body = '{"data":{"id":9007199254740993,"name":"Big","price":38.70,"currency":"EUR"}}';
    const server = await scripted([{ status: 200, body }]);
    const args = ['academy', '9007199254740993', '--json', '--cache', '1h'];
    const first = await gymctl(args, { env: { GYMCTL_BASE_URL: server.url } });
    const second = await gymctl(args, { env: { GYMCTL_BASE_URL: server.url } });
    expect(server.count()).toBe(1);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stdout).toContain('"price": 38.70');
    expect(second.stdout).toContain('"id": 9007199254740993');
  });

  it('an answer older than the duration is fetched again', async () => {
    await gymctl(['whoami', '--cache', '1h']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await gymctl(['whoami', '--cache', '10ms']);
    expect(world.requests).toHaveLength(2);
  });

  it('--refresh asks the server even with a fresh answer, and stores the new one', async () => {
    const server = await scripted([
      { status: 200, body: '{"data":{"id":1,"name":"Old","currency":"EUR"}}' },
      { status: 200, body: '{"data":{"id":1,"name":"New","currency":"EUR"}}' },
    ]);
    const env = { GYMCTL_BASE_URL: server.url };
    await gymctl(['academy', '1', '--cache', '1h'], { env });
    expect((await gymctl(['academy', '1', '--cache', '1h', '--refresh', '--jq', '.name'], { env })).stdout).toBe('New\n');
    expect((await gymctl(['academy', '1', '--refresh', '--jq', '.name'], { env })).stdout).toBe('New\n');
    expect(server.count()).toBe(3);
    expect((await gymctl(['academy', '1', '--cache', '1h', '--jq', '.name'], { env })).stdout).toBe('New\n');
    expect(server.count()).toBe(3);
  });

  it('never keeps an error, a 429, or a body that fails validation', async () => {
    for (const reply of [
      { status: 404, body: '{"message":"Resource not found"}' },
      { status: 429, body: '{"message":"Too many requests"}' },
      { status: 500, body: '{"message":"boom"}' },
      { status: 200, body: '{"data":{"id":"not a number"}}' },
    ]) {
      const server = await scripted([reply]);
      const args = ['academy', '1', '--cache', '1h', '--retries', '0'];
      const first = await gymctl(args, { env: { GYMCTL_BASE_URL: server.url } });
      expect(first.code, String(reply.status)).not.toBe(0);
      await gymctl(args, { env: { GYMCTL_BASE_URL: server.url } });
      expect(server.count(), String(reply.status)).toBe(2);
    }
    expect(cacheFiles().filter(({ file }) => file.endsWith('.json'))).toEqual([]);
  });

  it('is kept per key and per base URL: another key, or another server, is not answered from it', async () => {
    await gymctl(['whoami', '--cache', '1h']);
    const other = await gymctl(['whoami', '--cache', '1h', '--jq', '.academyIds'], { env: { GYMCTL_API_KEY: DEMO_KEY_NO_ACADEMIES } });
    expect(other.stdout).toBe('[]\n');
    expect(world.requests).toHaveLength(2);
    const server = await scripted([{ status: 200, body: '{"data":{"id":7,"name":"Elsewhere","academyIds":[]}}' }]);
    expect((await gymctl(['whoami', '--cache', '1h', '--jq', '.name'], { env: { GYMCTL_BASE_URL: server.url } })).stdout).toBe('Elsewhere\n');
  });

  it('folders 0700, files 0600, and no file holds the key or is named after it', async () => {
    await gymctl(['academy', '1', '2', '--cache', '1h']);
    const files = cacheFiles();
    expect(files.length).toBeGreaterThan(2);
    for (const { file, mode } of files) {
      const isDir = statSync(file).isDirectory();
      expect(mode, file).toBe(isDir ? 0o700 : 0o600);
      expect(file).not.toContain(DEMO_KEY);
      if (!isDir) expect(readFileSync(file, 'utf8')).not.toContain(DEMO_KEY);
    }
    expect(statSync(path.join(cacheHome, 'gymctl', 'secret')).mode & 0o777).toBe(0o600);
    // Nothing is written into the config folder by a read.
    expect(existsSync(world.config.dir) ? readdirSync(world.config.dir) : []).toEqual([]);
  });

  it('a torn or garbled entry is a miss, never an error', async () => {
    await gymctl(['academy', '1', '--cache', '1h']);
    const [entry] = cacheFiles().filter(({ file }) => file.endsWith('.json'));
    for (const text of ['{"storedAt":', '{"storedAt":1,"body":"{\\"data\\":{}}"}', `{"storedAt":${Date.now()},"body":"{\\"data\\":{\\"id\\":\\"x\\"}}"}`]) {
      writeFileSync(entry!.file, text);
      const result = await gymctl(['academy', '1', '--cache', '1h', '--jq', '.id']);
      expect(result.stdout, text).toBe('1\n');
    }
    expect(world.requests).toHaveLength(4);
  });

  it('an entry dated in the future (the clock moved back) is a miss, never served for ever', async () => {
    await gymctl(['academy', '1', '--cache', '1h']);
    const [entry] = cacheFiles().filter(({ file }) => file.endsWith('.json'));
    const stored = JSON.parse(readFileSync(entry!.file, 'utf8')) as { storedAt: number; body: string };
    writeFileSync(entry!.file, JSON.stringify({ ...stored, storedAt: Date.now() + 60_000, body: stored.body.replace('"id":1', '"id":999') }));
    const result = await gymctl(['academy', '1', '--cache', '1h', '--jq', '.id']);
    expect(result.stdout).toBe('1\n');
    expect(world.requests).toHaveLength(2);
  });

  it('a bad duration exits 2 before any request; the flags apply only to commands that GET', async () => {
    for (const duration of ['5', '5x', '0s', '', '-1m', '400d']) {
      const result = await gymctl(['whoami', '--cache', duration]);
      expect(result.code, duration).toBe(2);
    }
    expect((await gymctl(['config', 'list', '--cache', '1m'])).code).toBe(2);
    expect((await gymctl(['auth', 'status', '--refresh'])).code).toBe(2);
    expect(world.requests).toEqual([]);
  });
});

describe('cache clear, auth logout and auth login', () => {
  it('cache clear empties it', async () => {
    await gymctl(['academy', '1', '2', '--cache', '1h']);
    const clear = await gymctl(['cache', 'clear']);
    expect(clear.code).toBe(0);
    expect(clear.stderr).toMatch(/^Removed 2 cached answers from .*gymctl\.\n$/);
    await gymctl(['academy', '1', '--cache', '1h']);
    expect(world.requests).toHaveLength(3);
    expect((await gymctl(['cache', 'clear'])).stderr).toContain('Removed 1 cached answer from');
    expect((await gymctl(['cache', 'clear'])).stderr).toContain('holds no answers');
  });

  it('cache clear with no cache folder yet says it holds no answers, rather than crashing', async () => {
    const clear = await gymctl(['cache', 'clear']);
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stderr).toBe(`The cache (${path.join(cacheHome, 'gymctl')}) holds no answers.\n`);
    expect(existsSync(path.join(cacheHome, 'gymctl'))).toBe(false);
  });

  it('auth login that replaces a key drops the answers cached for the old one', async () => {
    const login = (key: string) =>
      gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: key, env: { GYMCTL_API_KEY: undefined, GYMCTL_BASE_URL: undefined } });
    expect((await login(DEMO_KEY)).code).toBe(0);
    await gymctl(['whoami', '--cache', '1h'], { env: { GYMCTL_API_KEY: undefined } });
    const replaced = await login(DEMO_KEY_NO_ACADEMIES);
    expect(replaced.stderr).toContain('Removed 1 cached answer of that key.');
    expect(cacheFiles().filter(({ file }) => file.endsWith('.json'))).toEqual([]);
  });

  it('--sandbox answers are kept under one name: a new sandbox, on a new port, is answered from them', async () => {
    await gymctl(['academy', '1', '--sandbox', '--cache', '1h'], { env: { GYMCTL_BASE_URL: undefined, GYMCTL_API_KEY: undefined } });
    const second = await gymctl(['academy', '1', '--sandbox', '--cache', '1h', '--debug'], { env: { GYMCTL_BASE_URL: undefined, GYMCTL_API_KEY: undefined } });
    expect(second.stderr).toContain('cache hit: GET /academies/1');
  });

  it("auth logout drops the answers cached for that profile's key, and only those", async () => {
    const login = await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], {
      stdin: DEMO_KEY,
      env: { GYMCTL_API_KEY: undefined, GYMCTL_BASE_URL: undefined },
    });
    expect(login.code, login.stderr).toBe(0);
    await gymctl(['academy', '1', '--cache', '1h'], { env: { GYMCTL_API_KEY: undefined } });
    await gymctl(['whoami', '--cache', '1h'], { env: { GYMCTL_API_KEY: DEMO_KEY_NO_ACADEMIES } });
    const logout = await gymctl(['auth', 'logout'], { env: { GYMCTL_API_KEY: undefined } });
    expect(logout.stderr).toContain('Removed 1 cached answer of that key.');
    world.requests.length = 0;
    await gymctl(['whoami', '--cache', '1h'], { env: { GYMCTL_API_KEY: DEMO_KEY_NO_ACADEMIES } });
    expect(world.requests).toEqual([]);
  });
});

describe('odd files and folders around the cache: refused at once, and the answer comes from the server', () => {
  const isRoot = process.getuid?.() === 0;
  const secretFile = () => path.join(cacheHome, 'gymctl', 'secret');

  it('a FIFO, or a link to /dev/zero, as the cache secret: a warning, no hang, no endless read', async () => {
    mkdirSync(path.join(cacheHome, 'gymctl'), { recursive: true, mode: 0o700 });
    for (const plant of [() => expect(spawnSync('mkfifo', [secretFile()]).status).toBe(0), () => symlinkSync('/dev/zero', secretFile())]) {
      rmSync(secretFile(), { force: true });
      plant();
      // Refused before it is read: an endless read (or a FIFO no one writes to) would never end, and the test's ceiling would.
      const result = await gymctl(['whoami', '--json', '--cache', '1m']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).id).toBe(101);
      expect(result.stderr).toMatch(/warning: the cache cannot be used, so the answer comes from the server: .*gymctl\/secret is not a regular file/);
    }
    rmSync(secretFile(), { force: true });
  });

  it('a cache folder the secret cannot be made in: a warning, the answer, and nothing left behind', async () => {
    // A link to nothing where the folder's parent should be: nothing can be made there, not even by root.
    const blocker = path.join(cacheHome, 'dangling');
    symlinkSync(path.join(cacheHome, 'nothing'), blocker);
    const result = await gymctl(['whoami', '--json', '--cache', '1m'], { env: { XDG_CACHE_HOME: path.join(blocker, 'xdg') } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(101);
    expect(result.stderr).toContain(`warning: the answer could not be cached in ${path.join(blocker, 'xdg', 'gymctl')}: ENOENT: ${blocker} is a link to nothing`);
    expect(result.stderr).not.toContain('unexpected error');
    expect(readdirSync(cacheHome)).toEqual(['dangling']);
  });

  it.skipIf(!isRoot)("root with another user's HOME makes no cache folder of its own there", async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'gymctl-home-'));
    try {
      chownSync(home, 4242, 4242);
      const result = await gymctl(['whoami', '--json', '--cache', '1m'], { env: { HOME: home, XDG_CACHE_HOME: undefined } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/belongs to another user \(uid 4242\)/);
      expect(readdirSync(home)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('--cache on Windows desks: an antivirus that holds new files, a drive without hard links', () => {
  const real: MoveSeams = { ...moveSeams };
  afterEach(() => Object.assign(moveSeams, real));
  const failure = (code: string) => Object.assign(new Error(`${code}: operation not permitted`), { code });

  it('an entry whose rename is refused twice (EPERM, as while a scanner holds it) is stored all the same, without a warning', async () => {
    const slept: number[] = [];
    const renamed: string[] = [];
    let refused = 0;
    Object.assign(moveSeams, {
      platform: () => 'win32',
      sleep: (ms: number) => void slept.push(ms),
      rename: (from: string, to: string) => {
        if (refused < 2) {
          refused++;
          throw failure('EPERM');
        }
        renamed.push(to);
        real.rename(from, to);
      },
    } satisfies Partial<MoveSeams>);
    const first = await gymctl(['whoami', '--json', '--cache', '5m']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(refused).toBe(2);
    expect(renamed).toHaveLength(1);
    expect(slept).toHaveLength(2);
    const second = await gymctl(['whoami', '--json', '--cache', '5m']);
    expect(second).toMatchObject({ code: 0, stderr: '', stdout: first.stdout });
    expect(world.requests).toHaveLength(1);
    expect(cacheFiles().filter(({ file }) => file.endsWith('.tmp'))).toEqual([]);
  });

  it('where the cache folder refuses hard links (EISDIR, as exFAT says on Windows), the secret is made another way, 0600, and every run uses it without a warning', async () => {
    let links = 0;
    moveSeams.link = () => {
      links++;
      throw failure('EISDIR');
    };
    for (const run of [1, 2, 3]) {
      const result = await gymctl(['whoami', '--json', '--cache', '5m']);
      expect(result, `run ${run}`).toMatchObject({ code: 0, stderr: '' });
    }
    expect(links).toBe(1);
    expect(world.requests).toHaveLength(1);
    const secret = path.join(cacheHome, 'gymctl', 'secret');
    expect(readFileSync(secret, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.join(cacheHome, 'gymctl')).filter((name) => !/^[0-9a-f]{40}$/.test(name))).toEqual(['secret']);
  });
});
