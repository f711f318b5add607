/**
 * Where bin/gymctl.cjs starts every command but --version (dist/boot.cjs).
 * The top-level help is answered at once (written out at build time, as
 * help.txt); every other command loads the main file, dist/gymctl.cjs,
 * through a V8 code cache (code-cache.ts), runs it, and then writes the
 * cache when there was none that V8 took and the run asks for one.
 */
import { topLevelHelp } from '../argv.js';
import { codeCacheFor, loadWithCodeCache } from './code-cache.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** The top-level help, as the parser printed it at build time (80 columns): for a pipe, or a terminal 80 columns wide; any other terminal gets help at its own width, as every command's help is. */
function builtHelp(): string | undefined {
  const columns = process.stdout.columns;
  if (columns !== undefined && columns !== 80) return undefined;
  try {
    return fs.readFileSync(path.join(__dirname, 'help.txt'), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The codes a write to stdout fails with when its reader has gone (`| head`, `| Select-Object -First 1`): EPIPE, and
 * on Windows also EOF, which libuv reports for a pipe whose reading end is closed (ERROR_BROKEN_PIPE; ERROR_NO_DATA
 * is EPIPE). Anything else (a full disk, EINVAL, EBADF) is a failure: the output reached no one.
 */
export const READER_GONE: ReadonlySet<string> = new Set(['EPIPE', 'EOF']);

/** The standard streams as guardStreams uses them: the process's, or a test's. */
export interface GuardedStreams {
  stdout: { on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown };
  stderr: { on(event: 'error', listener: () => void): unknown; write(text: string): unknown };
}

/** A reader that stops early (`| head`) is not a failure; a full disk is, in one line; a broken stderr loses the messages, not the exit code. Also the single executable's (src/sea/). */
export function guardStreams(streams: GuardedStreams = process, exit: (code: number) => void = (code) => process.exit(code)): void {
  streams.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== undefined && READER_GONE.has(error.code)) return exit(0);
    streams.stderr.write(`gymctl: cannot write output (${error.code ?? error.message})\n`);
    exit(1);
  });
  streams.stderr.on('error', () => {});
}

export function start(argv: string[]): void {
  guardStreams();
  if (topLevelHelp(argv)) {
    const help = builtHelp();
    if (help !== undefined) {
      process.stdout.write(help);
      return;
    }
  }
  const loaded = loadWithCodeCache(path.join(__dirname, 'gymctl.cjs'), (source) => codeCacheFor(process.env, { source }, argv));
  // The main file says whether this run's compiled code is worth keeping: a run that succeeded, under the V8 flags it started with.
  void (loaded.exports as { main(argv: string[]): Promise<boolean> }).main(argv).then((keep) => {
    if (keep) loaded.save();
  });
}
