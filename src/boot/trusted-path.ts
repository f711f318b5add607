/**
 * Whether a folder of the code cache (or the config folder, for its
 * secret) may be made, read and written where its path leads. Opening the
 * last part without following a link guards only that part: a link in a
 * parent folder (`~/.cache` linked by another user to a folder of root's)
 * would be followed, and root running with another user's HOME would make
 * and fill a folder wherever that user pointed it.
 *
 * So every part of the path that exists, from `/` down, must belong to the
 * user gymctl runs as, or to root (whom nothing stops anyway), and must not
 * be writable by everyone unless it is sticky, as /tmp is: then nobody
 * else can swap a part after it was checked. A link must be of the user's
 * or root's too, and where it leads is checked the same way. As root, a
 * part of another user's (their home) is refused.
 *
 * In dist/boot.cjs: lstat calls only (a handful, on every start), and
 * readlink for a link.
 */
import { currentUid } from '../system.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** Links followed, at most, before a path is refused (as the kernel's own limit on a loop). */
const MAX_LINKS = 40;

/** True when the folder `dir` may be made, read and written by this user: see above. A part that does not exist yet ends the walk (gymctl would make it). */
export function trustedPath(dir: string, uid: number | undefined = currentUid()): boolean {
  if (uid === undefined) return true; // Windows: no uids to compare
  try {
    return walk(dir, uid);
  } catch {
    // A part that changed under the walk (a link removed between lstat and readlink): not trusted this time.
    return false;
  }
}

function walk(dir: string, uid: number): boolean {
  let links = 0;
  let rest = path.resolve(dir).split(path.sep).filter(Boolean);
  let current = path.parse(path.resolve(dir)).root;
  if (!trustedPart(current, uid)) return false;
  while (rest.length > 0) {
    const next = path.join(current, rest[0]!);
    let stat: import('node:fs').Stats;
    try {
      stat = fs.lstatSync(next);
    } catch (error) {
      // Nothing there: the rest would be made by gymctl, inside a folder just found trusted.
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
    if (!ownerTrusted(stat, uid)) return false;
    if (stat.isSymbolicLink()) {
      if (++links > MAX_LINKS) return false;
      // Where it leads, read against the folder it is in (already walked), with what is left after it.
      const target = path.resolve(current, fs.readlinkSync(next));
      current = path.parse(target).root;
      rest = [...target.split(path.sep).filter(Boolean), ...rest.slice(1)];
      if (!trustedPart(current, uid)) return false;
      continue;
    }
    if (!stat.isDirectory() || !closedEnough(stat)) return false;
    current = next;
    rest = rest.slice(1);
  }
  return true;
}

/** The user's, or root's. */
const ownerTrusted = (stat: import('node:fs').Stats, uid: number): boolean => stat.uid === uid || stat.uid === 0;

/** Not writable by everyone, unless sticky (where nobody renames or removes what is not theirs). */
const closedEnough = (stat: import('node:fs').Stats): boolean => (stat.mode & 0o002) === 0 || (stat.mode & 0o1000) !== 0;

/** A folder reached by name (the root of the file system): trusted as any other part. */
function trustedPart(dir: string, uid: number): boolean {
  try {
    const stat = fs.lstatSync(dir);
    return ownerTrusted(stat, uid) && stat.isDirectory() && closedEnough(stat);
  } catch {
    return false;
  }
}
