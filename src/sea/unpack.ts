/**
 * The single executable's files on disk, for what needs a path (module resolution, jq, the keyring's addon, the
 * notices): one folder per build, `<cache>/gymctl-sea/<build>`, beside the response cache and not in it (`gymctl cache
 * clear` empties that while a binary may run from here). Every part of its path is checked as the cache's is
 * (trusted-path.ts); the folder must be the user's own, closed to others. It is made once, written into a `mkdtemp`
 * folder renamed into place; a run that loses the race to another drops its copy. What is run from it is checked
 * against the binary's SHA-256 (`verify`).
 */
import { describeUntrusted, makeFolders, untrustedPart } from '../files/trusted-path.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** A failure the binary reports in one line and exits 1 for. */
export class SeaError extends Error {}

/** What the binary holds: asset names (relative to the folder, `/`-separated) and their SHA-256 in hex. */
export type Manifest = Readonly<Record<string, string>>;

/** `root`: the parent of the per-build folders, `<cache>/gymctl-sea`; `asset`: an asset's bytes, from the binary. */
export interface UnpackOptions {
  root: string;
  build: string;
  manifest: Manifest;
  asset(name: string): Uint8Array;
  uid?: number | undefined;
}

const fix = 'remove it, or set XDG_CACHE_HOME to a folder of your own';

/** Throws unless every part of `dir`'s path may be trusted. */
function checkPath(dir: string, uid: number | undefined): void {
  let found: ReturnType<typeof untrustedPart>;
  try {
    found = untrustedPart(dir, { uid });
  } catch (error) {
    throw new SeaError(`cannot read the path to ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}): ${fix}`);
  }
  if (found) throw new SeaError(`gymctl will not run code from ${dir}: ${describeUntrusted(found)}; set XDG_CACHE_HOME to a folder of your own`);
}

/** True when `dir` is there and is the user's own (0700); false when it is not there; throws when it is there but not trusted. */
function ownFolder(dir: string, uid: number | undefined): boolean {
  let stat: import('node:fs').Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new SeaError(`cannot read ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}): ${fix}`);
  }
  if (!stat.isDirectory()) throw new SeaError(`${dir} is not a folder (a link, or a file): ${fix}`);
  if (uid !== undefined && stat.uid !== uid) throw new SeaError(`${dir} belongs to another user (uid ${stat.uid}), so gymctl will not run code from it: ${fix}`);
  if (uid !== undefined && (stat.mode & 0o077) !== 0)
    throw new SeaError(`${dir} is open to others (mode ${(stat.mode & 0o777).toString(8)}), so gymctl will not run code from it: ${fix}`);
  return true;
}

/** Writes every asset into a fresh folder under `root` (0700, files 0600) and returns it. */
function writeCopy(options: UnpackOptions): string {
  const temporary = fs.mkdtempSync(path.join(options.root, `.${options.build}-`));
  fs.chmodSync(temporary, 0o700);
  for (const name of Object.keys(options.manifest)) {
    const target = path.join(temporary, ...name.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    // flag wx: a file that is there already (nothing should be, in a folder made just now) is an error, not followed.
    fs.writeFileSync(target, options.asset(name), { mode: 0o600, flag: 'wx' });
  }
  return temporary;
}

/** This build's folder, made on the first run and checked on every run. */
export function unpacked(options: UnpackOptions): string {
  const uid = 'uid' in options ? options.uid : process.getuid?.();
  const dir = path.join(options.root, options.build);
  checkPath(dir, uid);
  if (ownFolder(dir, uid)) return dir;
  let temporary: string | undefined;
  try {
    makeFolders(options.root, 0o700);
    checkPath(dir, uid);
    ownFolder(options.root, uid);
    temporary = writeCopy(options);
    fs.renameSync(temporary, dir);
    temporary = undefined;
  } catch (error) {
    if (temporary !== undefined) fs.rmSync(temporary, { recursive: true, force: true });
    if (error instanceof SeaError) throw error;
    const { code } = error as NodeJS.ErrnoException;
    // Another first run put the same build there meanwhile: the same files. (Windows says EPERM, or EACCES and EBUSY
    // while a scanner holds a new file open, where POSIX says ENOTEMPTY.)
    if (['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY'].includes(code ?? '') && ownFolder(dir, uid)) return dir;
    throw new SeaError(`cannot unpack gymctl into ${options.root} (${code ?? String(error)}): set XDG_CACHE_HOME to a writable folder of your own`);
  }
  return dir;
}

/** The SHA-256 of `file` in hex, or undefined when it cannot be read. */
function sha256(file: string): string | undefined {
  try {
    // node:crypto loaded here, never at the top: loaded into the start-up snapshot, it breaks crypto in worker threads (jq's).
    return process.getBuiltinModule('node:crypto').createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** Throws unless the file `name` in `dir` has the bytes the binary holds for it. */
export function verify(dir: string, name: string, manifest: Manifest): void {
  const file = path.join(dir, ...name.split('/'));
  if (manifest[name] === undefined || sha256(file) !== manifest[name])
    throw new SeaError(`${file} is not the file this gymctl unpacked (changed, or removed): remove ${dir} and run gymctl again`);
}
