/**
 * What gymctl asks of the operating system in more than one place: who the
 * user is, where their home is, and how a private file is written whole;
 * and how a whole number typed by a user is read.
 */
const fs = process.getBuiltinModule('node:fs');
const os = process.getBuiltinModule('node:os');

/** The user's uid; undefined on Windows, which has none to compare. */
export const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** The home folder: $HOME as the environment given says, else the system's answer. */
export const homeDir = (env: NodeJS.ProcessEnv): string => env.HOME || os.homedir();

/**
 * Writes `data` to a new file beside `file` (0600, created exclusively),
 * then moves it into place: renamed over `file`, or, with `keepExisting`,
 * linked, so that a `file` someone made first wins. A reader sees a whole
 * file or none, and the temporary file never stays behind.
 */
export function writeFileAtomic(file: string, data: string, options: { keepExisting?: boolean } = {}): void {
  const temporary = `${file}.${process.pid}.${process.getBuiltinModule('node:crypto').randomUUID()}.tmp`;
  try {
    fs.writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
    if (!options.keepExisting) {
      fs.renameSync(temporary, file);
      return;
    }
    try {
      fs.linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    fs.rmSync(temporary, { force: true });
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
