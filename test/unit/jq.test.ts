/**
 * --jq's filter (src/output/jq.ts) called directly: each result a line, strings raw, what a terminal is handed, a
 * filter that does not compile or that fails said plainly, and a filter closed.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/failures.js';
import { compileJq } from '../../src/output/jq.js';
import { refused } from '../helpers/jq.js';
import { escapeJsonForTerminal, sanitizeLine } from '../../src/output/sanitize.js';

/** What `expression` prints for `json`, and its failure (kind and message) if it fails. */
async function printed(expression: string, json: string, terminal = false): Promise<{ out: string; failure?: string }> {
  const filter = await compileJq(expression);
  let out = '';
  try {
    await filter.print((text) => (out += text), json, terminal);
    return { out };
  } catch (error) {
    expect(error).toMatchObject({ kind: 'internal' });
    return { out, failure: (error as Error).message };
  } finally {
    await filter.close();
  }
}

describe('--jq results', () => {
  it('each result a line: strings raw, anything else compact JSON; nothing for no result', async () => {
    expect(await printed('.[]', '["a", 1, {"b": [2, 3]}, null, "two\\nlines", ""]')).toEqual({ out: 'a\n1\n{"b":[2,3]}\nnull\ntwo\nlines\n\n' });
    expect(await printed('empty', '1')).toEqual({ out: '' });
    expect(await printed('.', '1 2 3')).toEqual({ out: '1\n2\n3\n' });
  });

  it('on a terminal, strings and JSON are made safe to show; in a pipe, they are as jq gave them', async () => {
    const json = JSON.stringify(['red \u001b[31m text', { a: 'right\u202eto left' }, 'line\u0007\nnext']);
    const pipe = await printed('.[]', json);
    expect(pipe.out).toBe(`red \u001b[31m text\n${JSON.stringify({ a: 'right\u202eto left' })}\nline\u0007\nnext\n`);
    const terminal = await printed('.[]', json, true);
    expect(terminal.out).toBe(
      `${sanitizeLine('red \u001b[31m text')}\n${escapeJsonForTerminal(JSON.stringify({ a: 'right\u202eto left' }))}\n${sanitizeLine('line\u0007')}\nnext\n`,
    );
    expect(terminal.out).not.toBe(pipe.out);
  });
});

describe('a filter that fails on the data', () => {
  it('says jq’s message, without jq’s prefix', async () => {
    expect(await printed('.a', '"s"')).toEqual({ out: '', failure: '--jq filter failed: Cannot index string with string ("a")' });
    expect(await printed('error("x")', '1')).toEqual({ out: '', failure: '--jq filter failed: x' });
  });

  it('an error on an earlier input shows only in jq’s messages, and still fails, after the later results', async () => {
    expect(await printed('if . == 1 then error("one") else . end', '1 2')).toEqual({ out: '2\n', failure: '--jq filter failed: one' });
  });

  it('a filter that stops jq with a status and no error line says the status', async () => {
    expect(await printed('"bye\\n" | halt_error(5)', '1')).toEqual({ out: '', failure: '--jq filter failed: jq exited with status 5' });
  });

  it('an error that is not a string is said as jq says it, whatever it holds', async () => {
    expect(await printed('error', 'null')).toEqual({ out: '', failure: '--jq filter failed: jq: error (at /dev/stdin:0) (not a string): null' });
    expect(await printed('error({log: "jq: error (at <stdin>:3): oops"})', 'null')).toEqual({
      out: '',
      failure: '--jq filter failed: jq: error (at /dev/stdin:0) (not a string): {"log":"jq: error (at <stdin>:3): oops"}',
    });
  });

  it('an error with an empty message says the status jq exited with', async () => {
    expect(await printed('error("")', '1')).toEqual({ out: '', failure: '--jq filter failed: jq exited with status 5' });
  });
});

describe('a filter that does not compile', () => {
  it('is a usage error with jq’s first reason, where in the filter, and what jq calls INVALID_CHARACTER shown', async () => {
    expect(await refused('.name |||')).toBe("invalid --jq filter: syntax error, unexpected '|' at line 1, column 8");
    expect(await refused('$nowhere')).toBe('invalid --jq filter: $nowhere is not defined at line 1, column 1');
    expect(await refused('.a |\n  ` ')).toBe("invalid --jq filter: syntax error, unexpected '`' at line 2, column 3");
  });

  it('the line and column of a filter of many lines and long lines', async () => {
    expect(await refused('\n\n\n\n\n\n\n\n\n\n.name.first |||')).toBe("invalid --jq filter: syntax error, unexpected '|' at line 11, column 14");
    expect(await refused('.a |\n\n\n\n\n\n\n\n\n  ` ')).toBe("invalid --jq filter: syntax error, unexpected '`' at line 10, column 3");
  });

  it('the place and the character are the filter’s own when characters of several bytes come before (jq counts bytes)', async () => {
    expect(await refused('"é" | ` abc')).toBe("invalid --jq filter: syntax error, unexpected '`' at line 1, column 7");
    expect(await refused('.a |\n  "€€€" | `')).toBe("invalid --jq filter: syntax error, unexpected '`' at line 2, column 11");
    expect(await refused('"😀" | é')).toBe("invalid --jq filter: syntax error, unexpected 'é' at line 1, column 7");
  });

  it('what jq expects where the filter stops, said as such; "expecting end of file" left out', async () => {
    expect(await refused('{a')).toBe("invalid --jq filter: syntax error, expecting '}' at the end of the filter");
    expect(await refused('.[]?//')).toBe('invalid --jq filter: syntax error, unexpected ?// at line 1, column 4');
    expect(await refused('@')).toBe("invalid --jq filter: syntax error, unexpected '@' at line 1, column 1");
  });

  it('a reason with no place in the filter is said alone', async () => {
    expect(await refused('include "x"; .')).toBe('invalid --jq filter: module not found: x');
  });

  it('a module not found is named as typed, even when its name holds jq’s own words', async () => {
    expect(await refused('include "INVALID_CHARACTER"; .')).toBe('invalid --jq filter: module not found: INVALID_CHARACTER');
    expect(await refused('include "x unexpected end of file"; .')).toBe('invalid --jq filter: module not found: x unexpected end of file');
    expect(await refused('include "m at <top-level>, line 1, column 2 of it"; .')).toBe('invalid --jq filter: module not found: m at <top-level>, line 1, column 2 of it');
  });

  it('a filter that stops too soon says something is missing at its end, once', async () => {
    expect(await refused('map(')).toBe('invalid --jq filter: syntax error, something is missing at the end of the filter');
    expect(await refused('if . then 1')).toBe('invalid --jq filter: syntax error, something is missing at the end of the filter');
  });
});

describe('a filter closed', () => {
  it('prints no more: what waits on it fails, and closing again settles', async () => {
    const filter = await compileJq('.');
    await filter.close();
    await expect(filter.print(() => {}, '1', false)).rejects.toThrow('--jq: jq was stopped');
    await expect(filter.close()).resolves.toBeUndefined();
  });
});

describe('Ctrl-C before jq started', () => {
  it('a signal already aborted stops jq: printing fails with the interrupt', async () => {
    const filter = await compileJq('.', AbortSignal.abort(new Interrupted('SIGINT')));
    await expect(filter.print(() => {}, '1', false)).rejects.toBeInstanceOf(Interrupted);
    await filter.close();
  });
});

describe('jq-wasm named by the build', () => {
  const global = globalThis as { __JQ_WASM__?: string; __JQ_MODULE__?: string };
  afterEach(() => {
    delete global.__JQ_WASM__;
    delete global.__JQ_MODULE__;
  });

  it('its WebAssembly and module are read from where the build put them, not from node_modules', async () => {
    global.__JQ_WASM__ = pathToFileURL(path.join(tmpdir(), 'gymctl-no-such-jq.wasm')).href;
    await expect(compileJq('.')).rejects.toThrow(/ENOENT.*gymctl-no-such-jq\.wasm/);
    delete global.__JQ_WASM__;
    global.__JQ_MODULE__ = pathToFileURL(path.join(tmpdir(), 'gymctl-no-such-jq-wasm.cjs')).href;
    // The worker's failure to start shows when the filter runs.
    const filter = await compileJq('.');
    await expect(filter.print(() => {}, '1', false)).rejects.toThrow(/ENOENT.*gymctl-no-such-jq-wasm\.cjs/);
    await filter.close();
  });
});

describe('results as jq makes them (the build’s jq-wasm, which hands its output over as it comes)', () => {
  const global = globalThis as { __JQ_MODULE__?: string };
  let dir: string;
  afterEach(() => {
    delete global.__JQ_MODULE__;
    rmSync(dir, { recursive: true, force: true });
  });
  /** jq-wasm as the build changes it (build/common.mjs: jqOutputAsItComes), in a folder of the test's own. */
  function streamingJq(): void {
    dir = mkdtempSync(path.join(tmpdir(), 'gymctl-jq-'));
    const source = readFileSync(createRequire(import.meta.url).resolve('jq-wasm'), 'utf8');
    const sink = 'if (byte != null) stdoutSink.push(byte);';
    expect(source).toContain(sink);
    const file = path.join(dir, 'jq-wasm.cjs');
    writeFileSync(file, source.replace(sink, 'if (byte != null) { if (globalThis.__gymctlJqOutput) globalThis.__gymctlJqOutput(byte); else stdoutSink.push(byte); }'));
    global.__JQ_MODULE__ = pathToFileURL(file).href;
  }

  it('come in whole lines, in order, across slices of 16 KiB, characters of several bytes kept whole', async () => {
    streamingJq();
    const filter = await compileJq('range(3000) | "é€\\(.)"');
    const calls: string[] = [];
    await filter.print((text) => calls.push(text), 'null', false);
    await filter.close();
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) expect(call).toMatch(/\n$/);
    expect(calls.join('')).toBe(Array.from({ length: 3000 }, (_, i) => `é€${i}\n`).join(''));
  });

  it('a reader that is full is waited for, and jq goes on once it drains', async () => {
    streamingJq();
    const filter = await compileJq('range(20000)');
    const reader = Object.assign(new EventEmitter(), { writableNeedDrain: true });
    let out = '';
    const printing = filter.print((text) => (out += text), 'null', false, reader);
    // What jq makes while nothing is written stops growing, at a few slices of 16 KiB.
    let seen = -1;
    while (out === '' || out.length !== seen) {
      seen = out.length;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(out.length).toBeGreaterThan(0);
    expect(out.length).toBeLessThanOrEqual(6 * 16384);
    reader.writableNeedDrain = false;
    reader.emit('drain');
    await printing;
    await filter.close();
    expect(out).toBe(Array.from({ length: 20000 }, (_, i) => `${i}\n`).join(''));
  });
});
