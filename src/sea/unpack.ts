/** The single executable's folder on disk, `<cache>/gymctl-sea/<build>` (docs/sea-notes.md, "Run" and "Old builds"). */
import { renameWhileBusy, StillBusyError } from '../files/moves.js';
import { describeUntrusted, makeFolders, untrustedPart } from '../files/trusted-path.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** A failure the binary reports in one line and exits 1 for. */
export class SeaError extends Error {}

/** The folder cannot be had here (a read-only or full disk…): the run goes on from the binary's own bytes, and only the keyring addon, a file on disk, says so. */
export class FolderUnavailable extends SeaError {
  constructor(
    readonly root: string,
    readonly reason: string,
  ) {
    super(`cannot unpack gymctl into ${root} (${reason})`);
  }
}

/** What the binary holds: asset names (relative to the folder, `/`-separated) and their SHA-256 in hex. */
export type Manifest = Readonly<Record<string, string>>;

const fix = 'remove it, or set XDG_CACHE_HOME to a folder of your own';
const again = (dir: string) => `remove ${dir}, and run gymctl again`;
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

const DAY_MS = 24 * 60 * 60 * 1000;
/** Another build's folder that no run has used for this long is removed (a run of that build unpacks it again). */
export const UNUSED_MS = 7 * DAY_MS;
/** A build's folder (`0.1.0-<16 hex>`, a pre-release `1.0.0-rc.1-<16 hex>`), and a temporary one beside it (`.<build>-XXXXXX`). */
const BUILD_FOLDER = /^\d+\.\d+\.\d+[0-9A-Za-z.+-]*-[0-9a-f]{16}$/;
const TEMPORARY_FOLDER = /^\.\d+\.\d+\.\d+[0-9A-Za-z.+-]*-[0-9a-f]{16}-[0-9A-Za-z]{6}$/;

/** True when `dir` is there, every part of its path may be trusted and it is the user's own (0700); false when it is not there; else throws. */
function trustedFolder(dir: string, uid: number | undefined): boolean {
  let found: ReturnType<typeof untrustedPart>;
  let stat: import('node:fs').Stats;
  try {
    found = untrustedPart(dir, { uid });
  } catch (error) {
    throw new FolderUnavailable(dir, `cannot read its path: ${codeOf(error)}`);
  }
  // A file where a folder of the path should be (HOME under a file): no folder can be there, and nothing is run from it.
  if (found?.why === 'not a folder') throw new FolderUnavailable(dir, describeUntrusted(found));
  if (found) throw new SeaError(`gymctl will not run code from ${dir}: ${describeUntrusted(found)}; set XDG_CACHE_HOME to a folder of your own`);
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new SeaError(`cannot read ${dir} (${codeOf(error)}): ${fix}`);
  }
  if (!stat.isDirectory()) throw new SeaError(`${dir} is not a folder (a link, or a file): ${fix}`);
  if (uid !== undefined && stat.uid !== uid) throw new SeaError(`${dir} belongs to another user (uid ${stat.uid}), so gymctl will not run code from it: ${fix}`);
  if (uid !== undefined && (stat.mode & 0o077) !== 0)
    throw new SeaError(`${dir} is open to others (mode ${(stat.mode & 0o777).toString(8)}), so gymctl will not run code from it: ${fix}`);
  return true;
}

/** `a`, `a/b` and `a/b/c`, for `a/b/c`. */
const prefixes = (name: string) => name.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));

/**
 * Throws unless `dir` holds the binary's files and nothing else, each a regular file (not a FIFO, link or device; no
 * `package.json` planted beside the addon). Names and kinds alone: nothing is opened, so a FIFO cannot hang the run.
 */
export function checkWhole(dir: string, manifest: Manifest): void {
  const files = new Set(Object.keys(manifest));
  const folders = new Set([...files].flatMap((name) => prefixes(name).slice(0, -1)));
  const damaged = (what: string) => new SeaError(`${dir} is not as this gymctl unpacked it (${what}): ${again(dir)}`);
  const found = new Set<string>();
  const walked = new Set<string>();
  const walk = (folder: string) => {
    walked.add(folder);
    let entries: import('node:fs').Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, ...folder.split('/')), { withFileTypes: true });
    } catch (error) {
      throw damaged(`cannot read ${folder || 'it'}: ${codeOf(error)}`);
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const name = folder ? `${folder}/${entry.name}` : entry.name;
      if (folders.has(name) && entry.isDirectory()) walk(name);
      else if (files.has(name) && entry.isFile()) found.add(name);
      else if (files.has(name) || folders.has(name)) throw damaged(`${name} is not a ${files.has(name) ? 'regular file' : 'folder'}`);
      else throw damaged(`${name} is not a file this gymctl unpacked`);
    }
  };
  walk('');
  for (const name of [...files].sort()) {
    if (found.has(name)) continue;
    // The folder that is gone, if one is, rather than the first file in it.
    const missing = prefixes(name).find((prefix) => prefix === name || !walked.has(prefix));
    throw damaged(`${missing} is missing`);
  }
}

/**
 * Marks this build's folder as used (its mtime, at most once a day); removes other builds' folders unused for `UNUSED_MS` and
 * leftovers of killed runs a day old, each renamed aside first, so a run of that build finds its folder whole or not at all.
 */
export function tidy(root: string, build: string, now: number, uid: number | undefined): void {
  try {
    const own = path.join(root, build);
    if (now - fs.lstatSync(own).mtimeMs > DAY_MS) fs.utimesSync(own, now / 1000, now / 1000);
  } catch {}
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const other = name !== build && BUILD_FOLDER.test(name);
    if (!other && !TEMPORARY_FOLDER.test(name)) continue;
    try {
      const folder = path.join(root, name);
      const stat = fs.lstatSync(folder);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || now - stat.mtimeMs <= (other ? UNUSED_MS : DAY_MS)) continue;
      let doomed = folder;
      if (other) {
        doomed = path.join(root, `.${name}-${Math.random().toString(36).slice(2, 8).padEnd(6, '0')}`);
        fs.renameSync(folder, doomed);
      }
      fs.rmSync(doomed, { recursive: true, force: true });
    } catch {}
  }
}

interface Unpack {
  root: string;
  build: string;
  manifest: Manifest;
  asset(name: string): Uint8Array;
  now?: number;
}

/**
 * This build's folder `<root>/<build>`, checked whole (unpacked on the first run), then old builds removed. A refusal (a
 * folder someone else made or changed) is a SeaError; a folder that cannot be made here, a FolderUnavailable.
 */
export function unpacked({ now = Date.now(), ...options }: Unpack): string {
  const dir = made({ ...options, now });
  checkWhole(dir, options.manifest);
  tidy(options.root, options.build, now, process.getuid?.());
  return dir;
}

/** This build's folder `<root>/<build>`, checked; on the first run, every asset written into a fresh folder beside it (0700, files 0600) and renamed into place. */
function made({ root, build, manifest, asset, now }: Required<Unpack>): string {
  const uid = process.getuid?.();
  const dir = path.join(root, build);
  if (trustedFolder(dir, uid)) return dir;
  let temporary: string | undefined;
  try {
    makeFolders(root, 0o700);
    trustedFolder(root, uid);
    // Old builds first: on a full disk, their room may be what this one needs.
    tidy(root, build, now, uid);
    temporary = fs.mkdtempSync(path.join(root, `.${build}-`));
    fs.chmodSync(temporary, 0o700);
    for (const name of Object.keys(manifest)) {
      const target = path.join(temporary, ...name.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      // wx: a file already there (in a folder made just now) is an error, never followed.
      fs.writeFileSync(target, asset(name), { mode: 0o600, flag: 'wx' });
    }
    // On Windows, while an antivirus scans the files just written, the rename is refused (EPERM): tried again for
    // about a second, unless another first run's folder is there (no try could succeed then).
    renameWhileBusy(temporary, dir, { giveUp: () => fs.existsSync(dir) });
    return dir;
  } catch (error) {
    // As far as it can: a scanner may hold a file of it a while, and what failed is what is said.
    if (temporary !== undefined)
      try {
        fs.rmSync(temporary, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 });
      } catch {}
    if (error instanceof SeaError) throw error;
    // Another first run put the same build there meanwhile: the same files. (Windows says EPERM, or EACCES and EBUSY
    // while a scanner holds a new file open, where POSIX says ENOTEMPTY.)
    if (['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY'].includes(codeOf(error)) && trustedFolder(dir, uid)) return dir;
    if (error instanceof StillBusyError)
      throw new SeaError(
        `cannot move the files gymctl unpacked into ${dir} (${error.code}): Windows refused it for a second of tries, as it does while another program holds one of them open, most often an antivirus scanning new files; run gymctl again, and if this goes on, have the antivirus skip ${root}`,
      );
    throw new FolderUnavailable(root, codeOf(error));
  }
}

/** Throws unless the file `name` in `dir` is a regular file with the bytes the binary holds for it (a FIFO or a device is refused before it is read). */
export function verify(dir: string, name: string, manifest: Manifest): void {
  const file = path.join(dir, ...name.split('/'));
  try {
    // A link is not followed, nor a FIFO with no writer waited on.
    const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;
    const fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    try {
      // node:crypto loaded here, never at the top: loaded into the start-up snapshot, it breaks crypto in worker threads (jq's).
      const hash = () => process.getBuiltinModule('node:crypto').createHash('sha256').update(fs.readFileSync(fd)).digest('hex');
      if (fs.fstatSync(fd).isFile() && hash() === manifest[name]) return;
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
  throw new SeaError(`${file} is not the file this gymctl unpacked (changed, removed, or not a regular file): ${again(dir)}`);
}
