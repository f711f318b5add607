/**
 * `--jq EXPR`: real jq (jq 1.8, compiled to WebAssembly by jq-wasm), which
 * keeps numbers as they were sent (`38.70`, 20-digit ids). Loaded only when
 * --jq is given. Each result is a line, as `gh --jq` prints them: a string
 * raw, anything else as compact JSON.
 */
import { createRequire } from 'node:module';
import { GymctlError } from '../api/errors.js';
import { usageError } from '../failures.js';
import { escapeJsonForTerminal, sanitizeLine } from './sanitize.js';

declare const __JQ_WASM__: string | undefined;

export interface JqFilter {
  /**
   * Writes the filter's results for `json` (one JSON text, or several one
   * after the other: each is an input, as jq reads a stream), a line each,
   * made safe for a terminal when `terminal`. When the filter fails on an
   * input, the results before it are written and the failure is thrown, as
   * jq prints what it has and then exits non-zero.
   */
  print(out: (text: string) => void, json: string, terminal: boolean): void;
}

/** jq's exit status for a filter that does not compile. */
const COMPILE_ERROR = 3;

/** The wasm: next to the bundle once built (jq-wasm is bundled, not installed), from jq-wasm itself in development. */
function wasmPath(): string | URL {
  if (typeof __JQ_WASM__ === 'string') return new URL(__JQ_WASM__, import.meta.url);
  return createRequire(import.meta.url).resolve('jq-wasm/jq.wasm');
}

/**
 * jq's own message on one line, without its `jq: error:` prefix and its
 * excerpt, with the line numbers of the filter as typed (it is compiled
 * inside a wrapping that adds a line before it).
 */
function compileMessage(stderr: string, lines: number): string {
  const first =
    stderr
      .split('\n')
      .find((line) => line.startsWith('jq: error: '))
      ?.slice('jq: error: '.length) ?? 'it does not compile';
  return first.replace(/ at <top-level>, line (\d+)(, column \d+)?:?$/, (_, line: string, column = '') =>
    Number(line) - 1 > lines ? ' at the end of the filter' : ` at line ${Number(line) - 1}${column}`,
  );
}

/**
 * Compiles `expression`: one that does not compile is a usage error,
 * before anything is sent. The check wraps it in a branch never taken, so
 * that nothing of it runs (it could loop for ever on no input).
 */
export async function compileJq(expression: string): Promise<JqFilter> {
  // Node 20 and 22 compile jq's 900 KB of WebAssembly with V8's optimising compiler up front, which takes
  // longer than a call runs: baseline code only saves about 40 ms there. Node 24 and later tier up lazily
  // already, and the flag set at run time costs them a few milliseconds instead (measured with npm run bench).
  if (Number(process.versions.node.split('.')[0]) < 24) process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  const [{ loadJq }, { readFileSync }] = await Promise.all([import('jq-wasm'), Promise.resolve(process.getBuiltinModule('node:fs'))]);
  const jq = await loadJq({ wasmBinary: readFileSync(wasmPath()) });
  const check = jq.raw(null, `if false then (\n${expression}\n) else empty end`, ['-n']);
  if (check.exitCode === COMPILE_ERROR) {
    throw usageError(`invalid --jq filter: ${compileMessage(check.stderr, expression.split('\n').length)}`);
  }
  const lines = (stdout: string, terminal: boolean) =>
    stdout === ''
      ? ''
      : stdout
          .split('\n')
          .map((line) => {
            // -c puts each result on one line; a string's line is its JSON text, printed raw.
            if (!line.startsWith('"')) return `${terminal ? escapeJsonForTerminal(line) : line}\n`;
            const text = JSON.parse(line) as string;
            return `${terminal ? text.split('\n').map(sanitizeLine).join('\n') : text}\n`;
          })
          .join('');
  return {
    print(out, json, terminal) {
      const result = jq.raw(json, expression, ['-c']);
      const text = lines(result.stdout, terminal);
      if (text !== '') out(text);
      // jq's status is that of the last input: an error on an earlier one shows only in its messages.
      const first = result.stderr.split('\n').find((line) => line.startsWith('jq: error'));
      if (result.exitCode !== 0 || first !== undefined) {
        const message = (first ?? '').replace(/^jq: error (\(at [^)]*\))?: ?/, '') || `jq exited with status ${result.exitCode}`;
        throw new GymctlError('internal', `--jq filter failed: ${message}`);
      }
    },
  };
}
