/**
 * The deterministic guard on start-up cost, run on every Node version CI
 * uses: the built-in modules that `gymctl --version` and `gymctl whoami
 * --json` make Node load (process.moduleLoadList, written at exit by a
 * preload), which must hold nothing the read path does not need. Timing
 * is `npm run bench`'s job; this cannot be noisy.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { BIN, ROOT, cleanEnv, runCli } from '../helpers/cli.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();

/** Runs gymctl with a preload (`--require` or `--import`) that writes what it records on fd 3; returns that text once gymctl exits 0. */
async function recorded(preload: string[], args: string[], env: Record<string, string>): Promise<string> {
  // Spawned without blocking: the sandbox answering it runs in this process.
  const child = spawn(process.execPath, [...preload, BIN, ...args], {
    env: cleanEnv(world.config.dir, env),
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let list = '';
  let stderr = '';
  child.stdio[3]!.on('data', (chunk: Buffer) => (list += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, stderr).toBe(0);
  return list;
}

/** The built-in modules one run loads, by name (`zlib`, `internal/deps/undici/undici`, …). */
async function builtinsLoadedBy(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const list = await recorded(['--require', path.join(ROOT, 'test', 'bench', 'module-list.cjs')], args, env);
  return list
    .split('\n')
    .filter((line) => line.startsWith('NativeModule '))
    .map((line) => line.slice('NativeModule '.length));
}

/** What no read command needs: Node's own undici, timers of perf_hooks, workers, HTTP/2, compression. */
const NEVER = ['internal/deps/undici/undici', 'perf_hooks', 'worker_threads', 'http2', 'zlib', 'internal/perf/performance'];

describe(`what Node ${process.version} loads to start gymctl`, () => {
  it('--version: none of those, nor http, tls or crypto', async () => {
    const loaded = await builtinsLoadedBy(['--version']);
    // The preload did record: what every Node program loads is there.
    expect(loaded).toEqual(expect.arrayContaining(['fs', 'path']));
    for (const name of [...NEVER, 'http', 'https', 'tls', 'crypto']) expect(loaded, name).not.toContain(name);
  });

  it('whoami --json on an http: base URL: http, but no tls, crypto or any of those', async () => {
    // Without the code cache: what the command itself loads.
    const env = { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY };
    const loaded = await builtinsLoadedBy(['whoami', '--json'], { ...env, GYMCTL_NO_CODE_CACHE: '1' });
    expect(loaded).toContain('http');
    for (const name of [...NEVER, 'tls', 'https', 'crypto', 'child_process']) expect(loaded, name).not.toContain(name);
    // With the compile cache (Node 22.1 and later), still none of them: Node keeps it without loading a module.
    await builtinsLoadedBy(['whoami', '--json'], env);
    const cached = await builtinsLoadedBy(['whoami', '--json'], env);
    for (const name of [...NEVER, 'tls', 'https', 'crypto', 'child_process']) expect(cached, name).not.toContain(name);
  });
});

/** The packages whose code one run loads from the build: each dist/ file it loads, mapped to its sources through esbuild's metafile. */
async function packagesLoadedBy(args: string[], env: Record<string, string> = {}): Promise<{ packages: string[]; sources: string[]; files: string[] }> {
  const meta = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  const list = await recorded(['--require', path.join(ROOT, 'test', 'helpers', 'file-list.cjs')], args, env);
  const files = [
    ...new Set(
      list
        .split('\n')
        .filter(Boolean)
        .map((file) => path.relative(ROOT, file)),
    ),
  ];
  const sources = files.flatMap((file) => Object.keys(meta.outputs[file]?.inputs ?? {}));
  const packages = [...new Set(sources.filter((input) => input.includes('node_modules/')).map((input) => input.split('node_modules/').pop()!.split('/')[0]!))];
  return { packages: packages.sort(), sources, files };
}

describe(`the design card's table, colour and config packages on Node ${process.version}: loaded only where they work`, () => {
  const api = () => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });
  const LAZY = ['chalk', 'cli-table3', 'conf', 'string-width', 'ajv', 'atomically'];

  it('whoami --json and a batch in a pipe load none of them', async () => {
    for (const args of [
      ['whoami', '--json'],
      ['academy', '1', '2'],
      ['academies', '--format', 'csv'],
    ]) {
      const { packages, sources, files } = await packagesLoadedBy(args, api());
      expect(sources, args.join(' ')).toContain('src/operations/whoami.ts');
      // The read path is the boot and the main file alone: no side file.
      expect(files.sort(), args.join(' ')).toEqual(['dist/boot.cjs', 'dist/gymctl.cjs']);
      for (const name of LAZY) expect(packages, `${args.join(' ')}: ${name}`).not.toContain(name);
    }
  });

  it('a table on a terminal loads cli-table3 and chalk, and not conf', async () => {
    const { packages, files } = await packagesLoadedBy(['academy', '1', '2'], { ...api(), GYMCTL_FORCE_TTY: '1' });
    expect(files).toContain('dist/side/output-table.cjs');
    expect(packages).toEqual(expect.arrayContaining(['chalk', 'cli-table3', 'string-width']));
    expect(packages).not.toContain('conf');
  });

  it('writing the config file loads conf, and no table', async () => {
    const { packages, files } = await packagesLoadedBy(['config', 'set', 'timeout', '5000']);
    expect(files).toContain('dist/side/config-conf.cjs');
    expect(packages).toContain('conf');
    for (const name of ['chalk', 'cli-table3']) expect(packages).not.toContain(name);
  });
});

/** Node 22.1 and later can keep a compile cache; Node 20 cannot. */
const hasCompileCache = 'enableCompileCache' in process.getBuiltinModule('node:module');

/** Every file under `dir`, relative to it, with its size and time; folders end with `/`. */
function listing(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const stat = statSync(file);
      return entry.isDirectory() ? `${path.relative(dir, file)}/` : `${path.relative(dir, file)} ${stat.size} ${stat.mtimeMs}`;
    })
    .sort();
}

describe(`the compile cache of the main file, in real runs on Node ${process.version}`, () => {
  // CI turns Node's compile cache off for npm's own runs; gymctl's runs here must not inherit that.
  const api = { GYMCTL_BASE_URL: '', GYMCTL_API_KEY: DEMO_KEY, NODE_DISABLE_COMPILE_CACHE: undefined };
  const whoami = async (env: Record<string, string | undefined> = {}) => {
    const result = await runCli(['whoami', '--json'], world.config.dir, { env: { ...api, GYMCTL_BASE_URL: world.sandbox.url, ...env } });
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    return result.stdout;
  };
  const cacheDir = () => path.join(cleanEnv(world.config.dir).XDG_CACHE_HOME!, 'gymctl-code-cache');

  it(`is ${hasCompileCache ? 'written by the first run into a folder of 0700, taken by the next, and a corrupt one is ignored' : 'not kept: Node 20 has none, and no folder is made'}; the answer is the same each time`, async () => {
    const dir = cacheDir();
    const answer = await whoami();
    expect(JSON.parse(answer)).toMatchObject({ academyIds: [1, 2, 3, 4] });
    if (!hasCompileCache) {
      expect(existsSync(dir)).toBe(false);
      return;
    }
    // The folder, Node's own folder in it, and each file: closed to others.
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const line of listing(dir)) expect(statSync(path.join(dir, line.split(' ')[0]!)).mode & 0o777, line).toBe(line.endsWith('/') ? 0o700 : 0o600);
    const written = listing(dir).filter((line) => !line.endsWith('/'));
    expect(written.length).toBeGreaterThan(0);
    // Taken: nothing written again.
    expect(await whoami()).toBe(answer);
    expect(listing(dir).filter((line) => !line.endsWith('/'))).toEqual(written);
    // Corrupt: Node checks each file's checksum, and the answer is the same.
    for (const line of written) {
      const file = path.join(dir, line.split(' ')[0]!);
      const corrupt = readFileSync(file);
      corrupt.fill(0x5a, Math.min(40, corrupt.length), Math.min(4000, corrupt.length));
      writeFileSync(file, corrupt);
    }
    expect(await whoami()).toBe(answer);
    expect(await whoami()).toBe(answer);
  });

  it('a folder others can open is never used: nothing is written into it, and the answer is the same', async () => {
    const dir = cacheDir();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(JSON.parse(await whoami())).toMatchObject({ id: 101 });
    expect(readdirSync(dir)).toEqual([]);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });

  it('GYMCTL_NO_CODE_CACHE=1 turns it off: nothing is written', async () => {
    await whoami({ GYMCTL_NO_CODE_CACHE: '1' });
    expect(existsSync(cacheDir())).toBe(false);
  });

  it('after auth login, ten runs of whoami --json and of academy 1 2 --sandbox change nothing in the config folder, and write nothing outside the code cache folder', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'gymctl-writes-'));
    try {
      const env = {
        HOME: path.join(base, 'home'),
        XDG_CONFIG_HOME: path.join(base, 'config'),
        XDG_CACHE_HOME: path.join(base, 'cache'),
        GYMCTL_CONFIG_DIR: undefined,
        GYMCTL_API_KEY: undefined,
        NODE_DISABLE_COMPILE_CACHE: undefined,
      };
      mkdirSync(env.HOME, { mode: 0o700 });
      const login = await runCli(['auth', 'login', '--with-key', '--base-url', world.sandbox.url, '--allow-http'], world.config.dir, { env, stdin: DEMO_KEY });
      expect(login.code, login.stderr).toBe(0);
      const before = listing(base);
      expect(before.some((line) => line.startsWith('config/gymctl/config.json'))).toBe(true);
      for (let i = 0; i < 10; i++) {
        for (const args of [
          ['whoami', '--json'],
          ['academy', '1', '2', '--sandbox'],
        ]) {
          const result = await runCli(args, world.config.dir, { env });
          expect(result.code, result.stderr).toBe(0);
        }
      }
      const after = listing(base).filter((line) => !line.startsWith('cache/gymctl-code-cache/'));
      expect(after).toEqual(before.filter((line) => !line.startsWith('cache/gymctl-code-cache/')));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("an error thrown in a side file is the main file's class: a usage error there exits 2, as one in the main file does", async () => {
    // `config set` runs from dist/side/config.cjs; its usage error must be the main file's UsageError for the exit code to be 2.
    const result = await runCli(['config', 'set', 'timeout', 'soon'], world.config.dir);
    expect(result.stderr).toMatch(/invalid timeout "soon"/);
    expect(result.code).toBe(2);
  });
});

describe('a clone not yet built', () => {
  it('says what to do, with no Node stack, and exits 1', async () => {
    const { mkdtempSync, copyFileSync, mkdirSync } = await import('node:fs');
    const root = mkdtempSync(path.join((await import('node:os')).tmpdir(), 'gymctl-unbuilt-'));
    try {
      mkdirSync(path.join(root, 'bin'));
      copyFileSync(BIN, path.join(root, 'bin', 'gymctl.cjs'));
      copyFileSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
      const child = spawn(process.execPath, [path.join(root, 'bin', 'gymctl.cjs'), 'academy', '1', '--sandbox'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr).toBe('gymctl: gymctl is not built: run npm ci && npm run build\n');
      expect(stdout).toBe('');
      expect(code).toBe(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
