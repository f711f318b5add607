/**
 * The response cache of `--cache DURATION` and `--refresh`: validated 200
 * answers, one file each, in `$XDG_CACHE_HOME/gymctl` (`~/.cache/gymctl`),
 * the folders 0700 and the files 0600, each written to a temporary file
 * and renamed into place. No file holds the key, or anything from which it
 * could be checked offline: entries are filed under an HMAC of the key,
 * made with a random secret kept in the config folder, and named by an
 * HMAC of the base URL and path. Loaded only when one of the flags is given.
 */
import type { Stats } from 'node:fs';
import type { ResponseCache } from '../api/transport/types.js';
import { GymctlError } from '../api/errors.js';
import { otherOwner } from '../config/ownership.js';
import { homeDir, writeFileAtomic } from '../system.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
const crypto = process.getBuiltinModule('node:crypto');

/** The secret's file, in the config folder (0600). */
const SECRET_FILE = 'cache-secret';

export function cacheDir(env: NodeJS.ProcessEnv): string {
  // The XDG spec: a relative XDG_CACHE_HOME is ignored.
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(homeDir(env), '.cache');
  return path.join(base, 'gymctl');
}

const hmac = (secret: Buffer, text: string) => crypto.createHmac('sha256', secret).update(text).digest('hex');

/** The folder a key's entries are filed in, by an HMAC of the key. */
const keyFolder = (secret: Buffer, apiKey: string) => hmac(secret, `key\u0000${apiKey}`).slice(0, 40);

/**
 * The cache's secret, made on first use: 32 random bytes, written 0600 and
 * linked into place, so that two gymctl starting at once agree on one.
 */
function secretIn(configDir: string, create: boolean): Buffer | undefined {
  const file = path.join(configDir, SECRET_FILE);
  const read = () => {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(text)) throw new GymctlError('internal', `${file} is not a cache secret (64 hex digits): remove it, and gymctl makes a new one`);
    return Buffer.from(text, 'hex');
  };
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (!create) return undefined;
  }
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileAtomic(file, `${crypto.randomBytes(32).toString('hex')}\n`, { keepExisting: true });
  return read();
}

/** The cache folder is the user's own and closed to others (tightened to 0700 if it is not). */
function checkFolder(dir: string): void {
  let stat: Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    return; // made 0700 when first written
  }
  if (!stat.isDirectory()) throw new GymctlError('internal', `cache folder ${dir} is not a folder: remove it, or set XDG_CACHE_HOME`);
  if (otherOwner(stat) !== undefined) {
    throw new GymctlError(
      'internal',
      `cache folder ${dir} belongs to another user (uid ${stat.uid}), so gymctl will not keep answers in it: set XDG_CACHE_HOME to a folder of your own`,
    );
  }
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

export interface CacheOptions {
  env: NodeJS.ProcessEnv;
  configDir: string;
  baseUrl: string;
  apiKey: string;
  /** How old an answer may be to be used; undefined with --refresh alone: never read, only written. */
  lifetimeMs: number | undefined;
  /** Said once when an answer cannot be stored (a full disk): the command goes on. */
  warn: (message: string) => void;
}

export function openCache(options: CacheOptions): ResponseCache {
  const root = cacheDir(options.env);
  checkFolder(root);
  const secret = secretIn(options.configDir, true)!;
  const folder = path.join(root, keyFolder(secret, options.apiKey));
  const fileOf = (apiPath: string) => path.join(folder, `${hmac(secret, `${options.baseUrl}\u0000${apiPath}`).slice(0, 40)}.json`);
  let warned = false;
  return {
    read(apiPath) {
      if (options.lifetimeMs === undefined) return undefined;
      try {
        const entry = JSON.parse(fs.readFileSync(fileOf(apiPath), 'utf8')) as { storedAt?: unknown; body?: unknown };
        const ageMs = Date.now() - Number(entry.storedAt);
        // A missing, torn or foreign entry, or one from the future, is a miss.
        if (typeof entry.body !== 'string' || !(ageMs >= 0 && ageMs < options.lifetimeMs)) return undefined;
        return { body: entry.body, ageMs };
      } catch {
        return undefined;
      }
    },
    write(apiPath, body) {
      try {
        fs.mkdirSync(root, { recursive: true, mode: 0o700 });
        fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
        writeFileAtomic(fileOf(apiPath), JSON.stringify({ storedAt: Date.now(), body }));
      } catch (error) {
        if (!warned) options.warn(`the answer could not be cached in ${root}: ${(error as Error).message}`);
        warned = true;
      }
    },
  };
}

/** Empties the cache; how many answers it held. */
export function clearCache(env: NodeJS.ProcessEnv): { dir: string; removed: number } {
  const dir = cacheDir(env);
  checkFolder(dir);
  let removed = 0;
  let folders: string[] = [];
  try {
    folders = fs.readdirSync(dir);
  } catch {
    return { dir, removed };
  }
  for (const name of folders) {
    const folder = path.join(dir, name);
    try {
      removed += fs.readdirSync(folder).filter((file) => file.endsWith('.json')).length;
    } catch {
      // Not a folder of entries: removed all the same.
    }
    fs.rmSync(folder, { recursive: true, force: true });
  }
  return { dir, removed };
}

/** Drops the answers cached for one key (`auth logout`); how many there were. */
export function dropKeyEntries(env: NodeJS.ProcessEnv, configDir: string, apiKey: string): number {
  const secret = secretIn(configDir, false);
  if (!secret) return 0;
  const folder = path.join(cacheDir(env), keyFolder(secret, apiKey));
  let removed = 0;
  try {
    removed = fs.readdirSync(folder).filter((file) => file.endsWith('.json')).length;
  } catch {
    return 0;
  }
  fs.rmSync(folder, { recursive: true, force: true });
  return removed;
}
