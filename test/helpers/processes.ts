/**
 * Every process a test file starts is ended with it. A setup file of every
 * test file (vitest.config.ts): it wraps node:child_process's spawn,
 * execFile, exec and fork, so that whatever starts a child (a test, a
 * helper, the MCP SDK's transport) has it tracked. A child started during
 * a test (its body or a beforeEach) is ended, with everything it started,
 * when that test ends (passed, failed or timed out); one started in a
 * beforeAll or an afterEach, when the file ends.
 * The suite's global teardown (no-leftovers.ts) then fails the run if any
 * process of it is still alive.
 *
 * spawnSync and its kin are not wrapped: they return only once their child
 * has ended. A child is told to its test by vitest's current test, which
 * tests run side by side (it.concurrent) share: none of this suite's do.
 */
import childProcess, { type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, afterEach, type RunnerTestCase, TestRunner } from 'vitest';
import { killTree } from './proc.js';

/** Whose a child is: the test that was running when it started (its body or a beforeEach), else the file's. */
type Owner = RunnerTestCase | 'file';
const tracked = new Map<ChildProcess, Owner>();

function track(child: ChildProcess): void {
  if (tracked.has(child) || child.pid === undefined) return;
  const test = TestRunner.getCurrentTest();
  // Once a test's body has ended (passed, failed, timed out) its afterEach hooks run: what they start is the file's.
  tracked.set(child, test?.result?.state === 'run' ? test : 'file');
  child.once('exit', () => tracked.delete(child));
}

const wrapped = Symbol.for('gymctl.test.processes');
const module = childProcess as unknown as Record<string, ((...args: unknown[]) => ChildProcess) & { [wrapped]?: true }>;
for (const name of ['spawn', 'execFile', 'exec', 'fork']) {
  const original = module[name]!;
  if (original[wrapped]) continue;
  const wrapper = Object.assign(
    function (this: unknown, ...args: unknown[]) {
      const child = original.apply(this, args);
      track(child);
      return child;
    },
    { [wrapped]: true as const },
  );
  module[name] = wrapper;
}
// `import { spawn } from 'node:child_process'` sees the wrappers too.
syncBuiltinESMExports();

/** Ends the children `owner` started, and their descendants, and waits for each to be reaped. */
async function end(owner: (of: Owner) => boolean): Promise<void> {
  const ending: Array<Promise<unknown>> = [];
  for (const [child, of] of tracked) {
    if (!owner(of)) continue;
    tracked.delete(child);
    // Ended and reaped: its pid may be another process's by now. What it left behind is no-leftovers.ts's to find.
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    killTree(child.pid!);
    ending.push(exited);
  }
  await Promise.all(ending);
}

afterEach(async ({ task }) => {
  await end((of) => of === task);
});
afterAll(async () => {
  await end(() => true);
});
