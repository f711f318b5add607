/**
 * --jq and a slow reader: jq's worker posts its output in slices and waits
 * while the stream it goes to is full, so gymctl's memory stays where it is
 * however much jq prints. Results stream only with the build's jq-wasm
 * (see build/common.mjs): these tests run the filter with it (run
 * `npm run build` first).
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileJq } from '../../src/output/jq.js';
import { ROOT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const BUILT = path.join(ROOT, 'dist', 'jq-wasm.cjs');
const global = globalThis as { __JQ_MODULE__?: string };

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error('dist/jq-wasm.cjs is missing: run npm run build');
  // jq.ts takes the bundled jq-wasm from here once built (a define of the build): the same one, here.
  global.__JQ_MODULE__ = pathToFileURL(BUILT).href;
});
afterAll(() => {
  delete global.__JQ_MODULE__;
});

/** A stream that says it is full until it is told otherwise. */
const full = () => Object.assign(new EventEmitter(), { writableNeedDrain: true });

describe('--jq waits for its reader', () => {
  it('a reader that takes nothing: jq stops after a few slices, goes on at drain, and Ctrl-C still stops it', async () => {
    const controller = new AbortController();
    const filter = await compileJq('range(1e8)', controller.signal);
    const reader = full();
    let written = 0;
    const printing = filter.print(
      (text) => {
        written += text.length;
      },
      'null',
      false,
      reader,
    );
    printing.catch(() => {});
    await waitFor('jq prints', () => written > 0);
    // jq makes megabytes a second: left unchecked, it would have printed them by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const held = written;
    expect(held).toBeLessThanOrEqual(4 * 16384);
    reader.writableNeedDrain = false;
    reader.emit('drain');
    await waitFor('jq goes on once the reader has room', () => written > held + 16384);
    reader.writableNeedDrain = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Paused again: stopping it (Ctrl-C) ends the wait.
    controller.abort(new Error('interrupted'));
    await expect(printing).rejects.toThrow('interrupted');
    await expect(filter.close()).resolves.toBeUndefined();
  });

  it('a slow reader gets every result, in order', async () => {
    const filter = await compileJq('range(300000)');
    let text = '';
    const reader = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        setImmediate(done);
      },
    });
    try {
      await filter.print((out) => void reader.write(out), 'null', false, reader);
      await new Promise((resolve) => reader.end(resolve));
      const lines = text.split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(300000);
      expect(lines.every((line, i) => line === String(i))).toBe(true);
    } finally {
      await filter.close();
    }
  });
});
