/**
 * The secret the code cache's files are signed with (by a key made from
 * it: frame.ts): the config folder's `cache-secret`, the response cache's
 * own (src/cache/store.ts), outside the cache folder, so that whoever can
 * write to `~/.cache` (a CI cache restored from another branch) cannot sign
 * a file. 32 random bytes as 64 hex digits, 0600, linked into place (or
 * created exclusively where the file system has no hard links), so that
 * two gymctl starting at once agree on one. The code cache signs with a key
 * made from it over a label with no NUL, and the response cache's HMACs are
 * over texts that hold one, so neither is ever the other's.
 *
 * Trusted only in a regular file of the user's own closed to others. When
 * there is none, it is made once the command is done, only in a config
 * folder of the user's own reached through no one else's folder or link.
 * Boot code: node:fs and node:path only, until a secret is made.
 */
import { currentUid } from '../files/system.js';
import { writeFileAtomic } from '../files/moves.js';
import { makeFolders, trustedPath } from '../files/trusted-path.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** The secret's file, in the config folder: the response cache's own. */
export const SECRET_FILE = 'cache-secret';

/** No secret file is near this large. */
const MAX_SECRET_BYTES = 1024;

/**
 * The secret in `dir`: its 32 bytes when it may be trusted; `missing` when
 * there is no file (it may be made); undefined when there is one that is
 * not to be trusted or read (another user's, open to others, not a regular
 * file, not 64 hex digits). It is never changed here: the config folder's
 * files are not overwritten.
 */
export function readSecret(dir: string): Buffer | 'missing' | undefined {
  let fd: number;
  try {
    // Without blocking: a FIFO in its place cannot hang the start.
    fd = fs.openSync(path.join(dir, SECRET_FILE), fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    const uid = currentUid();
    if (!stat.isFile() || (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o077) !== 0)) || stat.size > MAX_SECRET_BYTES) return undefined;
    const bytes = Buffer.alloc(MAX_SECRET_BYTES + 1);
    const length = fs.readSync(fd, bytes, 0, bytes.length, 0);
    const text = bytes.toString('latin1', 0, length).trim();
    return /^[0-9a-f]{64}$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The secret in `dir`, made when there is none and the folder may hold it (see above); undefined when there is none to trust. */
export function secretToSign(dir: string): Buffer | undefined {
  const found = readSecret(dir);
  if (found !== 'missing') return found;
  try {
    if (!trustedPath(dir)) return undefined;
    makeFolders(dir);
    const folder = fs.lstatSync(dir);
    const uid = currentUid();
    if (!folder.isDirectory() || (uid !== undefined && folder.uid !== uid)) return undefined;
    const crypto = process.getBuiltinModule('node:crypto');
    writeFileAtomic(path.join(dir, SECRET_FILE), `${crypto.randomBytes(32).toString('hex')}\n`, { keepExisting: true });
  } catch {
    return undefined;
  }
  const made = readSecret(dir);
  return Buffer.isBuffer(made) ? made : undefined;
}
