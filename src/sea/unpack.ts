/**
 * The single executable's folder on disk, `<cache>/gymctl-sea/<build>`: made once, checked on every use, and what is
 * run from it checked against the binary's SHA-256 (docs/sea-notes.md, "Run").
 */
import { renameWhileBusy, StillBusyError } from '../files/system.js';
import { describeUntrusted, makeFolders, untrustedPart } from '../files/trusted-path.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** A failure the binary reports in one line and exits 1 for. */
export class SeaError extends Error {}

/** What the binary holds: asset names (relative to the folder, `/`-separated) and their SHA-256 in hex. */
export type Manifest = Readonly<Record<string, string>>;

const fix = 'remove it, or set XDG_CACHE_HOME to a folder of your own';
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** True when `dir` is there, every part of its path may be trusted and it is the user's own (0700); false when it is not there; else throws. */
function trustedFolder(dir: string, uid: number | undefined): boolean {
  let found: ReturnType<typeof untrustedPart>;
  let stat: import('node:fs').Stats;
  try {
    found = untrustedPart(dir, { uid });
  } catch (error) {
    throw new SeaError(`cannot read the path to ${dir} (${codeOf(error)}): ${fix}`);
  }
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

/** Removes a temporary folder of a first run that failed, as far as it can (a scanner may hold a file of it a while): what failed is what is said. */
function removeLeftover(temporary: string): void {
  try {
    fs.rmSync(temporary, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 });
  } catch {}
}

/** This build's folder `<root>/<build>`, checked; on the first run, every asset written into a fresh folder beside it (0700, files 0600) and renamed into place. */
export function unpacked({ root, build, manifest, asset }: { root: string; build: string; manifest: Manifest; asset(name: string): Uint8Array }): string {
  const uid = process.getuid?.();
  const dir = path.join(root, build);
  if (trustedFolder(dir, uid)) return dir;
  let temporary: string | undefined;
  try {
    makeFolders(root, 0o700);
    trustedFolder(root, uid);
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
    if (temporary !== undefined) removeLeftover(temporary);
    if (error instanceof SeaError) throw error;
    // Another first run put the same build there meanwhile: the same files. (Windows says EPERM, or EACCES and EBUSY
    // while a scanner holds a new file open, where POSIX says ENOTEMPTY.)
    if (['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY'].includes(codeOf(error)) && trustedFolder(dir, uid)) return dir;
    if (error instanceof StillBusyError)
      throw new SeaError(
        `cannot move the files gymctl unpacked into ${dir} (${error.code}): Windows refused it for a second of tries, as it does while another program holds one of them open, most often an antivirus scanning new files; run gymctl again, and if this goes on, have the antivirus skip ${root}`,
      );
    throw new SeaError(`cannot unpack gymctl into ${root} (${codeOf(error)}): set XDG_CACHE_HOME to a writable folder of your own`);
  }
}

/** Throws unless the file `name` in `dir` has the bytes the binary holds for it. */
export function verify(dir: string, name: string, manifest: Manifest): void {
  const file = path.join(dir, ...name.split('/'));
  try {
    // node:crypto loaded here, never at the top: loaded into the start-up snapshot, it breaks crypto in worker threads (jq's).
    if (process.getBuiltinModule('node:crypto').createHash('sha256').update(fs.readFileSync(file)).digest('hex') === manifest[name]) return;
  } catch {}
  throw new SeaError(`${file} is not the file this gymctl unpacked (changed, or removed): remove ${dir} and run gymctl again`);
}
