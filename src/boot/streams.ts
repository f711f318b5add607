/**
 * A reader that stops early (`| head`) is not a failure; a full disk is, in
 * one line. A broken stderr (`2>/dev/full`, a closed pipe) loses the
 * messages but not the exit code. Set first by dist/boot.cjs, and by the
 * single executable's start (src/sea/snapshot.ts), which skips it.
 */
export function guardStreams(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`gymctl: cannot write output (${error.code ?? error.message})\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => {});
}
