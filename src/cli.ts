/**
 * The main file's entry (dist/gymctl.cjs, loaded by startup/boot.ts): runs
 * one command with the real process's streams, environment and signals,
 * and sets the exit code that main.ts's `run` returns. Resolves to whether
 * the boot may keep this run's code cache: only after a run that succeeded
 * (so only real commands get one) and changed no V8 flag (its cache would
 * not match the next run's).
 */
import { v8FlagsChanged } from './files/system.js';
import { run, watchSignals } from './main.js';

export async function main(argv: string[]): Promise<boolean> {
  const signals = watchSignals();
  const code = await run(argv, { io: process, env: process.env, signal: signals.signal });
  signals.stop();
  // Interrupted: whatever the command was waiting for (stdin, say) must not keep gymctl alive.
  if (signals.signal.aborted) process.exit(code);
  process.exitCode = code;
  return code === 0 && !v8FlagsChanged();
}
