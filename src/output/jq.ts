/**
 * `--jq EXPR`: real jq (jq 1.8, compiled to WebAssembly by jq-wasm), which
 * keeps numbers as they were sent (`38.70`, 20-digit ids). Loaded only when
 * --jq is given. Each result is a line, as `gh --jq` prints them: a string
 * raw, anything else as compact JSON.
 */
import { createRequire } from 'node:module';
import { GymctlError, usageError } from '../api/errors.js';
import { escapeJsonForTerminal, sanitizeLine } from './sanitize.js';

declare const __JQ_WASM__: string | undefined;

export interface JqFilter {
  /** The filter's results for one JSON text, each a line with its newline; made safe for a terminal when `terminal`. */
  apply(json: string, terminal: boolean): string;
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
  const first = stderr.split('\n').find((line) => line.startsWith('jq: error: '))?.slice('jq: error: '.length) ?? 'it does not compile';
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
  const [{ loadJq }, { readFileSync }] = await Promise.all([import('jq-wasm'), Promise.resolve(process.getBuiltinModule('node:fs'))]);
  const jq = await loadJq({ wasmBinary: readFileSync(wasmPath()) });
  const check = jq.raw(null, `if false then (\n${expression}\n) else empty end`, ['-n']);
  if (check.exitCode === COMPILE_ERROR) {
    throw usageError(`invalid --jq filter: ${compileMessage(check.stderr, expression.split('\n').length)}`);
  }
  return {
    apply(json, terminal) {
      const result = jq.raw(json, expression, ['-c']);
      if (result.exitCode !== 0) {
        const message = result.stderr.trim().replace(/^jq: error \(at [^)]*\): /, '') || `jq exited with status ${result.exitCode}`;
        throw new GymctlError('internal', `--jq filter failed: ${message}`);
      }
      if (result.stdout === '') return '';
      // -c puts each result on one line; a string's line is its JSON text, printed raw.
      return result.stdout
        .split('\n')
        .map((line) => {
          if (!line.startsWith('"')) return `${terminal ? escapeJsonForTerminal(line) : line}\n`;
          const text = JSON.parse(line) as string;
          return `${terminal ? text.split('\n').map(sanitizeLine).join('\n') : text}\n`;
        })
        .join('');
    },
  };
}
