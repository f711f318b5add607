/** Where bin/gymctl.cjs starts every command but --version (dist/boot.cjs): the top-level help from its built text, else the main file. */
import { codeCacheDir } from '../files/folders.js';
import { currentUid, modesApply, tuneV8 } from '../files/system.js';
import { makeFolders, trustedPath } from '../files/trusted-path.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

export interface GuardedStreams {
  stdout: { on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown };
  stderr: { on(event: 'error', listener: () => void): unknown; write(text: string): unknown };
}

/** A reader that stops early (`| head`) is not a failure; a full disk is, in one line; a broken stderr loses the messages, not the exit code. Also the single executable's (src/sea/). */
export function guardStreams(streams: GuardedStreams = process, exit: (code: number) => void = (code) => process.exit(code)): void {
  streams.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // The reader has gone: EPIPE, and on Windows EOF (libuv's ERROR_BROKEN_PIPE).
    if (error.code === 'EPIPE' || error.code === 'EOF') return exit(0);
    streams.stderr.write(`gymctl: cannot write output (${error.code ?? error.message})\n`);
    exit(1);
  });
  streams.stderr.on('error', () => {});
}

/**
 * Turns on Node's compile cache (Node 22.1+) in gymctl's code cache folder, made 0700 when missing, and returns it; never fails.
 * A compiled cache is code: only a folder of the user's own, closed to others and reached through no one else's folder or link, is used.
 */
export function enableCompileCache(
  env: NodeJS.ProcessEnv,
  // Node 22.1 and later (@types/node of Node 20 has no word of it); a test hands in its own.
  enable = (process.getBuiltinModule('node:module') as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache,
): string | undefined {
  // NODE_DISABLE_COMPILE_CACHE turns Node's off: no folder is made for it either.
  if (env.GYMCTL_NO_CODE_CACHE === '1' || env.NODE_DISABLE_COMPILE_CACHE || typeof enable !== 'function') return undefined;
  try {
    const dir = codeCacheDir(env);
    if (!trustedPath(dir)) return undefined;
    makeFolders(dir);
    const stat = fs.lstatSync(dir);
    const uid = currentUid();
    if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (modesApply() && (stat.mode & 0o077) !== 0)) return undefined;
    enable(dir);
    // Node makes a folder of its own in it (one per Node version), with the umask's mode: closed to others, as ours.
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) fs.chmodSync(path.join(dir, entry.name), 0o700);
    return dir;
  } catch {
    return undefined;
  }
}

/** `gymctl`, `gymctl --help`, `gymctl -h` at a pipe or 80 columns: the help the parser printed at build time, as is (others get their width). Also the single executable's. */
export const topLevelHelp = (argv: readonly string[], columns?: number): boolean =>
  (columns === undefined || columns === 80) && (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')));

/** Once nothing is left to run, exits as Node would, without first freeing the whole heap (about 1 ms a run: npm run bench). Also the single executable's. */
export const exitWhenIdle = (): unknown => process.once('beforeExit', () => process.exit());

export function start(argv: string[]): void {
  guardStreams();
  if (topLevelHelp(argv, process.stdout.columns)) {
    try {
      return void process.stdout.write(fs.readFileSync(path.join(__dirname, 'help.txt'), 'utf8'));
    } catch {}
  }
  // With the compile cache, the main file is compiled whole, so that the cache holds all of it (tuneV8 says why).
  const cached = enableCompileCache(process.env) !== undefined;
  if (cached) tuneV8('compile whole');
  const loaded = require(path.join(__dirname, 'gymctl.cjs')) as { main(argv: string[]): Promise<void> };
  if (cached) tuneV8('compile lazily');
  exitWhenIdle();
  void loaded.main(argv);
}
