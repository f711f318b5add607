/**
 * when-exit as the build hands it to conf's atomically (build/common.mjs), callbacks run at exit only. The package's own
 * hooks a dozen signals and re-sends them, which gymctl's handler would take for a second Ctrl-C (run/interrupt.ts).
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
