/**
 * The suite's global setup: the run fails if any process it started is
 * still alive at its end. Its teardown runs in vitest's main process
 * before the workers are closed, and looks for two kinds of leftover:
 *
 * - a descendant of the main process, from /proc/<pid>/task/*\/children
 *   read recursively: the workers' children and theirs. vitest's own
 *   processes (its workers, and the esbuild service Vite starts) are not
 *   leftovers, but what a worker started is;
 * - a process whose parent has died (a worker ended, a shell that did not
 *   wait), which init has taken over: found by the variable RUN_MARK that
 *   every process of the run inherits, holding the main process's pid.
 *
 * Each one found is listed, killed, and the run's exit code set to 1.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { commandLine, descendantsOf, isAlive, killTree, RUN_MARK } from './proc.js';

/** vitest's own children: a worker (its fork entry) or Vite's esbuild service. */
const isVitests = (pid: number) => {
  const command = commandLine(pid);
  return /[/\\]vitest[/\\]dist[/\\]workers[/\\]/.test(command) || /esbuild(\.exe)? --service/.test(command);
};

/** The processes marked as this run's (RUN_MARK=runner in their environment). */
function markedWith(runner: number): number[] {
  const mark = `${RUN_MARK}=${runner}`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(mark);
      } catch {
        return false; // gone, or another user's
      }
    });
}

/** The children of `parent` (of any of its threads). */
function childrenOf(parent: number): number[] {
  return descendantsOf(parent).filter((pid) => {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return text.slice(text.lastIndexOf(')') + 2).split(' ')[1] === String(parent);
    } catch {
      return false;
    }
  });
}

/** This run's processes still alive, but for the runner and its own children that are vitest's (a worker's children are not). */
export function leftovers(runner: number): number[] {
  const own = new Set([runner, process.pid, ...childrenOf(runner).filter(isVitests)]);
  const found = new Set([...descendantsOf(runner), ...markedWith(runner)]);
  return [...found].filter((pid) => !own.has(pid) && isAlive(pid));
}

/**
 * A process with an empty command line is one on its way out (Linux empties it as the process's memory goes): a vitest
 * worker ending as the run ends, say. Each such is given a few seconds to be gone before it counts.
 */
async function settled(runner: number): Promise<number[]> {
  const deadline = Date.now() + 5_000;
  let left = leftovers(runner);
  while (left.some((pid) => commandLine(pid) === '') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = leftovers(runner);
  }
  return left;
}

export default function setup(): () => Promise<void> {
  if (process.platform !== 'linux') return async () => {};
  const runner = process.pid;
  process.env[RUN_MARK] = String(runner);
  return async () => {
    const left = await settled(runner);
    if (left.length === 0) return;
    const named = left.map((pid) => `  ${pid}: ${commandLine(pid)}`).join('\n');
    for (const pid of left) killTree(pid);
    process.exitCode = 1;
    throw new Error(`${left.length} process(es) started by the tests were still alive when the run ended (now killed):\n${named}`);
  };
}
