/**
 * The single executable names its files by where its folder's path led when the run started, and looks at the folder
 * only when it first needs a file of it. A link on that path changed in between (the cache moved to another disk and
 * linked back, while a run waited on stdin) ends the run in one line that says so, as every other refusal of the folder
 * does, not as an unexpected error.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { haveBuilds, place } from './places.js';
import { environment, type Folders } from './run.js';

const ready = process.platform === 'linux' && haveBuilds("the single executable's test of a folder moved under a run");

/** The main thread is waiting in the event loop (epoll_wait, epoll_pwait, epoll_pwait2; arm64's epoll_pwait): the run's start is behind it. */
const inEventLoop = (pid: number) => /^(232|281|441|22) /.test(readFileSync(`/proc/${pid}/syscall`, 'utf8'));

/** `academy - --format table` with the ids on stdin, given once `between` has run; the table is a file of the folder, loaded after the answer. */
async function tableOfStdin(binary: string, where: Folders, cache: string, between: () => void) {
  const child = spawn(binary, ['academy', '-', '--sandbox', '--format', 'table'], { env: environment(where, { XDG_CACHE_HOME: cache }), cwd: where.home });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  await waitFor('the run waits on stdin', () => inEventLoop(child.pid!));
  between();
  child.stdin.end('1\n');
  return { status: await closed, stdout, stderr };
}

describe.skipIf(!ready)('a cache folder whose path changed while a run waited', () => {
  it('is said in one line (exit 1), not as an unexpected error, and the next run uses the folder its path now leads to', async () => {
    const at = place();
    try {
      const [first, second, cache] = ['first', 'second', 'cache'].map((name) => path.join(realpathSync(at.root), name)) as [string, string, string];
      mkdirSync(first, { mode: 0o700 });
      mkdirSync(second, { mode: 0o700 });
      symlinkSync(first, cache);
      // The control: the same run, the link left alone, prints the table from the folder it made.
      const control = await tableOfStdin(at.binary, at.where, cache, () => {});
      expect(control).toMatchObject({ status: 0, stderr: '' });
      expect(control.stdout).toContain('1');
      expect(readdirSync(first)).toEqual(['gymctl-sea']);

      const build = path.basename(at.folder);
      const moved = await tableOfStdin(at.binary, at.where, cache, () => {
        symlinkSync(second, `${cache}.new`);
        renameSync(`${cache}.new`, cache);
      });
      const started = path.join(first, 'gymctl-sea', build);
      const now = path.join(second, 'gymctl-sea', build);
      expect(moved).toEqual({
        status: 1,
        stdout: '',
        stderr: `gymctl: the path of ${started} now leads to ${now} (a link on it changed while gymctl ran): run gymctl again\n`,
      });
      const again = await tableOfStdin(at.binary, at.where, cache, () => {});
      expect(again).toMatchObject({ status: 0, stderr: '', stdout: control.stdout });
    } finally {
      at.remove();
    }
  });
});
