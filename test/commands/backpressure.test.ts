/**
 * A batch waits for its reader: while stdout is full (write() returned
 * false), no request starts; at 'drain' the batch goes on. So a reader
 * slower than the server (a full pipe, a paused pager) holds gymctl's
 * memory where it is, however many ids there are.
 */
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/failures.js';
import { run } from '../../src/main.js';
import { createEmitter } from '../../src/output/emit.js';
import type { JqFilter } from '../../src/output/jq.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import type { IOStreams } from '../../src/terminal/io.js';
import { waitFor } from '../helpers/wait.js';
import { useSandboxAndConfig } from '../helpers/world.js';
import { cleanEnv } from '../helpers/cli.js';

const world = useSandboxAndConfig();

/** A stdout that takes nothing until released: full from its first write, and 'drain' comes only with release(). */
function stalledStdout() {
  let text = '';
  let stalled = true;
  const held: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: 1,
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      text += String(chunk);
      if (stalled) held.push(done);
      else done();
    },
  });
  return {
    stream,
    text: () => text,
    release() {
      stalled = false;
      for (const done of held.splice(0)) done();
    },
  };
}

const CONCURRENCY = 4;
/** Ids 1 to 4 over and over: each line's id says the order is kept. */
const IDS = Array.from({ length: 1000 }, (_, i) => (i % 4) + 1);

/** Runs `academy - …` with the ids on stdin and a stalled stdout. */
function batch(extra: string[], signal?: AbortSignal) {
  const stdout = stalledStdout();
  let stderr = '';
  const streams = {
    stdin: Readable.from([Buffer.from(IDS.join('\n'))]),
    stdout: stdout.stream,
    stderr: new Writable({
      write(chunk: Buffer, _encoding, done) {
        stderr += chunk.toString();
        done();
      },
    }),
  } as IOStreams;
  const code = run(['academy', '-', '--concurrency', String(CONCURRENCY), ...extra], {
    io: streams,
    env: cleanEnv(world.config.dir, { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY }),
    ...(signal ? { signal } : {}),
  });
  return { stdout, code, stderr: () => stderr };
}

/**
 * The requests the server has seen while stdout is full: from the moment it filled, and for a moment after it, in
 * which a batch that did not wait would send hundreds (a slow machine sends fewer, never more).
 */
async function pausedAt(stdout: ReturnType<typeof stalledStdout>): Promise<number> {
  await waitFor('stdout is full', () => stdout.stream.writableNeedDrain);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return world.requests.length;
}

describe('a batch waits for a reader that does not read', () => {
  for (const [name, extra, line] of [
    ['ndjson', ['--format', 'ndjson'], (text: string) => (JSON.parse(text) as { id: number }).id],
    ['--jq', ['--jq', '.id'], Number],
  ] as const) {
    it(`${name}: no request starts while stdout is full, and the batch goes on at 'drain', in order`, async () => {
      const { stdout, code, stderr } = batch([...extra]);
      const seen = await pausedAt(stdout);
      // At most the requests in flight when it filled, and those started before its first write (one turn of the event loop).
      expect(seen).toBeLessThanOrEqual(3 * CONCURRENCY);
      stdout.release();
      expect(await code, stderr()).toBe(0);
      expect(world.requests).toHaveLength(IDS.length);
      const lines = stdout.text().split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map(line)).toEqual(IDS);
    });
  }

  for (const [signal, status] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} stops a batch paused for its reader at once (exit ${status})`, async () => {
      const controller = new AbortController();
      const { stdout, code } = batch(['--format', 'ndjson'], controller.signal);
      expect(await pausedAt(stdout)).toBeLessThanOrEqual(3 * CONCURRENCY);
      controller.abort(new Interrupted(signal));
      expect(await code).toBe(status);
      // Stopped: nothing more was asked for than those in flight.
      expect(world.requests.length).toBeLessThanOrEqual(3 * CONCURRENCY);
    });
  }
});

describe('--jq behind', () => {
  it('with a slice being filtered and one waiting, the emitter says it has no room until jq is done with one', async () => {
    const printing: Array<() => void> = [];
    const jq: JqFilter = {
      print: () => new Promise<void>((resolve) => printing.push(resolve)),
      close: async () => {},
    };
    const io = { out: () => {}, err: () => {}, stdoutIsTTY: false, stdout: new Writable({ write: (_c, _e, done) => done() }) };
    const emitter = await createEmitter(io as never, { format: 'json', headers: true, jq }, {} as never, 'many');
    const slice = async (id: number) => {
      emitter.write({ data: {} as never, raw: `{"id":${id}}` });
      // A slice goes to jq once the event loop is free.
      await new Promise((resolve) => setImmediate(resolve));
    };
    await slice(1);
    await waitFor('jq runs the first slice', () => printing.length === 1);
    expect(emitter.room!()).toBeUndefined();
    await slice(2);
    const room = emitter.room!();
    expect(room).toBeInstanceOf(Promise);
    let roomy = false;
    void room!.then(() => (roomy = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(roomy).toBe(false);
    printing.shift()!();
    await waitFor('room once jq is done with a slice', () => roomy);
    expect(emitter.room!()).toBeUndefined();
    await waitFor('jq runs the second slice', () => printing.length === 1);
    printing.shift()!();
    await emitter.end(false);
  });
});
