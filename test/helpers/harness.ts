/**
 * The in-process harness, as gh's iostreams.Test() and its command tests:
 * fake standard streams with switches for TTY and terminal width, a
 * throwaway config folder, and `gymctl(args)` which calls `run(argv, { io,
 * env })` and hands back the exit code and what was written. No process is
 * spawned: a test runs in milliseconds.
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterEach } from 'vitest';
import { tabWait } from '../../src/commands/complete/run.js';
import { run } from '../../src/main.js';
import type { IOStreams } from '../../src/terminal/io.js';
import { Interrupted } from '../../src/failures.js';
import { cleanEnv, tempConfigDir } from './cli.js';
import { waitFor } from './wait.js';

export interface FakeStreamsOptions {
  /** What stdin holds, as text (written as UTF-8) or bytes (ignored when stdinTTY: write keystrokes to `stdin` instead). */
  stdin?: string | Uint8Array;
  stdinTTY?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** The terminal's width and height, as a TTY reports them. */
  columns?: number;
  rows?: number;
}

/** A terminal's stdin: keystrokes are written to it; raw mode switches are recorded. */
export type FakeTerminalInput = PassThrough & { isTTY: true; rawModes: boolean[]; setRawMode(mode: boolean): void };

export interface FakeStreams {
  streams: IOStreams;
  stdout(): string;
  /** stdout's bytes as written (invalid UTF-8 included, which stdout() shows as U+FFFD). */
  stdoutBytes(): Buffer;
  stderr(): string;
  /** The terminal stdin, when stdinTTY was asked for. */
  terminal: FakeTerminalInput | undefined;
}

function sink(isTTY: boolean, size: { columns?: number; rows?: number }): { stream: Writable; text: () => string; bytes: () => Buffer } {
  let text = '';
  const chunks: Buffer[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      text += String(chunk);
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  Object.assign(stream, isTTY ? { isTTY: true, ...size } : {});
  return { stream, text: () => text, bytes: () => Buffer.concat(chunks) };
}

export function fakeStreams(options: FakeStreamsOptions = {}): FakeStreams {
  const size = { ...(options.columns !== undefined ? { columns: options.columns } : {}), ...(options.rows !== undefined ? { rows: options.rows } : {}) };
  const stdout = sink(Boolean(options.stdoutTTY), size);
  const stderr = sink(Boolean(options.stderrTTY), size);
  let terminal: FakeTerminalInput | undefined;
  let stdin: NodeJS.ReadableStream;
  if (options.stdinTTY) {
    const rawModes: boolean[] = [];
    terminal = Object.assign(new PassThrough(), { isTTY: true as const, rawModes, setRawMode: (mode: boolean) => void rawModes.push(mode) });
    stdin = terminal;
  } else {
    stdin = Readable.from(options.stdin === undefined || options.stdin.length === 0 ? [] : [Buffer.from(options.stdin)]);
  }
  return {
    streams: { stdin, stdout: stdout.stream, stderr: stderr.stream } as IOStreams,
    stdout: stdout.text,
    stdoutBytes: stdout.bytes,
    stderr: stderr.text,
    terminal,
  };
}

export interface GymctlOptions extends FakeStreamsOptions {
  /** Variables on top of a clean environment (undefined removes one). */
  env?: Record<string, string | undefined>;
  /** The config folder; a fresh empty one per call when left out. */
  configDir?: string;
  /** Abort it with `new Interrupted()` to act as Ctrl-C. */
  signal?: AbortSignal;
  /** Called once the command has started, with the streams (to type at a prompt, say). */
  started?: (streams: FakeStreams) => void;
}

export interface GymctlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs gymctl in-process and waits for its exit code. */
export async function gymctl(args: readonly string[], options: GymctlOptions = {}): Promise<GymctlResult> {
  const temporary = options.configDir === undefined ? tempConfigDir() : undefined;
  const configDir = options.configDir ?? temporary!.dir;
  const fakes = fakeStreams(options);
  try {
    const running = run(args, { io: fakes.streams, env: cleanEnv(configDir, options.env), ...(options.signal ? { signal: options.signal } : {}) });
    options.started?.(fakes);
    const code = await running;
    return { code, stdout: fakes.stdout(), stderr: fakes.stderr() };
  } finally {
    temporary?.remove();
  }
}

/**
 * Ctrl-C, once `seen` holds of the command's streams (the progress line up,
 * rows on the screen): the `signal` and `started` options of `gymctl`.
 */
export function interruptWhen(what: string, seen: (streams: FakeStreams) => boolean): Pick<GymctlOptions, 'signal' | 'started'> {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    started: (streams) =>
      void waitFor(what, () => seen(streams)).then(
        () => controller.abort(new Interrupted()),
        (error: unknown) => controller.abort(error),
      ),
  };
}

const gymctlsTabWait = tabWait.deadline;
/** A signal that never aborts: Tab waits for every answer. */
const answers = () => new AbortController().signal;

/**
 * When Tab stops waiting for the ids (half a second in gymctl, from
 * src/commands/complete/run.ts), in this test: 'answers', the default,
 * waits for every answer, however slow the machine; 'gymctl' is gymctl's
 * own half second, for a server that never answers; a signal of the
 * test's ends it when the test aborts it (once the server has seen the
 * requests it holds, say). Back to 'answers' after each test.
 */
export function tabDeadline(deadline: 'answers' | 'gymctl' | AbortSignal): void {
  tabWait.deadline = deadline === 'answers' ? answers : deadline === 'gymctl' ? gymctlsTabWait : () => deadline;
}
tabDeadline('answers');
afterEach(() => tabDeadline('answers'));
