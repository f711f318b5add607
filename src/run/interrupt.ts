/** Ctrl-C, Ctrl-Break and SIGTERM: the signal a run is aborted with, and the race that settles a command at once. */
import { Interrupted, exitCodeOf, type InterruptSignal } from '../failures.js';

/** Settles with the command, or at the interrupt; a command that stops by itself on one (the sandbox server) is left to finish. */
export function untilInterrupted<T>(work: Promise<T>, signal: AbortSignal, handlesInterrupt: () => boolean): Promise<T> {
  const interrupted = new Promise<never>((_, reject) => {
    const onAbort = () => {
      if (!handlesInterrupt()) reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void work.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => {});
  });
  return Promise.race([work, interrupted]);
}

/** Windows' Ctrl-Break (SIGBREAK) would otherwise end the process at once, with no orderly stop. */
export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGBREAK'] as const satisfies readonly InterruptSignal[];

/** The first interrupt aborts the command (files are left whole); a second calls `exit` with the interrupt's exit code. */
export function watchInterrupts(exit: (code: number) => never): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const onSignal = (name: InterruptSignal) => {
    const reason = new Interrupted(name);
    if (controller.signal.aborted) exit(exitCodeOf(reason));
    controller.abort(reason);
  };
  for (const name of INTERRUPT_SIGNALS) process.on(name, onSignal);
  return {
    signal: controller.signal,
    stop() {
      for (const name of INTERRUPT_SIGNALS) process.off(name, onSignal);
    },
  };
}
