import type { ResponseCache } from '../api/transport/types.js';
import { GymctlError, type ResponseHead } from '../api/errors.js';
import { otherOwner, untrustedFolder } from '../config/ownership.js';
import { cacheDir } from '../files/folders.js';
import { makeFolders, untrustedPart } from '../files/trusted-path.js';
import { type FolderHandle, OddFileError, openFolder, readRegularFile, tightenFolder } from '../files/system.js';
import { writeFileAtomic } from '../files/moves.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
/** Loaded when a cache is first used, not when gymctl starts. */
const crypto = () => process.getBuiltinModule('node:crypto');

const SECRET_FILE = 'secret';

export { cacheDir };

const hmac = (secret: Buffer, text: string) => crypto().createHmac('sha256', secret).update(text).digest('hex');

/** The folder a key's entries are filed in, by an HMAC of the key: the folder's name does not give the key away. */
const keyFolder = (secret: Buffer, apiKey: string) => hmac(secret, `key\u0000${apiKey}`).slice(0, 40);

/**
 * The cache's secret, in the opened cache folder, made on first use: 32 random bytes written so that two gymctl
 * starting at once agree on one (moves.ts: keepExisting), read bounded as the config file is.
 */
function secretIn(root: FolderHandle, dir: string, create: boolean): Buffer | undefined {
  const file = path.join(root.path, SECRET_FILE);
  const secret = readSecret(file, path.join(dir, SECRET_FILE));
  if (secret || !create) return secret;
  writeFileAtomic(file, `${crypto().randomBytes(32).toString('hex')}\n`, { keepExisting: true });
  return readSecret(file, path.join(dir, SECRET_FILE));
}

/** The secret in `file`, named `shown` to the user; undefined when there is none. */
function readSecret(file: string, shown: string): Buffer | undefined {
  let text: string | undefined;
  try {
    text = readRegularFile(file, 1024);
  } catch (error) {
    if (error instanceof OddFileError)
      throw new GymctlError(
        'internal',
        `${shown} is ${error.why === 'too large' ? 'too large to be' : 'not a regular file, so not'} a cache secret: remove it, and gymctl makes a new one`,
      );
    throw error;
  }
  if (text === undefined) return undefined;
  if (!/^[0-9a-f]{64}$/.test(text.trim())) throw new GymctlError('internal', `${shown} is not a cache secret (64 hex digits): remove it, and gymctl makes a new one`);
  return Buffer.from(text.trim(), 'hex');
}

/** The cache folder's secret, the folder opened and closed again: undefined when there is no folder or no secret. */
function secretOf(dir: string): Buffer | undefined {
  const root = openRoot(dir, false);
  try {
    return root && secretIn(root, dir, false);
  } finally {
    root?.close();
  }
}

/**
 * The cache folder, opened on a handle and checked there (a link refused, the user's own, tightened to 0700), on a path
 * trusted-path.ts trusts: nothing is read, written or removed through a folder someone else could swap. Made first with
 * `create`; undefined when there is none.
 */
function openRoot(dir: string, create: boolean): FolderHandle | undefined {
  const found = untrustedPart(dir);
  if (found) throw untrustedFolder('use the cache folder', dir, found, 'set XDG_CACHE_HOME to a folder of your own');
  if (create) makeFolders(dir);
  let handle: FolderHandle | undefined;
  try {
    handle = openFolder(dir);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new GymctlError('internal', `cache folder ${dir} is not a folder (a link, or a file): remove it, or set XDG_CACHE_HOME`);
    throw error;
  }
  if (!handle) return undefined;
  const owner = otherOwner(handle.stat);
  if (owner !== undefined) {
    handle.close();
    throw new GymctlError(
      'internal',
      `cache folder ${dir} belongs to another user (uid ${owner}), so gymctl will not keep answers in it: set XDG_CACHE_HOME to a folder of your own`,
    );
  }
  tightenFolder(handle);
  return handle;
}

/** A key's folder inside the opened cache folder, opened on a handle of its own (never through a link); made first with `create`. */
function openKeyFolder(root: FolderHandle, name: string, create: boolean): FolderHandle | undefined {
  const dir = path.join(root.path, name);
  if (create) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  try {
    return openFolder(dir);
  } catch {
    return undefined; // a link or a file in its place: not a folder of entries
  }
}

/** Removes what a key's folder holds, through its handle, then the folder; how many answers it held. */
function emptyKeyFolder(root: FolderHandle, name: string): number {
  const entry = path.join(root.path, name);
  const folder = openKeyFolder(root, name, false);
  if (!folder) {
    // Not a folder (a link, or a file): removed as itself, whatever it points to left alone.
    fs.rmSync(entry, { force: true });
    return 0;
  }
  let removed = 0;
  try {
    for (const file of fs.readdirSync(folder.path)) {
      if (file.endsWith('.json')) removed++;
      fs.rmSync(path.join(folder.path, file), { recursive: true, force: true });
    }
  } finally {
    folder.close();
  }
  try {
    fs.rmdirSync(entry);
  } catch {
    // Swapped for something else meanwhile: left as it is.
  }
  return removed;
}

export interface CacheOptions {
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  apiKey: string;
  /** How old an answer may be to be used; undefined with --refresh alone: never read, only written. */
  lifetimeMs: number | undefined;
  /** Said once when an answer cannot be stored (a full disk): the command goes on. */
  warn: (message: string) => void;
  /** Only read, and make nothing (Tab completion): with no secret yet, every read is a miss and nothing is written. */
  readOnly?: boolean;
}

/** A status line and headers as an entry keeps them; anything else (a garbled entry) is no head. */
function isHead(value: unknown): value is ResponseHead {
  if (typeof value !== 'object' || value === null) return false;
  const { version, status, statusText, headers } = value as Record<string, unknown>;
  return (
    typeof version === 'string' &&
    Number.isInteger(status) &&
    typeof statusText === 'string' &&
    Array.isArray(headers) &&
    headers.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string')
  );
}

/** The largest entry read back: above the client's 10 MiB body cap, as an entry holds the body escaped in JSON, with its head. */
const MAX_ENTRY_BYTES = 16 * 1024 * 1024;

export function openCache(options: CacheOptions): ResponseCache {
  const dir = cacheDir(options.env);
  // Checked before anything is sent; made with the first answer stored, with the folder.
  let secret = secretOf(dir);
  const keyOf = (known: Buffer) => keyFolder(known, options.apiKey);
  const fileName = (known: Buffer, apiPath: string) => `${hmac(known, `${options.baseUrl}\u0000${apiPath}`).slice(0, 40)}.json`;
  let warned = false;
  return {
    read(apiPath) {
      if (options.lifetimeMs === undefined || !secret) return undefined;
      const root = openRoot(dir, false);
      const folder = root && openKeyFolder(root, keyOf(secret), false);
      try {
        if (!folder) return undefined;
        const text = readRegularFile(path.join(folder.path, fileName(secret, apiPath)), MAX_ENTRY_BYTES);
        if (text === undefined) return undefined;
        const entry = JSON.parse(text) as { storedAt?: unknown; body?: unknown; head?: unknown };
        const ageMs = Date.now() - Number(entry.storedAt);
        // A missing, torn or foreign entry, or one from the future, is a miss.
        if (typeof entry.body !== 'string' || !(ageMs >= 0 && ageMs < options.lifetimeMs)) return undefined;
        return isHead(entry.head) ? { body: entry.body, ageMs, head: entry.head } : { body: entry.body, ageMs };
      } catch {
        return undefined;
      } finally {
        folder?.close();
        root?.close();
      }
    },
    write(apiPath, body, head) {
      if (options.readOnly) return;
      let root: FolderHandle | undefined;
      let folder: FolderHandle | undefined;
      try {
        root = openRoot(dir, true);
        secret ??= root && secretIn(root, dir, true);
        if (!root || !secret) throw new Error(`${dir} is not a folder`);
        folder = openKeyFolder(root, keyOf(secret), true);
        if (!folder) throw new Error(`${path.join(dir, keyOf(secret))} is not a folder`);
        writeFileAtomic(path.join(folder.path, fileName(secret, apiPath)), JSON.stringify({ storedAt: Date.now(), body, ...(head ? { head } : {}) }));
      } catch (error) {
        if (!warned) options.warn(`the answer could not be cached in ${dir}: ${systemMessage(error)}`);
        warned = true;
      } finally {
        folder?.close();
        root?.close();
      }
    },
  };
}

/** Empties the cache; how many answers it held. Every entry is acted on through the folder's handle, never through a path that could be swapped for a link. */
export function clearCache(env: NodeJS.ProcessEnv): { dir: string; removed: number } {
  const dir = cacheDir(env);
  let root: FolderHandle | undefined;
  let removed = 0;
  try {
    root = openRoot(dir, false);
    if (!root) return { dir, removed: 0 };
    for (const name of fs.readdirSync(root.path)) removed += emptyKeyFolder(root, name);
  } catch (error) {
    // A read-only mount or a folder gymctl may not change is said as such, naming the folder, not as an unexpected error.
    if (error instanceof GymctlError || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
    throw new GymctlError('internal', `the cache folder ${dir} could not be cleared${removed ? ` (${removed} answers were removed)` : ''}: ${systemMessage(error)}`);
  } finally {
    root?.close();
  }
  return { dir, removed };
}

/**
 * A system error's words without the path of a handle (`/proc/self/fd/18`), which tells the user nothing:
 * `EROFS: read-only file system, chmod`. The folder is named by whoever says it. Node 24's rmSync words a
 * read-only file system as `, Unknown error: Read-only file system '…'` (no code): said as `Read-only file system`.
 */
export function systemMessage(error: unknown): string {
  const { message } = error as Error;
  if (typeof message !== 'string') return String(error);
  return message
    .replace(/ '\/proc\/self\/fd\/[^']*'/g, '')
    .replace(/^, /, '')
    .replace(/^Unknown error: /, '');
}

/** Drops the answers cached for one key (`auth logout`); how many there were. */
export function dropKeyEntries(env: NodeJS.ProcessEnv, apiKey: string): number {
  const root = openRoot(cacheDir(env), false);
  if (!root) return 0;
  try {
    const secret = secretIn(root, cacheDir(env), false);
    return secret ? emptyKeyFolder(root, keyFolder(secret, apiKey)) : 0;
  } finally {
    root.close();
  }
}

/** The cache's secret as a `--cache` run reads it, changing nothing: whether there is one; throws what that run would warn of (for `doctor`). */
export function hasCacheSecret(env: NodeJS.ProcessEnv): boolean {
  const file = path.join(cacheDir(env), SECRET_FILE);
  return readSecret(file, file) !== undefined;
}
