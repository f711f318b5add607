/**
 * --jq's worker (src/output/jq.ts) and what gymctl does with it: its answers, a jq that cannot start, a jq that fails,
 * crashes or stops while a filter runs, one that never answers (Ctrl-C and close still end it), and whether an idle
 * worker keeps gymctl alive. The worker here runs a jq-wasm of the test's own, named as the build names its copy
 * (`__JQ_MODULE__`); the filter is still checked by the real jq first, so each filter is valid jq.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Interrupted } from '../../src/failures.js';
import { compileJq, type JqFilter } from '../../src/output/jq.js';
import { waitFor } from '../helpers/wait.js';

const global = globalThis as { __JQ_MODULE__?: string };
let dir: string | undefined;
const opened: JqFilter[] = [];

const threads = process.getBuiltinModule('node:worker_threads');
const Real = threads.Worker;

/** Each worker started from now on, and whether it has exited. */
function watchWorkers(): Array<{ exited: boolean }> {
  const started: Array<{ exited: boolean }> = [];
  threads.Worker = class extends Real {
    constructor(...args: ConstructorParameters<typeof Real>) {
      super(...args);
      const state = { exited: false };
      started.push(state);
      this.once('exit', () => (state.exited = true));
    }
  };
  return started;
}

afterEach(async () => {
  threads.Worker = Real;
  for (const filter of opened.splice(0)) await filter.close();
  delete global.__JQ_MODULE__;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * The worker's jq-wasm: `body` is the inside of `loadJq({ wasmModule })`, which returns jq (its `raw(input, query, flags)`)
 * or fails. It runs in the worker, where `parentPort` and `workerData` are at hand.
 */
function workerJq(body: string): void {
  dir = mkdtempSync(path.join(tmpdir(), 'gymctl-jq-worker-'));
  const file = path.join(dir, 'jq-wasm.cjs');
  writeFileSync(file, `const { parentPort, workerData } = require('node:worker_threads');\nexports.loadJq = async () => {\n${body}\n};\n`);
  global.__JQ_MODULE__ = pathToFileURL(file).href;
}

async function filterOf(expression: string, signal?: AbortSignal): Promise<JqFilter> {
  const filter = await compileJq(expression, signal);
  opened.push(filter);
  return filter;
}

/** What `filter` prints for `json`, and how it ends: `out` and the error it fails with, if any. */
async function run(filter: JqFilter, json = 'null', reader?: EventEmitter): Promise<{ out: string; error?: unknown }> {
  let out = '';
  try {
    await filter.print((text) => (out += text), json, false, reader as never);
    return { out };
  } catch (error) {
    return { out, error };
  }
}

/** Whether `promise` has settled after a few turns of the event loop (never a wait on the clock). */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let turn = 0; turn < 50 && !settled; turn++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('jq’s answers', () => {
  it('each request gets its own answer, also when several are in flight', async () => {
    // An echo: each input back, as jq would print it.
    workerJq(`return { raw: (input) => ({ stdout: input + '\\n', stderr: '', exitCode: 0 }) };`);
    const filter = await filterOf('.');
    const [one, two, three] = await Promise.all([run(filter, '1'), run(filter, '2'), run(filter, '3')]);
    expect([one, two, three]).toEqual([{ out: '1\n' }, { out: '2\n' }, { out: '3\n' }]);
  });

  it('output far larger than the slices gymctl lets wait unwritten all comes, when nothing is waited for', async () => {
    workerJq(`return { raw: () => {
      const line = new TextEncoder().encode('x'.repeat(1023) + '\\n');
      for (let i = 0; i < 20 * 16; i++) for (const byte of line) globalThis.__gymctlJqOutput(byte);
      return { stdout: 'last\\n', stderr: '', exitCode: 0 };
    } };`);
    const filter = await filterOf('.');
    const { out } = await run(filter);
    expect(out).toBe(`${`${'x'.repeat(1023)}\n`.repeat(20 * 16)}last\n`);
  });

  it('a message about no request in flight is ignored, and the requests in flight still get theirs', async () => {
    workerJq(`return { raw: (input) => {
      parentPort.postMessage({ id: 999, result: { stdout: 'stray\\n', stderr: '', exitCode: 0 } });
      parentPort.postMessage({ id: 998, error: 'stray' });
      parentPort.postMessage({ id: 997, chunk: new TextEncoder().encode('stray\\n') });
      return { stdout: input + '\\n', stderr: '', exitCode: 0 };
    } };`);
    const filter = await filterOf('.');
    expect(await run(filter, '1')).toEqual({ out: '1\n' });
    expect(await run(filter, '2')).toEqual({ out: '2\n' });
  });
});

describe('a jq that cannot start', () => {
  it('says why, as an internal error, when the filter runs; closing settles', async () => {
    workerJq(`throw new Error('out of memory');`);
    const filter = await filterOf('.');
    const { error } = await run(filter);
    expect(error).toMatchObject({ kind: 'internal', message: '--jq: jq could not start (out of memory)' });
    await expect(filter.close()).resolves.toBeUndefined();
  });

  it('a worker that crashes while it starts fails the filter with its error', async () => {
    workerJq(`setImmediate(() => { throw new Error('jq crashed while starting'); }); return new Promise(() => {});`);
    const filter = await filterOf('.');
    const { error } = await run(filter);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('jq crashed while starting');
    await expect(filter.close()).resolves.toBeUndefined();
  });

  it('a worker that ends while it starts fails the filter: jq stopped', async () => {
    workerJq(`process.exit(0);`);
    const filter = await filterOf('.');
    const { error } = await run(filter);
    expect(error).toMatchObject({ kind: 'internal', message: '--jq: jq stopped' });
    await expect(filter.close()).resolves.toBeUndefined();
  });
});

describe('a jq that fails while a filter runs', () => {
  it('an error thrown by jq (a trap in its WebAssembly) fails that filter only: the next runs', async () => {
    workerJq(`let calls = 0; return { raw: (input) => {
      if (++calls === 1) throw new Error('unreachable executed');
      return { stdout: input + '\\n', stderr: '', exitCode: 0 };
    } };`);
    const filter = await filterOf('.');
    const failed = await run(filter, '1');
    expect(failed.out).toBe('');
    expect(failed.error).toMatchObject({ kind: 'internal', message: '--jq filter failed: unreachable executed' });
    expect(await run(filter, '2')).toEqual({ out: '2\n' });
  });

  it('what jq printed before an error is not shown as a result', async () => {
    workerJq(`return { raw: () => {
      for (const byte of new TextEncoder().encode('half a li')) globalThis.__gymctlJqOutput(byte);
      throw new Error('unreachable executed');
    } };`);
    const filter = await filterOf('.');
    expect(await run(filter)).toMatchObject({ out: '', error: { message: '--jq filter failed: unreachable executed' } });
  });

  it('a worker that crashes while a filter runs fails it with the crash, and every filter after it', async () => {
    // What jq throws cannot even be read: the worker's own error, uncaught.
    workerJq(`return { raw: () => { throw { get message() { throw new Error('jq crashed'); } }; } };`);
    const started = watchWorkers();
    const filter = await filterOf('.');
    const printing = run(filter);
    await waitFor('jq’s worker ends', () => started[0]?.exited === true);
    expect(await settlesSoon(printing)).toBe(true);
    expect(((await printing).error as Error).message).toBe('jq crashed');
    const later = filter.print(() => {}, '2', false);
    expect(await settlesSoon(later)).toBe(true);
    await expect(later).rejects.toThrow('jq crashed');
  });

  it('a worker that ends while a filter runs fails it: jq stopped; a filter after it fails at once', async () => {
    workerJq(`return { raw: () => process.exit(0) };`);
    const started = watchWorkers();
    const filter = await filterOf('.');
    const printing = run(filter);
    await waitFor('jq’s worker ends', () => started[0]?.exited === true);
    expect(await settlesSoon(printing)).toBe(true);
    expect((await printing).error).toMatchObject({ kind: 'internal', message: '--jq: jq stopped' });
    const later = filter.print(() => {}, '2', false);
    expect(await settlesSoon(later)).toBe(true);
    await expect(later).rejects.toMatchObject({ kind: 'internal', message: '--jq: jq stopped' });
    await expect(filter.close()).resolves.toBeUndefined();
  });
});

describe('a jq that never answers', () => {
  const forever = `return { raw: () => { for (;;); } };`;

  it('Ctrl-C stops it: the filter fails with the interrupt, and closing settles', async () => {
    workerJq(forever);
    const controller = new AbortController();
    const filter = await filterOf('.', controller.signal);
    const printing = run(filter);
    controller.abort(new Interrupted('SIGINT'));
    expect(await settlesSoon(printing)).toBe(true);
    expect((await printing).error).toBeInstanceOf(Interrupted);
    await expect(filter.close()).resolves.toBeUndefined();
  });

  it('closing the filter stops it: what waits on it fails, jq was stopped', async () => {
    workerJq(forever);
    const filter = await filterOf('.');
    const printing = run(filter);
    await filter.close();
    expect(await settlesSoon(printing)).toBe(true);
    expect((await printing).error).toMatchObject({ kind: 'internal', message: '--jq: jq was stopped' });
  });

  it('a jq waiting for a full reader is stopped by Ctrl-C too', async () => {
    // Slices of 16 KiB, many more than gymctl lets wait unwritten.
    workerJq(`return { raw: () => {
      for (let i = 0; i < 20 * 16384; i++) globalThis.__gymctlJqOutput(10);
      return { stdout: '', stderr: '', exitCode: 0 };
    } };`);
    const controller = new AbortController();
    const filter = await filterOf('.', controller.signal);
    const reader = Object.assign(new EventEmitter(), { writableNeedDrain: true });
    let slices = 0;
    const printing = filter.print(() => slices++, 'null', false, reader as never);
    printing.catch(() => {});
    await waitFor('jq prints until the reader is full', () => slices >= 4);
    controller.abort(new Interrupted('SIGINT'));
    await expect(printing).rejects.toBeInstanceOf(Interrupted);
    await expect(filter.close()).resolves.toBeUndefined();
  });
});

describe('gymctl kept alive by jq', () => {
  /** The message ports that keep the process alive (the test runner's own among them). */
  const ports = () => process.getActiveResourcesInfo().filter((name) => name === 'MessagePort').length;

  it('only while a filter runs: idle, before and after, the worker lets gymctl end', async () => {
    workerJq(`return { raw: (input) => {
      if (input === '1') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      return { stdout: input + '\\n', stderr: '', exitCode: 0 };
    } };`);
    const runner = ports();
    const held = () => ports() > runner;
    const filter = await filterOf('.');
    // Started, and waiting for a filter to run.
    await waitFor('the started worker lets gymctl end', () => !held(), 10_000);
    const slow = run(filter, '1');
    const fast = run(filter, '2');
    await waitFor('a filter running holds gymctl', held, 10_000);
    expect(await slow).toEqual({ out: '1\n' });
    // One answered, one still in flight.
    expect(held()).toBe(true);
    expect(await fast).toEqual({ out: '2\n' });
    expect(held()).toBe(false);
  });
});

describe('where jq comes from', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    delete (globalThis as { __JQ_WASM__?: string }).__JQ_WASM__;
  });

  it('in the single executable, jq’s WebAssembly and module are its own assets, never read from disk', async () => {
    const require = createRequire(import.meta.url);
    const assets: Record<string, string> = { 'jq.wasm': require.resolve('jq-wasm/jq.wasm'), 'jq-wasm.cjs': require.resolve('jq-wasm') };
    const asked: string[] = [];
    const sea = {
      isSea: () => true,
      getRawAsset(name: string) {
        asked.push(name);
        const bytes = readFileSync(assets[name] as string);
        return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      },
    };
    const builtin = process.getBuiltinModule.bind(process);
    vi.spyOn(process, 'getBuiltinModule').mockImplementation(((name: string) => (name === 'node:sea' ? sea : builtin(name))) as never);
    // What is on disk where the build would put them is not there.
    (globalThis as { __JQ_WASM__?: string }).__JQ_WASM__ = pathToFileURL(path.join(tmpdir(), 'gymctl-no-such-jq.wasm')).href;
    global.__JQ_MODULE__ = pathToFileURL(path.join(tmpdir(), 'gymctl-no-such-jq-wasm.cjs')).href;
    const filter = await filterOf('.a');
    expect(await run(filter, '{"a": [1, "x"]}')).toEqual({ out: '[1,"x"]\n' });
    expect(asked.sort()).toEqual(['jq-wasm.cjs', 'jq.wasm']);
  });

  it('on Node 20 and 22, V8 compiles jq with its quick compiler only; from Node 24, as it does by itself', async () => {
    const node = process.versions.node;
    const flags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    try {
      for (const [version, tuned] of [
        ['22.22.0', true],
        ['24.0.0', false],
      ] as const) {
        Object.defineProperty(process.versions, 'node', { value: version });
        flags.mockClear();
        // A fresh module graph: V8 is tuned once per process.
        vi.resetModules();
        const fresh = (await import('../../src/output/jq.js')) as typeof import('../../src/output/jq.js');
        opened.push(await fresh.compileJq('.'));
        expect(flags.mock.calls).toEqual(tuned ? [['--liftoff-only']] : []);
      }
    } finally {
      Object.defineProperty(process.versions, 'node', { value: node });
    }
  });
});

describe('jq’s worker ended', () => {
  it('once the filter is closed, its worker is gone', async () => {
    const started = watchWorkers();
    const filter = await compileJq('.');
    expect(await run(filter, '1')).toEqual({ out: '1\n' });
    await filter.close();
    expect(started).toEqual([{ exited: true }]);
  });

  it('a filter that does not compile leaves no jq running', async () => {
    const started = watchWorkers();
    await expect(compileJq('.a |||')).rejects.toMatchObject({ kind: 'usage' });
    expect(started).toHaveLength(1);
    await waitFor('the worker of a filter refused ends', () => started.every((worker) => worker.exited), 10_000);
  });
});
