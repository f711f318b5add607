/**
 * The deterministic guard on start-up cost, run on every Node version CI
 * uses: the built-in modules that `gymctl --version` and `gymctl whoami
 * --json` make Node load (process.moduleLoadList, written at exit by a
 * preload), which must hold nothing the read path does not need. Timing
 * is `npm run bench`'s job; this cannot be noisy.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { BIN, ROOT, cleanEnv } from '../helpers/cli.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();

/** The built-in modules one run loads, by name (`zlib`, `internal/deps/undici/undici`, …). */
async function builtinsLoadedBy(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  // Spawned without blocking: the sandbox answering it runs in this process.
  const child = spawn(process.execPath, ['--require', path.join(ROOT, 'test', 'bench', 'module-list.cjs'), BIN, ...args], {
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
    for (const name of [...NEVER, 'http', 'https', 'tls', 'crypto']) expect(loaded, name).not.toContain(name);
  });

  it('whoami --json on an http: base URL: http, but no tls, crypto or any of those', async () => {
    const loaded = await builtinsLoadedBy(['whoami', '--json'], { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });
    expect(loaded).toContain('http');
    for (const name of [...NEVER, 'tls', 'https', 'crypto', 'child_process']) expect(loaded, name).not.toContain(name);
  });
});
