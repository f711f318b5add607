/**
 * Whether a folder of the code cache (or the config folder, for its
 * secret) may be made, read and written where its path leads: the rule of
 * src/files/trusted-path.ts (every part from `/` down, links followed, the
 * user's or root's, and none that anyone may write to unless sticky), as a
 * yes or no. Opening the last part without following a link guards only
 * that part: a link in a parent folder (`~/.cache` linked by another user
 * to a folder of root's) would be followed, and root running with another
 * user's HOME would make and fill a folder wherever that user pointed it.
 *
 * In dist/boot.cjs: lstat calls only (a handful, on every start), and
 * readlink for a link.
 */
import { currentUid } from '../files/system.js';
import { untrustedPart } from '../files/trusted-path.js';

/** True when the folder `dir` may be made, read and written by this user. A part that does not exist yet ends the walk (gymctl would make it). */
export function trustedPath(dir: string, uid: number | undefined = currentUid()): boolean {
  try {
    return untrustedPart(dir, { uid }) === undefined;
  } catch {
    // A part that changed under the walk, or cannot be read: not trusted this time.
    return false;
  }
}
