/**
 * The library on each runtime docs/library.md names, as each resolves the package through its exports map: Node (the
 * reference), Bun, Deno, Cloudflare's workerd and a browser bundle in a context with web globals only. Each runs the same
 * scenario (test/runtimes/scenario.mjs) against loopback servers, and its report must be Node's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import vm from 'node:vm';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFault } from '../../src/sandbox/faults.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { ROOT } from '../helpers/cli.js';
import { httpServer } from '../helpers/servers.js';

type Report = Record<string, unknown>;
type Bundle = Awaited<ReturnType<typeof bundle>>;
type Urls = { sandbox: string; silent: string; wide: string; flaky: string };

const FIXTURES = path.join(ROOT, 'test', 'runtimes');
const BINARIES = path.join(ROOT, 'node_modules', '.bin');
const WIDE_ID = '9007199254740993';
const WAIT_MS = 20_000;

let dir: string;
let reference: Report;
let sandbox: Sandbox;
let silent: string;
let wide: string;
let counted = 0;
let worker: Bundle;
let browser: Bundle;
let counting: string;
const sandboxes: Sandbox[] = [];

/** The servers a run is given, with a sandbox of its own that fails once with a 503; `requests()` counts what it was sent. */
async function serversFor(): Promise<{ urls: Urls; requests: () => number }> {
  let requests = 0;
  const flaky = await startSandbox({ faults: [parseFault('unavailable*1')], log: () => requests++ });
  sandboxes.push(flaky);
  return { urls: { sandbox: sandbox.url, silent, wide, flaky: flaky.url }, requests: () => requests };
}

/**
 * The runtime's own binary, from the package npm installs for this platform (as the packages' postinstall scripts would
 * link it, which npm does not run here: bun's .bin entry is a placeholder until then, and workerd's a Node wrapper that
 * does not pass on --control-fd), else node_modules/.bin; missing, a failure under CI, else undefined, saying which.
 */
const PLATFORM_BINARIES: Record<string, string> = {
  bun: `@oven/bun-${process.platform}-${process.arch}/bin/bun`,
  deno: `@deno/${process.platform}-${process.arch}-glibc/deno`,
  workerd: `@cloudflare/workerd-${process.platform}-${process.arch === 'x64' ? '64' : process.arch}/bin/workerd`,
};
function binary(name: string): string | undefined {
  const own = path.join(ROOT, 'node_modules', PLATFORM_BINARIES[name] ?? name);
  if (existsSync(own)) return own;
  const file = path.join(BINARIES, name);
  if (existsSync(file)) return file;
  expect(process.env.CI, `${name} is not installed (npm ci installs it from the ${name} package)`).not.toBe('true');
  console.warn(`runtimes: ${name} is not installed, so the library was not run on it`);
  return undefined;
}

const output = (stream: Readable | null) => {
  let text = '';
  stream?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
};

/** Runs `file` with `args` in the folder; its stdout once it exits 0, within WAIT_MS. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = spawn(file, args, { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const [stdout, stderr] = [output(child.stdout), output(child.stderr)];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout());
      else reject(new Error(`${path.basename(file)} ended with ${code ?? signal}: ${stderr()}`));
    });
  });
}

/** The fixtures' bundle for `entry`, gymctl resolved through its exports map under `conditions`, nothing left external. */
async function bundle(entry: string, conditions: string[], format: 'esm' | 'iife') {
  const result = await build({
    absWorkingDir: dir,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    conditions,
    format,
    write: false,
    metafile: true,
    logLevel: 'silent',
    // A reference to Node's globals becomes a name the output is then searched for; a string that mentions them does not.
    define: { process: '__node_global_process__', Buffer: '__node_global_Buffer__' },
  });
  return { text: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gymctl-runtimes-'));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(ROOT, path.join(dir, 'node_modules', 'gymctl'), 'dir');
  for (const name of readdirSync(FIXTURES)) copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
  writeFileSync(path.join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  sandbox = await startSandbox();
  silent = await httpServer(() => {});
  const me = { id: WIDE_ID, name: 'Front desk (demo)', academyIds: [1], user: { id: 9001, name: 'Rita Moreira', email: 'rita.moreira@example.com' } };
  const body = JSON.stringify({ data: me }).replace(`"${WIDE_ID}"`, WIDE_ID);
  wide = await httpServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
  counting = await httpServer((_, response) => {
    counted++;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { ...me, id: 101 } }));
  });
  // Both bundles before any runtime starts: esbuild's service does not outlive a spawned runtime's end in this process.
  [worker, browser] = await Promise.all([bundle('worker.mjs', ['workerd', 'worker', 'browser'], 'esm'), bundle('browser.mjs', [], 'iife')]);
  const { urls, requests } = await serversFor();
  const gymctl = await import(path.join(ROOT, 'dist', 'index.js'));
  const { scenario } = await import(path.join(FIXTURES, 'scenario.mjs'));
  reference = JSON.parse(JSON.stringify(await scenario(gymctl, urls)));
  expect(requests()).toBe(2);
});

afterAll(async () => {
  await Promise.all([sandbox, ...sandboxes].map((each) => each?.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the library on every runtime', () => {
  it('on Node, the reference: the operations, their failures, a retry, withResponse() and a 64-bit id', () => {
    expect(reference.me).toMatchObject({ value: { id: 101, academyIds: [1, 2, 3, 4] } });
    expect(reference.academy).toEqual({ value: { id: 1, name: 'Alfama Jiu-Jitsu' } });
    expect(reference.family).toEqual({ value: [502, 503] });
    expect(reference.notFound).toMatchObject({ error: { name: 'GymApiError', kind: 'not_found' } });
    expect(reference.unauthorized).toMatchObject({ error: { kind: 'unauthorized' } });
    expect(reference.aborted).toMatchObject({ error: { kind: 'aborted' } });
    expect(reference.timeout).toMatchObject({ error: { kind: 'unavailable', reason: 'timeout', message: 'GET /me: timed out after 150 ms' } });
    expect(reference.retried).toEqual({ value: 2 });
    expect(reference.withResponse).toMatchObject({ value: { id: 1, status: 200, type: expect.stringMatching(/^application\/json/) } });
    // With ids: 'bigint', an id beyond 2^53 comes back exact. By default it is exact too while ids are number | bigint, and
    // an invalid_response naming that option once ids are numbers: either way, never a rounded number.
    const exact = { value: { id: `${WIDE_ID}n`, type: 'bigint' } };
    expect(reference.wideIdExact).toEqual(exact);
    expect([exact, { error: expect.objectContaining({ kind: 'invalid_response', message: expect.stringContaining("ids: 'bigint'") }) }]).toContainEqual(reference.wideId);
  });

  it('on Bun, which takes the node build', async () => {
    const bun = binary('bun');
    if (!bun) return;
    const { urls, requests } = await serversFor();
    const report = await run(bun, ['harness.mjs', JSON.stringify(urls)], { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0', BUN_INSTALL_CACHE_DIR: path.join(dir, '.bun') });
    expect(JSON.parse(report)).toEqual(reference);
    expect(requests()).toBe(2);
  });

  it('on Deno, which takes the node build', async () => {
    const deno = binary('deno');
    if (!deno) return;
    const { urls, requests } = await serversFor();
    const args = ['run', '--quiet', '--no-prompt', '--node-modules-dir=manual', '--allow-net=127.0.0.1', '--allow-read', '--allow-env', 'harness.mjs', JSON.stringify(urls)];
    const report = await run(deno, args, { DENO_DIR: path.join(dir, '.deno'), DENO_NO_UPDATE_CHECK: '1' });
    expect(JSON.parse(report)).toEqual(reference);
    expect(requests()).toBe(2);
  });

  it("on Cloudflare's workerd, a Worker bundled with the web build", async () => {
    const workerd = binary('workerd');
    if (!workerd) return;
    expect(worker.inputs.filter((input) => /^node:|node_modules[\\/]undici/.test(input))).toEqual([]);
    writeFileSync(path.join(dir, 'worker.js'), worker.text);
    const { urls, requests } = await serversFor();
    // workerd writes the port it listens on to the control descriptor (3), as JSON.
    const child: ChildProcess = spawn(workerd, ['serve', 'config.capnp', '--control-fd=3'], { cwd: dir, env: { HOME: dir }, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    const stderr = output(child.stderr);
    const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let control = '';
        (child.stdio[3] as Readable).on('data', (chunk: Buffer) => {
          control += chunk.toString();
          const listening = /"port":(\d+)/.exec(control);
          if (listening) resolve(Number(listening[1]));
        });
        child.on('close', (code) => reject(new Error(`workerd ended with ${code}: ${stderr()}`)));
      });
      const answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: JSON.stringify(urls), signal: AbortSignal.timeout(WAIT_MS) });
      expect(answer.status, stderr()).toBe(200);
      expect(await answer.json()).toEqual(reference);
      expect(requests()).toBe(2);
    } finally {
      clearTimeout(timer);
      child.kill();
    }
  });

  describe('a browser bundle, made with esbuild --platform=browser and no --external', () => {
    /** A context holding only these web globals (and the language's own), the bundle run in it. */
    const webContext = (leaveOut: string[] = []) => {
      const web = { fetch, Response, Headers, AbortController, AbortSignal, TextDecoder, TextEncoder, ReadableStream, URL, setTimeout, clearTimeout, queueMicrotask, console };
      const context = vm.createContext(Object.fromEntries(Object.entries(web).filter(([name]) => !leaveOut.includes(name))));
      vm.runInContext(browser.text, context);
      return context as { run(urls: Urls): Promise<string>; gymctl: typeof import('../../src/index.js') };
    };

    it('reaches no node: module, undici, process or Buffer', () => {
      expect(browser.inputs.some((input) => input.startsWith('node_modules/gymctl/dist/index.web.js') || input.endsWith('dist/index.web.js'))).toBe(true);
      expect(browser.inputs.filter((input) => /^node:|undici/.test(input))).toEqual([]);
      expect(browser.text.match(/__node_global_\w+__|\bnode:\w+|require\(/g)).toBeNull();
    });

    it('runs with web globals only', async () => {
      const { urls, requests } = await serversFor();
      expect(JSON.parse(await webContext().run(urls))).toEqual(reference);
      expect(requests()).toBe(2);
    });

    it('a runtime without what the library needs, or given Node-only options, is a usage error before anything is sent', async () => {
      const attempt = (context: ReturnType<typeof webContext>, options: object = {}) =>
        context.gymctl
          .createClient({ baseUrl: counting, apiKey: 'demo_key_all_academies', ...options })
          .getMe()
          .then(
            () => 'answered',
            (error: unknown) => `${(error as { kind: string }).kind}: ${(error as Error).message}`,
          );
      const before = counted;
      expect(await attempt(webContext(['TextDecoder', 'ReadableStream']))).toBe('usage: this runtime has no ReadableStream, TextDecoder, which gymctl needs');
      expect(await attempt(webContext(['fetch']))).toBe('usage: this runtime has no fetch, which gymctl needs: pass one as createClient({ fetch })');
      expect(await attempt(webContext(), { env: { HTTPS_PROXY: 'http://proxy.example:3128' } })).toMatch(/^usage: env: proxies and undici are for Node/);
      expect(counted).toBe(before);
      // The caller's fetch stands in for a missing one.
      expect(await attempt(webContext(['fetch']), { fetch })).toBe('answered');
      expect(counted).toBe(before + 1);
    });
  });
});
