/**
 * `--jq EXPR`: real jq 1.8 (WebAssembly, by jq-wasm), which keeps numbers as sent (`38.70`, 20-digit ids). Each result
 * is a line, as `gh --jq` prints them: a string raw, anything else as compact JSON.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { GymctlError } from '../api/errors.js';
import { usageError } from '../failures.js';
import { tuneV8 } from '../files/system.js';
import { escapeJsonForTerminal, sanitizeLine } from './sanitize.js';
import { type Reader, room } from '../terminal/drain.js';

declare const __JQ_WASM__: string | undefined;
declare const __JQ_MODULE__: string | undefined;

export interface JqFilter {
  /**
   * Writes the results for `json` (one or more JSON texts, each an input) a line each; on a failure, the results
   * before it and then the failure, as jq does. jq runs in a worker so that Ctrl-C stops it at once
   * (`last(range(infinite))`); with `reader`, jq waits while it is full, so a slow reader bounds gymctl's memory.
   */
  print(out: (text: string) => void, json: string, terminal: boolean, reader?: Reader): Promise<void>;
  /** Stops jq, whatever it is doing. */
  close(): Promise<void>;
}

/** jq's exit status for a filter that does not compile. */
const COMPILE_ERROR = 3;

/** A file of jq-wasm's: beside the bundle once built (where `built` names it), from jq-wasm itself in development. */
const jqFile = (built: string | undefined, specifier: string) =>
  built === undefined ? createRequire(import.meta.url).resolve(specifier) : fileURLToPath(new URL(built, import.meta.url));
const wasmPath = () => jqFile(typeof __JQ_WASM__ === 'string' ? __JQ_WASM__ : undefined, 'jq-wasm/jq.wasm');
const modulePath = () => jqFile(typeof __JQ_MODULE__ === 'string' ? __JQ_MODULE__ : undefined, 'jq-wasm');

/** A file beside the bundle, as bytes; in the single executable, its own asset copy, never from disk. */
function besideBundle(name: string, file: () => string): Uint8Array {
  const sea = process.getBuiltinModule('node:sea') as { isSea(): boolean; getRawAsset(name: string): ArrayBuffer } | undefined;
  return sea?.isSea() ? new Uint8Array(sea.getRawAsset(name)) : process.getBuiltinModule('node:fs').readFileSync(file());
}

/** Slices of output (16 KiB) posted and not yet written, at most: past it jq waits, so a slow reader (`| sleep 25`) bounds memory. */
const MAX_UNWRITTEN = 4;

/** The worker: takes jq's WebAssembly (compiled on the main thread meanwhile), then runs each request, one at a time. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
// jq-wasm's CommonJS source, read by the main thread (the single executable's own copy there), run as require would.
const jqModule = { exports: {} };
require('node:vm').runInThisContext('(function (exports, require, module, __filename, __dirname) {' + workerData.source + '\\n})', { filename: workerData.filename })(
  jqModule.exports, require, jqModule, workerData.filename, require('node:path').dirname(workerData.filename));
const { loadJq } = jqModule.exports;
// The build's jq-wasm hands output here a byte at a time (see build/common.mjs), sent on in slices as it comes.
const SLICE = 16384;
const flow = new Int32Array(workerData.flow);
let slice = new Uint8Array(SLICE);
let length = 0;
let current;
const send = () => {
  if (length === 0) return;
  parentPort.postMessage({ id: current, chunk: slice.slice(0, length) });
  length = 0;
  // A reader that does not keep up: jq waits here, inside its run, until the main thread has written enough.
  for (let unwritten = Atomics.add(flow, 0, 1) + 1; unwritten >= ${MAX_UNWRITTEN} && Atomics.load(flow, 1) === 0; unwritten = Atomics.load(flow, 0)) {
    Atomics.wait(flow, 0, unwritten);
  }
};
globalThis.__gymctlJqOutput = (byte) => {
  slice[length++] = byte;
  if (length === SLICE) send();
};
parentPort.once('message', (wasmModule) => loadJq({ wasmModule }).then(
  (jq) => {
    parentPort.on('message', ({ id, input, query, flags }) => {
      current = id;
      try {
        const result = jq.raw(input, query, flags);
        send();
        parentPort.postMessage({ id, result });
      } catch (error) {
        length = 0;
        parentPort.postMessage({ id, error: String((error && error.message) || error) });
      }
    });
    parentPort.postMessage({ ready: true });
  },
  (error) => parentPort.postMessage({ failed: String((error && error.message) || error) }),
));
`;

interface RawResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Settles once the slice is written out (and jq may make more). */
type Chunk = (bytes: Uint8Array) => void | Promise<void>;

/** jq in a worker thread. */
async function startWorker(
  wasmModule: Promise<WebAssembly.Module>,
  signal: AbortSignal | undefined,
): Promise<{ run(input: string | null, query: string, flags: string[], chunk?: Chunk): Promise<RawResult>; stop(): Promise<void> }> {
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  // [0]: slices the worker posted that are not yet written out; [1]: 1 once jq is being stopped (see WORKER).
  const flow = new Int32Array(new SharedArrayBuffer(8));
  const written = () => {
    Atomics.sub(flow, 0, 1);
    Atomics.notify(flow, 0);
  };
  const source = Buffer.from(besideBundle('jq-wasm.cjs', modulePath)).toString('utf8');
  const worker = new Worker(WORKER, { eval: true, workerData: { source, filename: modulePath(), flow: flow.buffer } });
  wasmModule.then(
    (compiled) => worker.postMessage(compiled),
    () => {},
  );
  const pending = new Map<number, { resolve(result: RawResult): void; reject(error: unknown): void; chunk: Chunk }>();
  let next = 0;
  let ended: unknown;
  let failStart: (reason: unknown) => void = () => {};
  const end = (reason: unknown) => {
    ended ??= reason;
    failStart(ended);
    for (const { reject } of pending.values()) reject(ended);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    failStart = reject;
    worker.on('message', (message: { ready?: true; failed?: string; id?: number; result?: RawResult; error?: string; chunk?: Uint8Array }) => {
      if (message.ready) return resolve();
      if (message.failed) return reject(new GymctlError('internal', `--jq: jq could not start (${message.failed})`));
      if (message.chunk) {
        let writing: void | Promise<void> | undefined;
        try {
          writing = pending.get(message.id!)?.chunk(message.chunk);
        } finally {
          if (!writing) written();
        }
        if (writing) writing.then(written, written);
        return;
      }
      const waiting = pending.get(message.id!);
      pending.delete(message.id!);
      // Idle, the worker does not keep gymctl alive.
      if (pending.size === 0) worker.unref();
      if (message.error !== undefined) waiting?.reject(new GymctlError('internal', `--jq filter failed: ${message.error}`));
      else waiting?.resolve(message.result!);
    });
    worker.on('error', (error) => {
      reject(error);
      end(error);
    });
    worker.on('exit', () => end(new GymctlError('internal', '--jq: jq stopped')));
  });
  // Once: a second terminate(), after exit, never settles, and the command's end would wait on it.
  let stopping: Promise<unknown> | undefined;
  const stop = async () => {
    end(signal?.aborted ? signal.reason : new GymctlError('internal', '--jq: jq was stopped'));
    // A worker waiting for the reader wakes up, and so can be terminated.
    Atomics.store(flow, 1, 1);
    Atomics.notify(flow, 0);
    stopping ??= worker.terminate();
    await stopping;
  };
  const onAbort = () => void stop();
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  await ready;
  worker.unref();
  return {
    run(input, query, flags, chunk = () => {}) {
      if (ended !== undefined) return Promise.reject(ended);
      return new Promise<RawResult>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject, chunk });
        worker.ref();
        worker.postMessage({ id, input, query, flags });
      });
    },
    async stop() {
      signal?.removeEventListener('abort', onAbort);
      await stop();
    },
  };
}

/**
 * jq's first compile error on one line, about the filter as typed: where the filter stops too soon, that something is
 * missing at its end; the character jq calls INVALID_CHARACTER, shown.
 */
function compileMessage(stderr: string, expression: string): string {
  const first = stderr
    .split('\n')
    .find((line) => line.startsWith('jq: error: '))
    ?.slice('jq: error: '.length);
  if (first === undefined) return 'it does not compile';
  const [, said = first, line, column] = /^(.*?) at <top-level>, line (\d+), column (\d+):?$/.exec(first) ?? [];
  // A reason with no place (a module not found) is said as it is, whatever words of jq's it holds.
  if (line === undefined) return said;
  const ending = /unexpected end of file(?:, expecting (.*))?$/.exec(said);
  if (ending) return `${said.slice(0, ending.index)}${ending[1] ? `expecting ${ending[1]}` : 'something is missing'} at the end of the filter`;
  // jq counts the column in bytes (UTF-8): the filter's characters before it and the one at it, as typed.
  const bytes = Buffer.from(expression.split('\n')[Number(line) - 1] ?? '');
  const character = [...String(bytes.subarray(Number(column) - 1))][0];
  const where = ` at line ${line}, column ${[...String(bytes.subarray(0, Number(column) - 1))].length + 1}`;
  return `${said.replace(', expecting end of file', '').replace('INVALID_CHARACTER', character ? `'${character}'` : 'character')}${where}`;
}

/** A filter that does not compile is a usage error before anything is sent; the check gives jq no input, so nothing runs. */
export async function compileJq(expression: string, signal?: AbortSignal): Promise<JqFilter> {
  // Node 20 and 22 compile jq's WebAssembly with the optimising compiler up front (tuneV8 says what it costs).
  if (Number(process.versions.node.split('.')[0]) < 24) tuneV8('jq');
  const compiling = WebAssembly.compile(besideBundle('jq.wasm', wasmPath) as Uint8Array<ArrayBuffer>);
  // The worker starts while the WebAssembly compiles and the check runs here; a failure to start shows when the filter runs.
  const starting = startWorker(compiling, signal);
  starting.catch(() => {});
  const { loadJq } = await import('jq-wasm');
  // jq runs a filter once per input: with none, it only compiles it.
  const check = (await loadJq({ wasmModule: await compiling })).raw('', expression);
  if (check.exitCode === COMPILE_ERROR) {
    void starting.then(
      (jq) => jq.stop(),
      () => {},
    );
    throw usageError(`invalid --jq filter: ${compileMessage(check.stderr, expression)}`);
  }
  const lines = (stdout: string, terminal: boolean) =>
    stdout
      .split('\n')
      .map((line) => {
        // -c puts each result on one line; a string's line is its JSON text, printed raw.
        if (!line.startsWith('"')) return `${terminal ? escapeJsonForTerminal(line) : line}\n`;
        const text = JSON.parse(line) as string;
        return `${terminal ? text.split('\n').map(sanitizeLine).join('\n') : text}\n`;
      })
      .join('');
  return {
    close: async () => (await starting.catch(() => undefined))?.stop(),
    async print(out, json, terminal, reader) {
      // Results as they stream, a whole line at a time; what is left comes with the end.
      const decoder = new TextDecoder();
      let partial = '';
      const take = (text: string, last: boolean) => {
        partial += text;
        const end = last ? partial.length : partial.lastIndexOf('\n') + 1;
        if (end <= 0) return;
        const whole = partial.slice(0, end).replace(/\n$/, '');
        partial = partial.slice(end);
        out(lines(whole, terminal));
      };
      const result = await (await starting).run(json, expression, ['-c'], (bytes) => {
        take(decoder.decode(bytes, { stream: true }), false);
        return room(reader);
      });
      take(decoder.decode() + result.stdout, true);
      // jq's status is that of the last input: an error on an earlier one shows only in its messages.
      const first = result.stderr.split('\n').find((line) => line.startsWith('jq: error'));
      if (result.exitCode !== 0 || first !== undefined) {
        const message = (first ?? '').replace(/^jq: error (\(at [^)]*\))?: ?/, '') || `jq exited with status ${result.exitCode}`;
        throw new GymctlError('internal', `--jq filter failed: ${message}`);
      }
    },
  };
}
