/**
 * Ctrl-C, Ctrl-Break and SIGTERM: the signal a run is aborted with, and the race that
 * settles a command as soon as it is aborted, whatever it is waiting for.
 */
import { Interrupted, exitCodeOf, type InterruptSignal } from '../failures.js';

/**
 * Settles with the command, or as soon as the user interrupts, whatever the
 * command is waiting for; a command that stops by itself on an interrupt
 * (its definition says so: the sandbox server) is left to finish.
 */
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

/**
 * The signals that stop a run: Ctrl-C, SIGTERM, and on Windows Ctrl-Break
 * (SIGBREAK, which Node emits there alone and which would otherwise end
 * the process at once, with no orderly stop). Windows has no SIGTERM to
 * send; closing the console window (SIGHUP there) ends gymctl as Windows
 * ends every console program.
 */
export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGBREAK'] as const satisfies readonly InterruptSignal[];

/**
 * Ctrl-C, Ctrl-Break and SIGTERM, for the real process: the first aborts
 * the command with an Interrupted reason (requests in flight are aborted,
 * files are left whole); a second one calls `exit` with the interrupt's
 * exit code (main.ts ends the process with it).
 */
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
