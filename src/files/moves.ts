/** A private file written whole, and moves that wait while Windows says a file is busy (an antivirus scanning it). */
const fs = process.getBuiltinModule('node:fs');

/** The seam a test fails a move through, instead of patching node:fs. */
export const moveSeams = {
  rename: (from: string, to: string): void => fs.renameSync(from, to),
  link: (from: string, to: string): void => fs.linkSync(from, to),
  /** Blocks for `ms` (a synchronous write has no event loop to wait on). */
  sleep: (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
  platform: (): NodeJS.Platform => process.platform,
};

export type MoveSeams = typeof moveSeams;

/** What Windows answers for a moment while another program (an antivirus, the indexer) holds a file open. */
const BUSY = new Set(['EPERM', 'EACCES', 'EBUSY']);

/** About a second in all, as atomically and graceful-fs wait; only on Windows, as elsewhere these codes are final. */
export const BUSY_WAITS_MS: readonly number[] = [10, 20, 40, 80, 150, 250, 500];

export class StillBusyError extends Error {
  readonly code: string;
  constructor(cause: NodeJS.ErrnoException) {
    super(`${cause.message} (still refused after a second of tries: another program holds it open, most often an antivirus scanning files just written)`, { cause });
    this.code = cause.code ?? 'EBUSY';
  }
}

/** `attempt()`, tried again while Windows says busy unless `giveUp()`; then a StillBusyError. */
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

export const renameWhileBusy = (from: string, to: string, options: { giveUp?: () => boolean } = {}): void => whileBusy(() => moveSeams.rename(from, to), options);

/** What link() answers on a file system without hard links (vfat, SMB, ReFS, FUSE; EISDIR is FAT32's and exFAT's, by libuv). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EISDIR']);

/** Removes a file gymctl made, as far as it can: a harmless `.tmp` left is better than hiding what failed before. */
function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true, maxRetries: 3, retryDelay: 20 });
  } catch {}
}

function sizeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).size;
  } catch {
    return undefined;
  }
}

/** Without links: `file` created exclusively, so the first maker wins; the loser waits for the winner's bytes. */
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
 * Writes a private (0600) file beside `file` and renames it over, so a reader sees a whole file or none; with
 * `keepExisting`, links it instead, so a `file` someone made first wins.
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
