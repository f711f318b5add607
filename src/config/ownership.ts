/**
 * Whose config folder and file these are. As ssh refuses keys with loose
 * ownership, gymctl writes the API key only into a folder and a file the
 * current user owns, in a folder others cannot write to: otherwise `sudo`
 * with a user's HOME, or a shared folder, would hand the key to another
 * user. Checked before anything is written.
 */
import type { Stats } from 'node:fs';
import { GymctlError } from '../api/errors.js';
import { currentUid } from '../system.js';

// Built-ins through process.getBuiltinModule: no ESM namespace to build on every start.
const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

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

/** `start` or its nearest ancestor that exists, with its stat: where a folder made at `start` would go. */
export function nearestExisting(start: string): { path: string; stat: Stats } | undefined {
  for (let current = start; ; current = path.dirname(current)) {
    const stat = statOf(current);
    if (stat) return { path: current, stat };
    if (path.dirname(current) === current) return undefined;
  }
}

/** The uid of the user who owns what `stat` describes, when that is not the current user. */
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
        `config folder ${dir} belongs to another user (uid ${folder.uid}), so gymctl will not write your API key into it; run gymctl as that user, or point GYMCTL_CONFIG_DIR at a folder of your own`,
      );
    }
    if ((folder.mode & 0o002) !== 0) {
      throw new GymctlError('internal', `config folder ${dir} can be written by others, so gymctl will not write your API key into it; fix it with: chmod 700 ${dir}`);
    }
  } else {
    // The folder will be made inside its nearest existing parent: that must not be writable by everyone either.
    const parent = nearestExisting(path.dirname(dir));
    if (parent && (parent.stat.mode & 0o002) !== 0 && (parent.stat.mode & 0o1000) === 0) {
      throw new GymctlError('internal', `config folder ${dir} would be made in ${parent.path}, which anyone can write to; point GYMCTL_CONFIG_DIR at a folder of your own`);
    }
  }
  const fileStat = statOf(file, true);
  const owner = fileStat && otherOwner(fileStat);
  if (owner !== undefined) {
    throw new GymctlError(
      'internal',
      `config file ${file} belongs to another user (uid ${owner}), so gymctl will not write your API key into it; run gymctl as that user, or remove the file`,
    );
  }
}

/** A warning when the file being read belongs to someone else, or undefined. */
export function ownershipWarning(file: string, stat: Stats): string | undefined {
  if (otherOwner(stat) === undefined) return undefined;
  return `warning: config file ${file} belongs to another user (uid ${stat.uid}); its settings and key are theirs`;
}
