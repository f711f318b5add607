/**
 * A reader that stops early is a normal stop on Windows too: a write to a pipe
 * whose reader has gone fails with EPIPE on Linux and macOS, and on Windows
 * often with EOF (libuv's name for ERROR_BROKEN_PIPE). guardStreams
 * (src/startup/boot.ts) ends gymctl on both alike: exit 0, nothing said. Here
 * it guards fake streams, with an exit that records instead of ending the
 * test's process; test/e2e/pipes.test.ts has the real EPIPE of a bash pipeline.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { guardStreams, type GuardedStreams } from '../../src/startup/boot.js';
import { cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { fakeStreams } from '../helpers/harness.js';

/** A write error as Node's stream code makes it (`write EOF`, errno, syscall). */
const writeError = (code: string) => Object.assign(new Error(`write ${code}`), { code, syscall: 'write' });

/** A stderr that keeps what is written to it. */
function stderrSink(): GuardedStreams['stderr'] & { text: () => string } {
  let text = '';
  return Object.assign(new EventEmitter(), {
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
    text: () => text,
  });
}

/** What guardStreams does with stdout's `error`: the exit codes asked for and what it said on stderr. */
function onError(code: string): { exits: number[]; said: string } {
  const stdout = new EventEmitter();
  const stderr = stderrSink();
  const exits: number[] = [];
  guardStreams({ stdout, stderr }, (exit) => void exits.push(exit));
  stdout.emit('error', writeError(code));
  return { exits, said: stderr.text() };
}

describe('a write to stdout that fails', () => {
  it.each(['EPIPE', 'EOF'])('because its reader has gone (%s): exit 0, nothing on stderr', (code) => {
    expect(onError(code)).toEqual({ exits: [0], said: '' });
  });

  it.each(['ENOSPC', 'EINVAL', 'EBADF'])('for another reason (%s): exit 1, with the reason in one line', (code) => {
    expect(onError(code)).toEqual({ exits: [1], said: `gymctl: cannot write output (${code})\n` });
  });

  /** A command run in-process whose stdout fails every write with `code`, guarded as the process's is. */
  async function closedEarly(code: string): Promise<{ exits: number[]; stderr: string; attempted: number }> {
    const config = tempConfigDir();
    const fakes = fakeStreams();
    let attempted = 0;
    const stdout = new Writable({
      write(_chunk, _encoding, done) {
        attempted++;
        done(writeError(code));
      },
    });
    const exits: number[] = [];
    guardStreams({ stdout, stderr: fakes.streams.stderr }, (exit) => void exits.push(exit));
    try {
      await run(['academies', '--sandbox', '--format', 'csv'], { io: { ...fakes.streams, stdout }, env: cleanEnv(config.dir) });
      // The stream reports its error on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      return { exits, stderr: fakes.stderr(), attempted };
    } finally {
      config.remove();
    }
  }

  it('a command whose reader goes away with EOF ends as it does on EPIPE: exit 0 at the first failed write, stderr empty', async () => {
    const eof = await closedEarly('EOF');
    expect(eof.attempted).toBeGreaterThan(0);
    expect(eof.exits[0]).toBe(0);
    expect(eof.stderr).toBe('');
    expect(eof).toEqual(await closedEarly('EPIPE'));
  });
});
