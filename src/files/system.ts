/** What gymctl asks of the operating system in more than one place: the user, their home, files opened without following links. */
const fs = process.getBuiltinModule('node:fs');

/** The user's uid; undefined on Windows, which has none to compare. */
export const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Not on Windows, where Node makes modes up (0777, 0666) and the profile folder's access list protects gymctl's files. */
export const modesApply = (platform: NodeJS.Platform = process.platform): boolean => platform !== 'win32';

/** A Windows path on a drive or share: path.win32 calls `/home/jose` absolute too, but it lands on whichever drive is current. */
export const isWindowsFullPath = (value: string): boolean => /^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/])/.test(value);

/** The home folder cannot be found: said in one line, never with a stack. */
export class HomeFolderError extends Error {
  override readonly name = 'HomeFolderError';
}

/**
 * The home folder: on Windows %USERPROFILE% (never HOME, which Git Bash may set to a POSIX path), refused unless
 * absolute; elsewhere $HOME; else the system's answer, which can fail (ENOBUFS, a uid with no entry): then a HomeFolderError.
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
 * The one place gymctl changes V8's flags at run time (measured with npm run bench):
 * - `long batch` (over 1,000 ids): V8 grows its young generation to about 200 MB at 100,000 ids; not growing it keeps
 *   the peak near 100 MB. Loading node:v8 costs a short run about 2 ms, so a short batch goes without.
 * - `jq` on Node 20 and 22, which optimise jq's 900 KB of WebAssembly up front: baseline code saves about 40 ms a call.
 * - `compile whole`, then `compile lazily`, around the boot's load of the main file while Node's compile cache is on:
 *   the cache then holds the whole file, not only what V8 compiles as it loads; a warm `whoami --json` starts about 8 ms
 *   sooner on Node 22 to 26, and the first run after an install takes 5 to 10 ms longer.
 */
const V8_TUNINGS = { 'long batch': '--semi-space-growth-factor=1', jq: '--liftoff-only', 'compile whole': '--no-lazy', 'compile lazily': '--lazy' } as const;
const tuned = new Set<keyof typeof V8_TUNINGS>();

export function tuneV8(tuning: keyof typeof V8_TUNINGS): void {
  if (tuned.has(tuning)) return;
  process.getBuiltinModule('node:v8').setFlagsFromString(V8_TUNINGS[tuning]);
  tuned.add(tuning);
}

/** A whole number as typed, from `min` to `max`: digits only, no leading zero; undefined otherwise, for the caller to explain. */
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
 * A small file's text, undefined when there is none: opened without blocking (a FIFO cannot hang gymctl), only a
 * regular file (a link to /dev/zero is refused), at most `maxBytes`. `inspect` sees its stat first.
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

/** A folder opened once without following a link; on Linux worked in through /proc/self/fd/N, so a later swap for a link is never followed. */
export interface FolderHandle {
  /** The path that reaches the opened folder itself. */
  readonly path: string;
  readonly stat: import('node:fs').Stats;
  close(): void;
}

/** Looked at when first needed: the single executable's snapshot runs this file's top level at build time, elsewhere. */
let procFd: boolean | undefined;
const viaProc = (): boolean => (procFd ??= process.platform === 'linux' && fs.existsSync('/proc/self/fd'));

/** O_NOFOLLOW where open() has it; 0 on Windows, where refuseLink looks first. */
export const NO_FOLLOW: number = fs.constants.O_NOFOLLOW ?? 0;

const errno = (code: string, what: string, file: string) => Object.assign(new Error(`${code}: ${what}, open '${file}'`), { code, syscall: 'open', path: file });

/** Without O_NOFOLLOW (Windows), a symlink or junction at `file` is refused as ELOOP before it is opened. */
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
