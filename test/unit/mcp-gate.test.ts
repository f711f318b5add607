// gymctl mcp's bound on requests in flight across every tool call (src/mcp/gate.ts), with tasks the test settles.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Gate } from '../../src/mcp/gate.js';

/** A task that runs until the test says. */
function task() {
  let finish!: () => void;
  const state = { started: false };
  const run = () => {
    state.started = true;
    return new Promise<void>((resolve) => {
      finish = resolve;
    });
  };
  return { run, state, finish: () => finish() };
}

const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the gate on requests in flight', () => {
  it('never lets more than its size run, however calls come and go', async () => {
    const gate = new Gate(1);
    const [a, b, c] = [task(), task(), task()];
    const done = [gate.run(a.run), gate.run(b.run)];
    await turns();
    expect([a.state.started, b.state.started]).toEqual([true, false]);
    a.finish();
    await turns();
    expect(b.state.started).toBe(true);
    // b was let in from the queue: a call that comes now waits for it.
    done.push(gate.run(c.run));
    await turns();
    expect(c.state.started).toBe(false);
    b.finish();
    await turns();
    expect(c.state.started).toBe(true);
    c.finish();
    await Promise.all(done);
  });

  it('a call let in after waiting leaves no listener on its signal, so a long session does not pile them up', async () => {
    const gate = new Gate(1);
    const session = new AbortController();
    const first = task();
    const running = gate.run(first.run, session.signal);
    const queued = Array.from({ length: 12 }, () => task());
    const all = queued.map((t) => gate.run(t.run, session.signal));
    await turns();
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(12);
    first.finish();
    for (const t of queued) {
      await turns();
      t.finish();
    }
    await Promise.all([running, ...all]);
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('a call cancelled while it waits leaves the queue, and the next one takes its place', async () => {
    const gate = new Gate(1);
    const [a, b, c] = [task(), task(), task()];
    const cancel = new AbortController();
    const running = gate.run(a.run);
    const cancelled = gate.run(b.run, cancel.signal);
    const next = gate.run(c.run);
    cancel.abort(new Error('cancelled'));
    await expect(cancelled).rejects.toThrow('cancelled');
    a.finish();
    await turns();
    expect([b.state.started, c.state.started]).toEqual([false, true]);
    c.finish();
    await Promise.all([running, next]);
  });

  it('a call cancelled while it waits leaves nothing on its signal, which the caller may keep', async () => {
    const gate = new Gate(1);
    const first = task();
    const running = gate.run(first.run);
    const cancel = new AbortController();
    const cancelled = gate.run(task().run, cancel.signal);
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);
    cancel.abort(new Error('cancelled'));
    await expect(cancelled).rejects.toThrow(/^cancelled$/);
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0);
    first.finish();
    await running;
  });
});
