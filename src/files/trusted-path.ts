/**
 * Whether the user gymctl runs as can trust a folder's path. O_NOFOLLOW guards only a path's last part, so every part
 * from `/` down must belong to the user or root, links included (their targets walked the same way), and none may be
 * writable by anyone without /tmp's sticky bit. Root with another user's HOME thus stops at that HOME.
 * `makeFolders` replaces recursive mkdir, which loops for ever in procfs and says ENOENT on a read-only file system.
 */
import { pathOf as rules } from './folders.js';
import { currentUid } from './system.js';

const fs = process.getBuiltinModule('node:fs');

/** What the walk asks of the system; a test hands in its own. */
export interface PathSystem {
  /** Undefined (Windows, where uids are 0 and modes made up, and the profile's access list keeps others out) turns the check off. */
  uid: number | undefined;
  /** Whose path rules apply: this system's, unless a test says `win32` or `linux`. */
  platform?: NodeJS.Platform;
  lstat(file: string): { uid: number; mode: number; isDirectory(): boolean; isSymbolicLink(): boolean };
  readlink(file: string): string;
  mkdir(dir: string, mode: number): void;
}

const realSystem = (): PathSystem => ({
  uid: currentUid(),
  lstat: (file) => fs.lstatSync(file),
  readlink: (file) => fs.readlinkSync(file),
  mkdir: (dir, mode) => fs.mkdirSync(dir, { mode }),
});

/** What makes a path untrusted: the part at `path` (reached through the link `via`, if any). */
export type Untrusted =
  | { why: 'owner'; path: string; uid: number; link: boolean; via?: string }
  | { why: 'open'; path: string; via?: string }
  | { why: 'not a folder'; path: string; via?: string }
  | { why: 'too many links'; path: string };

/** Links followed at most, as the kernel's ELOOP limit. */
const MAX_LINKS = 40;

/** The first untrusted part of `target`'s path, links followed; a part that does not exist yet ends the walk (gymctl makes it). */
export function untrustedPart(target: string, system: Partial<PathSystem> = {}): Untrusted | undefined {
  const sys = { ...realSystem(), ...system };
  if (sys.uid === undefined) return undefined;
  const path = rules(sys.platform);
  const trusted = (uid: number) => uid === sys.uid || uid === 0;
  const absolute = path.resolve(target);
  const root = path.parse(absolute).root;
  const pending = absolute.slice(root.length).split(path.sep);
  let current = root;
  let via: string | undefined;
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = path.dirname(current); // `current` has no link in it, so this is where the kernel goes too
      continue;
    }
    const next = path.join(current, part);
    let stat: ReturnType<PathSystem['lstat']>;
    try {
      stat = sys.lstat(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const at = via === undefined ? {} : { via };
    if (stat.isSymbolicLink()) {
      if (!trusted(stat.uid)) return { why: 'owner', path: next, uid: stat.uid, link: true, ...at };
      if (++links > MAX_LINKS) return { why: 'too many links', path: next };
      via ??= next;
      const text = sys.readlink(next);
      if (path.isAbsolute(text)) current = path.parse(text).root;
      pending.unshift(...text.slice(path.isAbsolute(text) ? path.parse(text).root.length : 0).split(/[\\/]/));
      continue;
    }
    if (!trusted(stat.uid)) return { why: 'owner', path: next, uid: stat.uid, link: false, ...at };
    const more = pending.some((rest) => rest !== '' && rest !== '.');
    if (more && !stat.isDirectory()) return { why: 'not a folder', path: next, ...at };
    // Anyone may put a link in it, where the next part should be; /tmp's sticky bit forbids that.
    if (more && (stat.mode & 0o002) !== 0 && (stat.mode & 0o1000) === 0) return { why: 'open', path: next, ...at };
    current = next;
  }
  return undefined;
}

/** What is wrong with the part, in words: "/home/u belongs to another user (uid 1000)". */
export function describeUntrusted(found: Untrusted): string {
  const through = 'via' in found && found.via !== undefined ? ` (the link ${found.via} leads there)` : '';
  switch (found.why) {
    case 'owner':
      return `${found.path} ${found.link ? 'is a link made by' : 'belongs to'} another user (uid ${found.uid})${through}`;
    case 'open':
      return `${found.path} can be written by anyone${through}`;
    case 'not a folder':
      return `${found.path} is not a folder${through}`;
    case 'too many links':
      return `${found.path} goes through too many links`;
  }
}

/** Makes `dir` and the missing folders above it, one at a time, throwing the system's code; procfs's ENOENT said in words. */
export function makeFolders(dir: string, mode = 0o700, system: Partial<PathSystem> = {}): void {
  const sys = { ...realSystem(), ...system };
  const path = rules(sys.platform);
  const missing: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    try {
      sys.lstat(current);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (path.dirname(current) === current) break;
    missing.unshift(current);
  }
  for (const folder of missing) {
    try {
      sys.mkdir(folder, mode);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === 'EEXIST' && isFolder(folder, sys)) continue; // made meanwhile by another gymctl
      if (code === 'ENOENT') {
        // The folder above is there (found or made just now), yet the system says it is not: procfs, sysfs and the like.
        const parent = path.dirname(folder);
        const reason = sys.lstat(parent).isSymbolicLink() ? `${parent} is a link to nothing` : `${parent} takes no new folders`;
        throw Object.assign(new Error(`ENOENT: ${reason}, mkdir '${folder}'`), { code, syscall: 'mkdir', path: folder, reason });
      }
      throw error;
    }
  }
}

const isFolder = (file: string, sys: PathSystem) => {
  try {
    return sys.lstat(file).isDirectory();
  } catch {
    return false;
  }
};

/** `untrustedPart` as a yes or no; a part that changed under the walk, or cannot be read, is not trusted. */
export function trustedPath(dir: string, uid = currentUid()): boolean {
  try {
    return untrustedPart(dir, { uid }) === undefined;
  } catch {
    return false;
  }
}
