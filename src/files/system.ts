/**
 * What gymctl asks of the operating system in more than one place: who the
 * user is, where their home is, and how a private file is written whole;
 * and how a whole number typed by a user is read.
 */
const fs = process.getBuiltinModule('node:fs');

/** The user's uid; undefined on Windows, which has none to compare. */
export const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * Whether a file's mode bits say who may open it: not on Windows, where
 * Node makes them up from the read-only flag (a folder is always 0777,
 * a file 0666) and the folder's access list decides. There, gymctl's files
 * are protected by the user's profile folder, which only the user (and
 * the system's administrators) may open; no mode is checked or set.
 */
export const modesApply = (platform: NodeJS.Platform = process.platform): boolean => platform !== 'win32';

/**
 * A Windows path that names one place whatever the current drive: on a drive (a letter, a colon and a slash) or on a
 * share (two slashes and a server). path.win32 takes one that starts with a single slash, such as `/home/jose`, as
 * absolute too, but it leads to whichever drive is current.
 */
export const isWindowsFullPath = (value: string): boolean => /^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/])/.test(value);

/** The home folder cannot be found: said in one line (the boot, the main file and the single executable each say it so), never with a stack. */
export class HomeFolderError extends Error {
  override readonly name = 'HomeFolderError';
}

/**
 * The home folder, by one rule for the config and cache folders (folders.ts) and doctor:
 * - on Windows, %USERPROFILE%, as Windows programs read it (Node's os.homedir too); with none, the system's answer
 *   for the account. One that is not an absolute path (`jose`, `C:`) is refused: files would land under whichever
 *   folder is current. HOME is not read there: Git Bash, MSYS2 and Cygwin set it, at times to a POSIX path such as
 *   `/home/jose`, which Windows would read on the current drive.
 * - elsewhere, $HOME, else the system's answer (the user database).
 * The system's answer can fail (Node's os.homedir refuses a USERPROFILE of 260 characters or more with ENOBUFS; a
 * uid with no entry in the user database has none): a HomeFolderError says so and what to set.
 */
export function homeDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const windows = platform === 'win32';
  const given = windows ? env.USERPROFILE : env.HOME;
  if (given && windows && !process.getBuiltinModule('node:path').win32.isAbsolute(given))
    throw new HomeFolderError(`USERPROFILE is "${given}", not an absolute path such as C:\\Users\\you: set it to your profile folder, or set GYMCTL_CONFIG_DIR and LOCALAPPDATA`);
  if (given) return given;
  try {
    return process.getBuiltinModule('node:os').homedir();
  } catch (error) {
    const { info, code, message } = error as NodeJS.ErrnoException & { info?: { code?: string } };
    const fix = windows
      ? 'set USERPROFILE to your profile folder (C:\\Users\\you), or set GYMCTL_CONFIG_DIR and LOCALAPPDATA'
      : 'set HOME, or set GYMCTL_CONFIG_DIR and XDG_CACHE_HOME';
    throw new HomeFolderError(`cannot find your home folder (${info?.code ?? code ?? message}): ${fix}`);
  }
}

/**
 * What V8 is tuned for at run time: the one place gymctl changes V8's flags
 * (Node warns that flags changed after start-up may behave unpredictably;
 * these two tune only the young generation's growth and WebAssembly's
 * compiler). A run that sets one writes no code cache (cli.ts), as the
 * cache would not match the next run's flags. Measured with npm run bench:
 * - `long batch`, for a batch of more than 1,000 ids: V8 (Node 24 above all)
 *   grows its young generation with the allocation rate, to about 200 MB at
 *   100,000 ids; growing it no further than its start keeps the peak near
 *   100 MB on every Node, flat however long the batch. Loading node:v8
 *   costs a short run about 2 ms, so a short batch goes without.
 * - `jq`, on Node 20 and 22, which compile jq's 900 KB of WebAssembly with
 *   the optimising compiler up front, longer than a call runs: baseline
 *   code only saves about 40 ms a --jq call. Node 24 and later tier up
 *   lazily already.
 */
const V8_TUNINGS = { 'long batch': '--semi-space-growth-factor=1', jq: '--liftoff-only' } as const;
const tuned = new Set<keyof typeof V8_TUNINGS>();

export function tuneV8(tuning: keyof typeof V8_TUNINGS): void {
  if (tuned.has(tuning)) return;
  process.getBuiltinModule('node:v8').setFlagsFromString(V8_TUNINGS[tuning]);
  tuned.add(tuning);
}

/** Whether this run changed V8's flags. */
export const v8FlagsChanged = (): boolean => tuned.size > 0;

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

/**
 * A whole number as a user types it, from `min` to `max`: decimal digits
 * only (no sign, point, exponent, spaces or leading zero); undefined when
 * it is not one, for the caller to say what it expected.
 */
export function parseWholeNumber(text: string, min: number, max: number): number | undefined {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

/** Thrown by readRegularFile for what is there but is no regular file, or is larger than allowed. */
export class OddFileError extends Error {
  constructor(
    readonly file: string,
    readonly why: 'not a regular file' | 'too large',
  ) {
    super(`${file} is ${why === 'too large' ? 'larger than expected' : 'not a regular file'}`);
  }
}

/**
 * A small file's text, read as the config file is: opened without
 * blocking (a FIFO cannot hang gymctl), only a regular file (a link to one
 * is followed; a link to /dev/zero is refused), at most `maxBytes`;
 * undefined when there is none. `inspect` sees the file's stat before it
 * is read (the config store warns about loose permissions from it).
 */
export function readRegularFile(file: string, maxBytes: number, inspect?: (stat: import('node:fs').Stats) => void): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new OddFileError(file, 'not a regular file');
    if (stat.size > maxBytes) throw new OddFileError(file, 'too large');
    inspect?.(stat);
    const buffer = Buffer.alloc(maxBytes + 1);
    const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
    if (length > maxBytes) throw new OddFileError(file, 'too large');
    return buffer.toString('utf8', 0, length);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A folder opened once, without following a link, and worked in through
 * that handle: on Linux every path below it goes through
 * /proc/self/fd/N, so a folder swapped for a link after it was checked is
 * never followed. Elsewhere, the folder's own path.
 */
export interface FolderHandle {
  /** The path that reaches the opened folder itself. */
  readonly path: string;
  readonly stat: import('node:fs').Stats;
  close(): void;
}

/** Whether /proc/self/fd reaches an open folder: looked at once, when first needed (the single executable's snapshot runs this file's top level at build time, on another machine). */
let procFd: boolean | undefined;
const viaProc = (): boolean => (procFd ??= process.platform === 'linux' && fs.existsSync('/proc/self/fd'));

/** O_NOFOLLOW where open() has it; 0 on Windows, where refuseLink looks first. */
export const NO_FOLLOW: number = fs.constants.O_NOFOLLOW ?? 0;

const errno = (code: string, what: string, file: string) => Object.assign(new Error(`${code}: ${what}, open '${file}'`), { code, syscall: 'open', path: file });

/**
 * Where open() cannot refuse a link itself (Windows has no O_NOFOLLOW), a
 * symlink or junction at `file` (lstat says isSymbolicLink for both) is
 * refused before it is opened, as ELOOP, as open() with O_NOFOLLOW would.
 * Nothing there is left for open() to report.
 */
export function refuseLink(file: string, noFollow: number = NO_FOLLOW): void {
  if (noFollow !== 0) return;
  let stat: import('node:fs').Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return;
  }
  if (stat.isSymbolicLink()) throw errno('ELOOP', 'a link, not followed', file);
}

/** Opens `dir` as a FolderHandle; undefined when there is nothing there. A link, or anything but a folder, is an error (ELOOP, ENOTDIR). */
export function openFolder(dir: string): FolderHandle | undefined {
  let fd: number;
  try {
    refuseLink(dir);
    fd = fs.openSync(dir, fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | NO_FOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const stat = fs.fstatSync(fd);
  // Windows has no O_DIRECTORY: a file opens there, and is refused here.
  if (!stat.isDirectory()) {
    fs.closeSync(fd);
    throw errno('ENOTDIR', 'not a folder', dir);
  }
  return {
    path: viaProc() ? `/proc/self/fd/${fd}` : dir,
    stat,
    close: () => fs.closeSync(fd),
  };
}

/** Tightens an opened folder to 0700, on its handle (not on Windows, which has no such modes). */
export function tightenFolder(handle: FolderHandle): void {
  if (modesApply() && (handle.stat.mode & 0o077) !== 0) fs.chmodSync(handle.path, 0o700);
}
