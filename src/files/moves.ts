/**
 * How gymctl moves a file into place: a private file written whole
 * (`writeFileAtomic`), and renames and links that wait while Windows says a
 * file is busy (an antivirus scanning what was just written), each through
 * one seam a test can fail (`moveSeams`).
 */
const fs = process.getBuiltinModule('node:fs');

/** A move of a file or folder (a rename, a hard link) and a wait, as gymctl makes them: Node's, unless a test hands in its own. */
export interface MoveSeams {
  rename(from: string, to: string): void;
  link(from: string, to: string): void;
  /** Blocks for `ms` (a synchronous write has no event loop to wait on). */
  sleep(ms: number): void;
  platform(): NodeJS.Platform;
}

/** The seam a test fails a move through (a scanner that holds a file, a file system without links), instead of patching node:fs. */
export const moveSeams: MoveSeams = {
  rename: (from, to) => fs.renameSync(from, to),
  link: (from, to) => fs.linkSync(from, to),
  sleep: (ms) => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
  platform: () => process.platform,
};

/**
 * What Windows answers, for a moment, while another program holds a file or folder open (an antivirus scanning a
 * file just written, the search indexer, a backup): ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION and
 * ERROR_LOCK_VIOLATION, which Node names EPERM, EACCES and EBUSY.
 */
const BUSY = new Set(['EPERM', 'EACCES', 'EBUSY']);

/**
 * The waits between the tries of a move Windows refuses as busy: 1,050 ms in all, as atomically (conf's writer)
 * tries its synchronous renames again for 1,000 ms, with short waits first, as graceful-fs (npm's) does (0 ms, then
 * 10 ms more each time). Only on Windows: elsewhere these codes say the folder may not be changed, which waiting
 * does not mend, and would only delay the message.
 */
export const BUSY_WAITS_MS: readonly number[] = [10, 20, 40, 80, 150, 250, 500];

/** A move Windows still refused after BUSY_WAITS_MS: the system's code and words, and what is most likely holding it. */
export class StillBusyError extends Error {
  readonly code: string;
  constructor(cause: NodeJS.ErrnoException) {
    super(`${cause.message} (still refused after a second of tries: another program holds it open, most often an antivirus scanning files just written)`, { cause });
    this.code = cause.code ?? 'EBUSY';
  }
}

/**
 * `attempt()`, tried again while Windows says busy (see BUSY), with the waits of BUSY_WAITS_MS, and not once
 * `giveUp()` says no try can succeed (the place is taken); then a StillBusyError. Anything else is thrown at once.
 */
export function whileBusy<T>(attempt: () => T, options: { giveUp?: () => boolean } = {}): T {
  for (let tried = 0; ; tried++) {
    try {
      return attempt();
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (moveSeams.platform() !== 'win32' || code === undefined || !BUSY.has(code) || options.giveUp?.()) throw error;
      if (tried === BUSY_WAITS_MS.length) throw new StillBusyError(error as NodeJS.ErrnoException);
      moveSeams.sleep(BUSY_WAITS_MS[tried]!);
    }
  }
}

/** Renames `from` to `to`, tried again while Windows says busy (whileBusy). */
export const renameWhileBusy = (from: string, to: string, options: { giveUp?: () => boolean } = {}): void => whileBusy(() => moveSeams.rename(from, to), options);

/**
 * What link() answers where the file system has no hard links: EPERM (Linux's vfat, and SMB shares; Windows' access
 * denied), ENOTSUP (Windows' ReFS and SMB, Linux's EOPNOTSUPP), ENOSYS (FUSE file systems without link), EXDEV, and
 * EISDIR (Windows' FAT32 and exFAT, whose ERROR_INVALID_FUNCTION libuv names so).
 */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EISDIR']);

/** Removes a file gymctl made, as far as it can: a scanner holding it on Windows is given a moment, then the file is left, a harmless `.tmp` (the code cache prunes its own), rather than hide what failed before. */
function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true, maxRetries: 3, retryDelay: 20 });
  } catch {}
}

/** A file's size; undefined when it cannot be looked at (gone again), which its reader will say. */
function sizeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).size;
  } catch {
    return undefined;
  }
}

/**
 * Where links cannot be made: `file` created exclusively (0600) and written, so that, as with a link, a `file`
 * someone made first wins. The loser waits (BUSY_WAITS_MS) for the winner's bytes, written just after it made the
 * file, and leaves its reading to its caller. A file this process made and could not fill is removed.
 */
function createExclusive(file: string, data: string | Uint8Array): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    for (const wait of BUSY_WAITS_MS) {
      if (sizeOf(file) !== 0) return;
      moveSeams.sleep(wait);
    }
    return;
  }
  try {
    fs.writeFileSync(fd, data);
  } catch (error) {
    fs.closeSync(fd);
    removeQuietly(file);
    throw error;
  }
  fs.closeSync(fd);
}

/**
 * Writes `data` to a new file beside `file` (0600, created exclusively),
 * then moves it into place: renamed over `file`, or, with `keepExisting`,
 * linked, so that a `file` someone made first wins. A reader sees a whole
 * file or none, and the temporary file never stays behind. On Windows a
 * rename refused while another program holds a file (an antivirus) is
 * tried again for about a second (whileBusy). Where the file system has
 * no hard links (FAT32, exFAT, some SMB shares), `keepExisting` creates
 * `file` exclusively instead (createExclusive).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: { keepExisting?: boolean } = {}): void {
  // Created exclusively, so the name need only be unlikely to be taken (and no crypto module is loaded for it).
  const temporary = `${file}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
    if (!options.keepExisting) {
      renameWhileBusy(temporary, file);
      return;
    }
    try {
      moveSeams.link(temporary, file);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === 'EEXIST') return;
      if (code === undefined || !NO_LINKS.has(code)) throw error;
      createExclusive(file, data);
    }
  } finally {
    removeQuietly(temporary);
  }
}
