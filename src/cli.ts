/**
 * The entry point (bin/gymctl.cjs answers `--version` before loading it).
 * The top-level help is answered at once, with nothing else loaded (it was
 * written out at build time, as help.txt beside this file); every other
 * command loads main.ts, whose `run` returns the exit code that is set here.
 */

/** The top-level help, as the parser printed it at build time (80 columns). */
function builtHelp(): string | undefined {
  const columns = process.stdout.columns;
  if (columns !== undefined && columns < 80) return undefined;
  try {
    return process.getBuiltinModule('node:fs').readFileSync(new URL('./help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * A reader that stops early (`| head`) is not a failure; a full disk is, in
 * one line. A broken stderr (`2>/dev/full`, a closed pipe) loses the
 * messages but not the exit code.
 */
function guardStreams(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`gymctl: cannot write output (${error.code ?? error.message})\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => {});
}

export async function main(argv: string[]): Promise<void> {
  guardStreams();
  const [only] = argv;
  if (argv.length === 0 || (argv.length === 1 && (only === '--help' || only === '-h'))) {
    const help = builtHelp();
    if (help !== undefined) {
      process.stdout.write(help);
      return;
    }
  }
  const { run, watchSignals } = await import('./main.js');
  const signals = watchSignals();
  const code = await run(argv, { io: process, env: process.env, signal: signals.signal });
  signals.stop();
  // Interrupted: whatever the command was waiting for (stdin, say) must not keep gymctl alive.
  if (signals.signal.aborted) process.exit(code);
  process.exitCode = code;
}
