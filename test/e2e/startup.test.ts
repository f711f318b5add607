/**
 * The deterministic guard on start-up cost, run on every Node version CI
 * uses: the built-in modules that `gymctl --version` and `gymctl whoami
 * --json` make Node load (process.moduleLoadList, written at exit by a
 * preload), which must hold nothing the read path does not need. Timing
 * is `npm run bench`'s job; this cannot be noisy.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { frame, unframe } from '../../src/startup/frame.js';
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
    // With it, crypto too, which checks the cache's signature (on an https: base URL, TLS loads it anyway); nothing else.
    await builtinsLoadedBy(['whoami', '--json'], env);
    const cached = await builtinsLoadedBy(['whoami', '--json'], env);
    expect(cached).toContain('crypto');
    for (const name of [...NEVER, 'tls', 'https', 'child_process']) expect(cached, name).not.toContain(name);
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

describe(`the code cache of the main file, in real runs on Node ${process.version}`, () => {
  it('is written by the first run, taken by the next, and a corrupt one is ignored and rewritten; the answer is the same each time', async () => {
    const env = { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY };
    const dir = path.join(cleanEnv(world.config.dir).XDG_CACHE_HOME!, 'gymctl-code-cache');
    rmSync(dir, { recursive: true, force: true });
    const whoami = async () => {
      const result = await runCli(['whoami', '--json'], world.config.dir, { env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
      return result.stdout;
    };
    const answer = await whoami();
    expect(JSON.parse(answer)).toMatchObject({ academyIds: [1, 2, 3, 4] });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-whoami\.v8$/);
    const file = path.join(dir, files[0]!);
    const written = readFileSync(file);
    expect(written.subarray(0, 8).toString()).toBe('gymctlV8');
    // Taken: not written again.
    expect(await whoami()).toBe(answer);
    expect(readFileSync(file).equals(written)).toBe(true);
    // Corrupt: ignored, and a whole one written in its place.
    const corrupt = Buffer.from(written);
    corrupt.fill(0x5a, 40, 4000);
    writeFileSync(file, corrupt, { mode: 0o600 });
    expect(await whoami()).toBe(answer);
    const rewritten = readFileSync(file);
    expect(rewritten.equals(corrupt)).toBe(false);
    expect(rewritten.subarray(0, 8).toString()).toBe('gymctlV8');
    // Signed with a secret the run made in the config folder, 0600.
    expect(statSync(path.join(world.config.dir, 'cache-secret')).mode & 0o777).toBe(0o600);
  });

  it('a file with a byte changed and framed again by someone without the secret is never taken: every later run answers and exits 0', async () => {
    const env = { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY };
    const dir = path.join(cleanEnv(world.config.dir).XDG_CACHE_HOME!, 'gymctl-code-cache');
    rmSync(dir, { recursive: true, force: true });
    const whoami = async () => {
      const result = await runCli(['whoami', '--json'], world.config.dir, { env });
      expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
      return result.stdout;
    };
    const answer = await whoami();
    const [name] = readdirSync(dir);
    const file = path.join(dir, name!);
    const secretFile = path.join(world.config.dir, 'cache-secret');
    const secret = existsSync(secretFile) ? Buffer.from(readFileSync(secretFile, 'utf8').trim(), 'hex') : Buffer.alloc(32);
    const data = unframe(readFileSync(file), name!, secret)!;
    // Bytes whose change, framed again with a checksum and no signature, made V8 crash (SIGTRAP, SIGSEGV) on every run.
    for (const at of [40, 200, 1000]) {
      const changed = Buffer.from(data);
      changed[at]! ^= 0x41;
      writeFileSync(file, frame(changed, name!, Buffer.alloc(32, 0xee)), { mode: 0o600 });
      expect(await whoami(), `byte ${at}`).toBe(answer);
      expect(await whoami(), `byte ${at}, the next run`).toBe(answer);
    }
  });

  it('GYMCTL_NO_CODE_CACHE=1 turns it off: nothing is written', async () => {
    const dir = path.join(cleanEnv(world.config.dir).XDG_CACHE_HOME!, 'gymctl-code-cache');
    rmSync(dir, { recursive: true, force: true });
    const result = await runCli(['whoami', '--json'], world.config.dir, { env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY, GYMCTL_NO_CODE_CACHE: '1' } });
    expect(result.code, result.stderr).toBe(0);
    expect(() => readdirSync(dir)).toThrow(/ENOENT/);
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
