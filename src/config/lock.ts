/**
 * The config file's lock: a file created exclusively, holding the writer's PID and a token, so two writers take turns.
 * A stale lock (its process gone, or unreadable for a while) is taken over by one taker at a time, only if still the
 * one judged stale. Ctrl-C ends the wait at once.
 */
import { GymctlError } from '../api/errors.js';
import { sleep } from '../api/transport/retry.js';
import { OddFileError, readRegularFile } from '../files/system.js';

const fs = process.getBuiltinModule('node:fs');

/** How long a writer waits for another gymctl to finish writing. */
export const LOCK_WAIT_MS = 5_000;
/** A lock whose owner cannot be read (empty, garbled) is stale after this long. */
export const LOCK_STALE_MS = 10_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock's content, read as the config file is: a FIFO or device in its place is refused, never waited on. */
const readLock = (file: string) => {
  try {
    return readRegularFile(file, 4096);
  } catch (error) {
    if (error instanceof OddFileError) throw new GymctlError('internal', `${file} is not a regular file, so not a gymctl lock: remove it`);
    return undefined;
  }
};

/** A lock file's content, its holder, and whether it is stale: the holder gone, or, unreadable, older than LOCK_STALE_MS. */
function judge(file: string) {
  const content = readLock(file);
  const parsed = Number(/^(\d+)\b/.exec(content ?? '')?.[1]);
  const pid = Number.isSafeInteger(parsed) && parsed > 0 ? parsed : undefined;
  const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
  return { content, pid, stale: content !== undefined && (pid !== undefined ? !isAlive(pid) : age > LOCK_STALE_MS) };
}

/** Takes the lock `file`, waiting for a live holder up to `waitMs`; `fail` names a file-system error. */
export async function acquireLock(file: string, fail: (code: string, error: unknown) => GymctlError, signal?: AbortSignal, waitMs = LOCK_WAIT_MS): Promise<{ release(): void }> {
  // node:crypto is loaded only here: reading never takes a lock.
  const token = `${process.pid} ${process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex')}\n`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, token);
      fs.closeSync(fd);
      return { release: () => releaseLock(file, token) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      if (fd !== undefined) {
        // Created but not written (a full disk): leave no empty lock behind.
        fs.closeSync(fd);
        fs.rmSync(file, { force: true });
      }
      if (code !== 'EEXIST') throw fail(code, error);
    }
    const { content, pid, stale } = judge(file);
    if (stale) {
      takeOver(file, content!);
      continue;
    }
    if (Date.now() > deadline) {
      const holder = pid !== undefined ? `gymctl process ${pid}` : 'another gymctl';
      throw new GymctlError('internal', `config file ${file.replace(/\.lock$/, '')} is locked by ${holder}; if none is running, remove ${file}`);
    }
    await sleep(5 + Math.random() * 20, signal);
  }
}

/**
 * Removes a stale lock: takers go one at a time through a second lock (`.break`), and remove the lock only if it still
 * holds what was judged stale, so a live writer's fresh lock is never removed. A dead taker's `.break` is judged as a lock.
 */
export function takeOver(file: string, staleContent: string): void {
  const breaker = `${file}.break`;
  let fd: number | undefined;
  try {
    fd = fs.openSync(breaker, 'wx', 0o600);
    fs.writeSync(fd, `${process.pid}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && judge(breaker).stale) fs.rmSync(breaker, { force: true });
    return; // another taker is at it, or the folder cannot be written (the next try says so)
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  try {
    if (readLock(file) === staleContent) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** Removes the lock only if it is still ours. */
function releaseLock(file: string, token: string): void {
  if (readLock(file) === token) fs.rmSync(file, { force: true });
}
