/**
 * Where bin/gymctl.cjs starts every command but --version (dist/boot.cjs).
 * The top-level help is answered at once (written out at build time, as
 * help.txt); every other command loads the main file, dist/gymctl.cjs,
 * through a V8 code cache (boot/code-cache.ts), runs it, and then writes
 * the cache when there was none that V8 took.
 */
import { topLevelHelp } from './argv.js';
import { type CacheCommands, codeCacheFor, loadWithCodeCache, stdinBatch } from './boot/code-cache.js';
import { setV8Flags, v8FlagsChanged, v8FlagsCompiledWith, YOUNG_GENERATION_BOUND } from './files/system.js';

declare const __GYMCTL_BUILD__: string;
/** The read commands, and those that take ids, as the build derived them from the declared operations. */
declare const __GYMCTL_CACHE_COMMANDS__: CacheCommands;

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
 * A reader that stops early (`| head`) is not a failure; a full disk is, in
 * one line. A broken stderr (`2>/dev/full`, a closed pipe) loses the
 * messages but not the exit code. Set first here, and by the single
 * executable's start (src/sea/snapshot.ts), which skips this file's start().
 */
export function guardStreams(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`gymctl: cannot write output (${error.code ?? error.message})\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => {});
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
  // A batch from stdin is long as a rule: its young generation is bounded from the start (see fetchAll), before
  // the main file is compiled, so that its code cache (one of its own) is made and taken under the same flags.
  if (stdinBatch(argv, __GYMCTL_CACHE_COMMANDS__)) setV8Flags(YOUNG_GENERATION_BOUND);
  v8FlagsCompiledWith();
  const loaded = loadWithCodeCache(path.join(__dirname, 'gymctl.cjs'), codeCacheFor(process.env, __GYMCTL_BUILD__, argv, __GYMCTL_CACHE_COMMANDS__));
  void (loaded.exports as { main(argv: string[]): Promise<void> }).main(argv).then(() => {
    // A run that changed V8's flags (--jq on Node 20 and 22) would write a cache the next run rejects.
    if (!v8FlagsChanged()) loaded.save();
  });
}
