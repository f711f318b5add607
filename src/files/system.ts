/**
 * What gymctl asks of the operating system in more than one place: who the
 * user is and where their home is, how a file is opened and read without
 * following a link, and how a whole number typed by a user is read. How a
 * file is written whole is moves.ts's.
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
