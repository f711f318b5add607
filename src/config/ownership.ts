/** As ssh, gymctl writes the key only into a folder and file the user owns, that others cannot write: else `sudo` with a user's HOME would hand the key over. */
import type { Stats } from 'node:fs';
import { GymctlError } from '../api/errors.js';
import { currentUid } from '../files/system.js';
import { describeUntrusted, type Untrusted, untrustedPart } from '../files/trusted-path.js';

const fs = process.getBuiltinModule('node:fs');

/** A path's stat, or undefined when there is nothing there (or a part of the path is a plain file). */
function statOf(target: string, link = false): Stats | undefined {
  try {
    return link ? fs.lstatSync(target) : fs.statSync(target);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

export function otherOwner(stat: Stats): number | undefined {
  const uid = currentUid();
  return uid === undefined || stat.uid === uid ? undefined : stat.uid;
}

/** The config folder (if it exists) and file (if it exists) are the user's own, and the folder is not writable by others. */
export function checkOwnWritable(dir: string, file: string): void {
  const uid = currentUid();
  if (uid === undefined) return; // Windows: no uids to compare
  const folder = statOf(dir);
  if (folder) {
    if (folder.uid !== uid) {
      throw new GymctlError(
        'internal',
        `gymctl runs as uid ${uid} and will not write the config folder ${dir}: it belongs to another user (uid ${folder.uid}); run gymctl as that user, or point GYMCTL_CONFIG_DIR at a folder of your own`,
      );
    }
    if ((folder.mode & 0o002) !== 0) {
      throw new GymctlError('internal', `config folder ${dir} can be written by others, so gymctl will not write into it; fix it with: chmod 700 ${dir}`);
    }
  }
  // Every part above it too (trusted-path.ts), including the nearest parent of a folder still to be made.
  const found = untrustedPart(dir);
  if (found) throw untrustedFolder('write the config folder', dir, found, 'point GYMCTL_CONFIG_DIR at a folder of your own');
  const fileStat = statOf(file, true);
  const owner = fileStat && otherOwner(fileStat);
  if (owner !== undefined) {
    throw new GymctlError(
      'internal',
      `gymctl runs as uid ${uid} and will not write the config file ${file}: it belongs to another user (uid ${owner}); run gymctl as that user, or remove the file`,
    );
  }
}

/** The refusal of a folder whose path the user cannot trust: what, where, why, and the fix. */
export function untrustedFolder(action: string, dir: string, found: Untrusted, fix: string): GymctlError {
  const who = found.why === 'owner' ? `gymctl runs as uid ${currentUid()} and` : 'gymctl';
  const otherUser = found.why === 'owner' ? 'run gymctl as that user, or ' : '';
  return new GymctlError('internal', `${who} will not ${action} ${dir}: ${describeUntrusted(found)}; ${otherUser}${fix}`);
}

export function ownershipWarning(file: string, stat: Stats): string | undefined {
  if (otherOwner(stat) === undefined) return undefined;
  return `warning: config file ${file} belongs to another user (uid ${stat.uid}); its settings and key are theirs`;
}
