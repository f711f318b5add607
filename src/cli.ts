/**
 * The entry point. `--version` and the top-level help are answered at once,
 * with nothing else loaded (the help was written out at build time, as
 * help.txt beside this file); every other command loads main.ts.
 */
import { readFileSync } from 'node:fs';
import { VERSION } from './version.js';

/** The top-level help, as the parser printed it at build time (80 columns). */
function builtHelp(): string | undefined {
  const columns = process.stdout.columns;
  if (columns !== undefined && columns < 80) return undefined;
  try {
    return readFileSync(new URL('./help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}

/** A reader that stops early (`| head`) is not a failure; a full disk is, in one line. */
function guardStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`gymctl: cannot write output (${error.code ?? error.message})\n`);
    process.exit(1);
  });
}

export async function main(argv: string[]): Promise<void> {
  guardStdout();
  const [only] = argv;
  if (argv.length === 1 && (only === '--version' || only === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (argv.length === 0 || (argv.length === 1 && (only === '--help' || only === '-h'))) {
    const help = builtHelp();
    if (help !== undefined) {
      process.stdout.write(help);
      return;
    }
  }
  const { run } = await import('./main.js');
  await run(argv);
}
