/**
 * The config file's lock: a file beside it, created exclusively, holding
 * the writer's PID and a token of its own. Two gymctl processes writing at
 * once take turns, so neither change is lost. A lock is taken over only
 * when its process is gone (or, for a lock whose owner cannot be read,
 * after a while), and the takeover is checked: a lock is moved aside and
 * removed only if it is still the stale one that was judged, so a fresh
 * lock of a live process is never removed. The wait is asynchronous: an
 * interrupt (Ctrl-C, SIGTERM) ends it at once.
 */
import { GymctlError } from '../api/errors.js';
import { sleep } from '../api/transport/retry.js';
import { OddFileError, readRegularFile } from '../system.js';

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

/** Moves a stale lock aside and removes it, or puts it back if it turned out to be someone's fresh lock. */
function takeOver(file: string, staleContent: string): void {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // gone already: another writer took it over
  }
  if (readLock(aside) === staleContent) {
    fs.rmSync(aside, { force: true });
    return;
  }
  // A live writer's lock: put it back, unless a third one holds the name now.
  try {
    fs.linkSync(aside, file);
  } catch {
    // Its owner checks its token before removing anything, so nothing is lost.
  }
  fs.rmSync(aside, { force: true });
}

/** Removes the lock only if it is still ours. */
function releaseLock(file: string, token: string): void {
  if (readLock(file) === token) fs.rmSync(file, { force: true });
}
