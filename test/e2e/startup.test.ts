/**
 * The deterministic guard on start-up cost, run on every Node version CI
 * uses: the built-in modules that `gymctl --version` and `gymctl whoami
 * --json` make Node load (process.moduleLoadList, written at exit by a
 * preload), which must hold nothing the read path does not need. Timing
 * is `npm run bench`'s job; this cannot be noisy.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { BIN, ROOT, cleanEnv } from '../helpers/cli.js';
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
    const loaded = await builtinsLoadedBy(['whoami', '--json'], { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });
    expect(loaded).toContain('http');
    for (const name of [...NEVER, 'tls', 'https', 'crypto', 'child_process']) expect(loaded, name).not.toContain(name);
  });
});

/** The packages whose code one run imports from the build: each dist/ file it loads, mapped to its sources through esbuild's metafile. */
async function packagesLoadedBy(args: string[], env: Record<string, string> = {}): Promise<{ packages: string[]; sources: string[] }> {
  const meta = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  const list = await recorded(['--import', pathToFileURL(path.join(ROOT, 'test', 'helpers', 'chunk-list.mjs')).href], args, env);
  const files = [
    ...new Set(
      list
        .split('\n')
        .filter(Boolean)
        .map((url) => path.relative(ROOT, fileURLToPath(url))),
    ),
  ];
  const sources = files.flatMap((file) => Object.keys(meta.outputs[file]?.inputs ?? {}));
  const packages = [...new Set(sources.filter((input) => input.includes('node_modules/')).map((input) => input.split('node_modules/').pop()!.split('/')[0]!))];
  return { packages: packages.sort(), sources };
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
      const { packages, sources } = await packagesLoadedBy(args, api());
      expect(sources, args.join(' ')).toContain('src/commands/whoami.ts');
      for (const name of LAZY) expect(packages, `${args.join(' ')}: ${name}`).not.toContain(name);
    }
  });

  it('a table on a terminal loads cli-table3 and chalk, and not conf', async () => {
    const { packages } = await packagesLoadedBy(['academy', '1', '2'], { ...api(), GYMCTL_FORCE_TTY: '1' });
    expect(packages).toEqual(expect.arrayContaining(['chalk', 'cli-table3', 'string-width']));
    expect(packages).not.toContain('conf');
  });

  it('writing the config file loads conf, and no table', async () => {
    const { packages } = await packagesLoadedBy(['config', 'set', 'timeout', '5000']);
    expect(packages).toContain('conf');
    for (const name of ['chalk', 'cli-table3']) expect(packages).not.toContain(name);
  });
});
