/** Processes as Linux's /proc shows them: what processes.ts and no-leftovers.ts read to end a test's processes and find leftovers. */
import { readdirSync, readFileSync } from 'node:fs';

/** The variable that marks every process of one run of the suite with the runner's pid (set by no-leftovers.ts). */
export const RUN_MARK = 'GYMCTL_TEST_RUNNER';

/** The children of `pid` (of any of its threads), from /proc. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** Fields of /proc/PID/stat after the command's name: [state, ppid, pgrp, …]; undefined once the process is gone. */
function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Alive: it exists and is not a zombie waiting to be reaped (which has ended, and cannot be killed). */
export const isAlive = (pid: number) => {
  const state = stat(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
};

/** Every descendant of `pid`, children before theirs. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const queue = childrenOf(pid);
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (found.includes(next)) continue;
    found.push(next);
    queue.push(...childrenOf(next));
  }
  return found;
}

/** The process's command line, for messages. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '?';
  }
}

/**
 * SIGKILL to `pid`, every descendant of it, and its process group when it
 * leads one (a child spawned `detached`, whose members may have left its
 * tree): the whole tree is read first, so that none escapes to init.
 */
export function killTree(pid: number): number[] {
  const tree = [pid, ...descendantsOf(pid)].filter(isAlive);
  const leadsGroup = stat(pid)?.[2] === String(pid);
  for (const member of tree) {
    try {
      process.kill(member, 'SIGKILL');
    } catch {}
  }
  if (leadsGroup) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
  return tree;
}
