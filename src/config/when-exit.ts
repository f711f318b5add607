/**
 * when-exit, as the build hands it to conf's atomically (build/common.mjs):
 * the same `whenExit(callback)`, which returns a function that takes the
 * callback back, its callbacks run once when the process exits (atomically
 * removes its temporary files then). The package also hooks SIGINT, SIGTERM
 * and a dozen other signals on the first write, and on one sends it to the
 * process again after its callbacks: gymctl's own handler then takes the
 * echo for a second Ctrl-C and ends at once, skipping its orderly shutdown.
 * Signals are gymctl's (run/interrupt.ts), and every run ends in an exit.
 */
const callbacks = new Set<() => void>();
let hooked = false;

export default function whenExit(callback: () => void): () => void {
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const run of callbacks) run();
    });
  }
  callbacks.add(callback);
  return () => void callbacks.delete(callback);
}
