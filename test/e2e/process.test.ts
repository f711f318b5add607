/**
 * What only a real process shows: the built binary spawned as a user runs
 * it, for exit statuses, a pseudo-terminal prompt, and signals. Everything
 * else about the commands is tested in-process (test/commands/).
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY, DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { BIN, cleanEnv, runCli, spawnWatched, type RunOptions } from '../helpers/cli.js';
import { needsRoot } from '../helpers/root.js';
import { waitFor } from '../helpers/wait.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const gymctl = (args: string[], options: RunOptions = {}) => runCli(args, world.config.dir, options);
const configFile = () => path.join(world.config.dir, 'config.json');

describe('exit statuses of the process', () => {
  it('--version and the top-level help come from the entry point, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(path.join(path.dirname(BIN), '..', 'package.json'), 'utf8'));
    expect(await gymctl(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const help = await gymctl([]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: gymctl/);
  });

  it('each kind of failure sets its exit status: 2, 3, 4', async () => {
    const env = { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY };
    expect((await gymctl(['academy', 'abc'], { env })).code).toBe(2);
    expect((await gymctl(['academy', '99'], { env })).code).toBe(3);
    expect((await gymctl(['whoami'], { env: { ...env, GYMCTL_API_KEY: 'wrong_key_123' } })).code).toBe(4);
    expect((await gymctl(['academy', '1', '5', '--format', 'ndjson'], { env })).code).toBe(3);
  });
});

describe('a home folder the system cannot name', () => {
  const isRoot = needsRoot('the test of a user with no home folder', 'to run gymctl as a uid the user database does not know');

  /**
   * The Node that runs the tests, copied where that uid may run it: a Node installed under a private folder (as CI's Node
   * 22 to 26, from npm in a folder of mode 0700) cannot be started by another uid.
   */
  let node = process.execPath;
  let nodeFolder: string | undefined;
  beforeAll(() => {
    if (!isRoot) return;
    nodeFolder = mkdtempSync(path.join(tmpdir(), 'gymctl-stranger-node-'));
    chmodSync(nodeFolder, 0o755);
    node = path.join(nodeFolder, 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
  });
  afterAll(() => {
    if (nodeFolder) rmSync(nodeFolder, { recursive: true, force: true });
  });

  /** gymctl as a uid with no entry in the user database (so no home folder from the system), with only PATH and `env`. */
  const asStranger = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(node, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, uid: 4242, gid: 4242, cwd: tmpdir() });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it.runIf(isRoot)('says so in one line and exits 1, with no stack trace, and runs once HOME is set', async () => {
    for (const args of [
      ['academy', '1', '--sandbox'],
      ['config', 'path'],
      ['doctor', '--offline'],
    ]) {
      expect(await asStranger(args), args.join(' ')).toEqual({
        code: 1,
        stdout: '',
        stderr: 'gymctl: cannot find your home folder (ENOENT): set HOME, or set GYMCTL_CONFIG_DIR and XDG_CACHE_HOME\n',
      });
    }
    // What needs no folder still answers.
    expect(await asStranger(['--version'])).toMatchObject({ code: 0, stderr: '' });
    const home = mkdtempSync(path.join(tmpdir(), 'gymctl-stranger-'));
    try {
      chownSync(home, 4242, 4242);
      const fixed = await asStranger(['academy', '1', '--sandbox', '--json'], { HOME: home });
      expect(fixed).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(fixed.stdout).id).toBe(1);
      // Or, as the message says, the two folders named, and no home is looked for: a write of the config file included.
      const named = { GYMCTL_CONFIG_DIR: path.join(home, 'config'), XDG_CACHE_HOME: path.join(home, 'cache') };
      expect(await asStranger(['config', 'set', 'format', 'json'], named)).toMatchObject({ code: 0, stderr: '' });
      expect(readFileSync(path.join(home, 'config', 'config.json'), 'utf8')).toContain('"format": "json"');
      expect(await asStranger(['whoami', '--sandbox', '--cache', '1m'], named)).toMatchObject({ code: 0, stderr: '' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('signals', () => {
  /** Starts `gymctl academy -` on a stdin that never ends, and sends `signal` once it waits. */
  async function interrupt(signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { child, ready } = spawnWatched(['academy', '-', '--format', 'ndjson'], cleanEnv(world.config.dir, { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY }));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.write('1\n');
    await ready;
    // Then a moment to get to reading stdin, though a signal before it is handled the same way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill(signal);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stdout, stderr };
  }

  it('Ctrl-C (SIGINT) while waiting for stdin: exit 130, nothing printed', async () => {
    expect(await interrupt('SIGINT')).toEqual({ code: 130, stdout: '', stderr: '' });
  });

  it('SIGTERM is handled like Ctrl-C: exit 143, nothing printed', async () => {
    expect(await interrupt('SIGTERM')).toEqual({ code: 143, stdout: '', stderr: '' });
  });
});

describe('signals while --jq runs a filter that never ends', () => {
  // 8,192 results of two bytes: one whole slice of jq's output (16 KiB), which gymctl prints as soon as jq has it.
  const FIRST = '0\n'.repeat(8192);
  for (const [signal, code, endless] of [
    ['SIGINT', 130, 'last(range(infinite))'],
    ['SIGTERM', 143, 'def f: f; f'],
  ] as const) {
    it(`${signal} stops jq where it is: exit ${code}, nothing printed after what jq had given`, async () => {
      const env = cleanEnv(world.config.dir, { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });
      const { child, ready } = spawnWatched(['whoami', '--jq', `(range(8192) | 0), (${endless})`], env);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.stdin.end();
      await ready;
      // Once the first results are out, jq is in the part that never ends: the signal comes then, however long a
      // loaded machine took to get there.
      await waitFor('the first slice of results', () => stdout.length >= FIRST.length || child.exitCode !== null);
      child.kill(signal);
      // Nothing but the signal can end the filter: were jq not stopped, the test's ceiling would.
      const exit = await ended;
      expect({ exit, stdout, stderr }).toEqual({ exit: code, stdout: FIRST, stderr: '' });
    });
  }
});

describe('the hidden prompt, on a real pseudo-terminal', () => {
  it('login reads the key from a hidden prompt on a terminal', async () => {
    // `script` gives the CLI a real pseudo-terminal; the key is typed into it.
    const env = cleanEnv(world.config.dir, { GYMCTL_BASE_URL: world.sandbox.url });
    const child = spawn('script', ['-qefc', `'${process.execPath}' '${BIN}' auth login`, '/dev/null'], { env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('input is hidden') && !child.stdin.writableEnded) child.stdin.end(`${DEMO_KEY}\r`);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, output).toBe(0);
    expect(output).toContain('Logged in to');
    expect(output).not.toContain(DEMO_KEY);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default.apiKey).toBe(DEMO_KEY);
  });
});

describe('gymctl sandbox as a server process', () => {
  async function startCli(args: string[]) {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], { env: cleanEnv(world.config.dir) });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.on('close', () => reject(new Error(`sandbox exited: ${stderr}`)));
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    return { child, url, stdout: () => stdout, stderr: () => stderr, closed };
  }

  it('serves the API, prints the base URL and demo keys, and stops cleanly on Ctrl-C', async () => {
    const server = await startCli([]);
    expect(server.stdout()).toContain(DEMO_KEY);
    expect(server.stdout()).toContain(DEMO_KEY_NO_ACADEMIES);
    const response = await fetch(`${server.url}/academies/2`, { headers: { 'X-API-Key': DEMO_KEY } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { currency: string } }).data.currency).toBe('USD');
    const refused = await fetch(`${server.url}/me`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-correlation-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(await refused.json()).toEqual({ message: 'Unauthorized', correlationId: refused.headers.get('x-correlation-id') });
    server.child.kill('SIGINT');
    // Stopped cleanly, with the exit code of an interrupt.
    expect(await server.closed).toBe(130);
    expect(server.stderr()).toContain('GET /academies/2 200');
    expect(server.stderr()).toContain('Sandbox stopped.');
  });

  it('--data serves your own fixtures', async () => {
    const file = path.join(world.config.dir, '..', 'fixtures.json');
    const many = Array.from({ length: 2_000 }, (_, i) => i + 1);
    const data = {
      ...DEMO_DATA,
      keys: [
        { secret: 'my_fixture_key_1', key: { id: 7, name: 'Mine', academyIds: [2], user: null } },
        { secret: 'my_fixture_key_2', key: { id: 8, name: 'Many', academyIds: many, user: null } },
      ],
    };
    writeFileSync(file, JSON.stringify(data));
    const server = await startCli(['--data', file]);
    // A key that sees thousands of academies is named with the first 20 ids, not a line of all of them.
    expect(server.stdout()).toContain('my_fixture_key_1  Mine (academies 2)\n');
    expect(server.stdout()).toContain(`my_fixture_key_2  Many (academies ${many.slice(0, 20).join(', ')} and 1,980 more)\n`);
    const result = await gymctl(['whoami', '--json'], { env: { GYMCTL_BASE_URL: server.url, GYMCTL_API_KEY: 'my_fixture_key_1' } });
    expect(JSON.parse(result.stdout)).toEqual({ id: 7, name: 'Mine', academyIds: [2], user: null });
    server.child.kill('SIGTERM');
    expect(await server.closed).toBe(143);
    expect(server.stderr()).toContain('Sandbox stopped.');
  });
});

describe('a broken stderr', () => {
  it('keeps the real exit code: 2>/dev/full', async () => {
    const child = spawn('sh', ['-c', `'${process.execPath}' '${BIN}' academy abc 2>/dev/full`], { env: cleanEnv(world.config.dir) });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
  });

  it('keeps the real exit code when stderr is a pipe closed before gymctl writes to it', async () => {
    const child = spawn(process.execPath, [BIN, 'academy', '99'], {
      env: cleanEnv(world.config.dir, { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(3);
  });
});
