/**
 * The main file's entry (dist/gymctl.cjs, loaded by startup/boot.ts): runs one command with the real process's
 * streams, environment and signals, and sets the exit code that main.ts's `run` returns.
 */
import { run, watchSignals } from './main.js';

export async function main(argv: string[]): Promise<void> {
  const signals = watchSignals();
  const code = await run(argv, { io: process, env: process.env, signal: signals.signal });
  signals.stop();
  // Interrupted: whatever the command was waiting for (stdin, say) must not keep gymctl alive.
  if (signals.signal.aborted) process.exit(code);
  process.exitCode = code;
}
