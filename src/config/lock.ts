/**
 * The config file's lock: a file beside it, created exclusively, holding
 * the writer's PID and a token of its own. Two gymctl processes writing at
 * once take turns, so neither change is lost. A lock is taken over only
 * when its process is gone (or, for a lock whose owner cannot be read,
 * after a while), by one taker at a time, and only if it is still the
 * stale one that was judged, so a fresh lock of a live process is never
 * removed and two writers are never inside at once. The wait is asynchronous: an
 * interrupt (Ctrl-C, SIGTERM) ends it at once.
 */
import { GymctlError } from '../api/errors.js';
import { sleep } from '../api/transport/retry.js';
import { OddFileError, readRegularFile } from '../files/system.js';

// Built-ins through process.getBuiltinModule: no ESM namespace to build on every start.
const fs = process.getBuiltinModule('node:fs');
/** node:crypto is loaded only when a lock is taken, which reading never does. */
const randomBytes = (size: number) => process.getBuiltinModule('node:crypto').randomBytes(size);

/** How long a writer waits for another gymctl to finish writing. */
export const LOCK_WAIT_MS = 5_000;
/** A lock whose owner cannot be read (empty, garbled) is stale after this long. */
export const LOCK_STALE_MS = 10_000;

/** True when a process with this PID exists (on this machine). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock's content; read as the config file is, so a FIFO or a device in its place is refused at once, never waited on. */
const readLock = (file: string) => {
  try {
    return readRegularFile(file, 4096);
  } catch (error) {
    if (error instanceof OddFileError) throw new GymctlError('internal', `${file} is not a regular file, so not a gymctl lock: remove it`);
    return undefined;
  }
};

const pidOf = (content: string | undefined) => {
  const pid = Number(/^(\d+)\b/.exec(content ?? '')?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
};

export interface Lock {
  release(): void;
}

export type LockError = (code: string, error: unknown) => GymctlError;

/**
 * Takes the lock `file`, waiting for a live holder up to LOCK_WAIT_MS.
 * `fail` turns a file-system error into the failure to report.
 */
export async function acquireLock(file: string, fail: LockError, signal?: AbortSignal, waitMs = LOCK_WAIT_MS): Promise<Lock> {
  const token = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
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
    const content = readLock(file);
    const pid = pidOf(content);
    const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    const stale = content !== undefined && (pid !== undefined ? !isAlive(pid) : age > LOCK_STALE_MS);
    if (stale) {
      takeOver(file, content);
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
 * Removes a stale lock, atomically with respect to every other writer:
 * takers go one at a time, through a second lock (`.break`, created
 * exclusively), and a taker removes the lock only if it still holds what
 * was judged stale. While a taker holds `.break`, nobody else removes the
 * lock (its owner is gone), so nothing can replace it between the check and
 * the removal: a live writer's fresh lock is never removed, and two writers
 * are never inside at once. A `.break` left by a taker that died is
 * removed once its process is gone, or after LOCK_STALE_MS.
 */
export function takeOver(file: string, staleContent: string): void {
  const breaker = `${file}.break`;
  let fd: number | undefined;
  try {
    fd = fs.openSync(breaker, 'wx', 0o600);
    fs.writeSync(fd, `${process.pid}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') removeIfStale(breaker);
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

/** Removes a `.break` whose taker is gone (or, if it cannot be read, that is older than LOCK_STALE_MS). */
function removeIfStale(breaker: string): void {
  const content = readLock(breaker);
  const pid = pidOf(content);
  const age = Date.now() - (fs.statSync(breaker, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
  if (content !== undefined && (pid !== undefined ? !isAlive(pid) : age > LOCK_STALE_MS)) fs.rmSync(breaker, { force: true });
}

/** Removes the lock only if it is still ours. */
function releaseLock(file: string, token: string): void {
  if (readLock(file) === token) fs.rmSync(file, { force: true });
}
