/**
 * The signals that stop a run, sent to gymctl's listeners in-process: Ctrl-C (SIGINT),
 * SIGTERM, and Ctrl-Break (SIGBREAK, which Node emits on Windows alone).
 * The first aborts the run with the signal's Interrupted reason, a second
 * ends gymctl with the exit code; Ctrl-Break is an interrupt as Ctrl-C is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Interrupted, exitCodeOf, type InterruptSignal } from '../../src/failures.js';
import { INTERRUPT_SIGNALS, watchInterrupts } from '../../src/run/interrupt.js';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/**
 * watchInterrupts with an exit that throws, so that a second signal can be
 * seen, and `send(name)`: the signal as the process gets it, to gymctl's
 * listener alone (the test runner's own listeners, if any, are left out).
 */
function watch() {
  const others = new Map(INTERRUPT_SIGNALS.map((name) => [name, process.listeners(name)]));
  const watcher = watchInterrupts((code) => {
    throw new Exit(code);
  });
  stops.push(() => watcher.stop());
  const send = (name: InterruptSignal) => {
    const added = process.listeners(name).filter((listener) => !others.get(name)!.includes(listener));
    expect(added).toHaveLength(1);
    added[0]!(name);
  };
  return { ...watcher, send };
}

describe('the signals that stop a run', () => {
  it('are Ctrl-C, SIGTERM and Ctrl-Break', () => {
    expect([...INTERRUPT_SIGNALS]).toEqual(['SIGINT', 'SIGTERM', 'SIGBREAK']);
  });

  it.each([
    ['SIGINT', 130, 'interrupted'],
    ['SIGBREAK', 130, 'interrupted'],
    ['SIGTERM', 143, 'terminated'],
  ] as const)('%s aborts the run with its reason (%i), and a second one exits with that code', (name: InterruptSignal, code, message) => {
    const { signal, send } = watch();
    send(name);
    expect(signal.aborted).toBe(true);
    const reason = signal.reason as Interrupted;
    expect(reason).toBeInstanceOf(Interrupted);
    expect(reason.signal).toBe(name);
    expect(reason.message).toBe(message);
    expect(exitCodeOf(reason)).toBe(code);
    expect(() => send(name)).toThrow(new Exit(code));
  });

  it('stop() takes every listener back: nothing is left to end the process later', () => {
    const before = INTERRUPT_SIGNALS.map((name) => process.listenerCount(name));
    const watcher = watchInterrupts(() => {
      throw new Error('never');
    });
    expect(INTERRUPT_SIGNALS.map((name) => process.listenerCount(name))).toEqual(before.map((n) => n + 1));
    watcher.stop();
    expect(INTERRUPT_SIGNALS.map((name) => process.listenerCount(name))).toEqual(before);
    expect(watcher.signal.aborted).toBe(false);
  });
});
