/**
 * The V8 code cache of gymctl's main file (CONTRIBUTING.md, "How gymctl
 * starts"). The cache is code, and V8 checks only the source's length: a
 * file is handed to V8 only when it is signed with the user's key (frame.ts,
 * secret.ts), in a folder of the user's own closed to others, reached
 * through no one else's folder or link, in a file of the user's own.
 * Anything else is ignored, and rewritten when the folder is the user's.
 * Nothing here ever fails a command: a cache that cannot be read or written
 * costs time, nothing else.
 */
import { scanArgv } from '../argv.js';
import { codeCacheDir, configDir } from '../files/folders.js';
import { currentUid, modesApply, NO_FOLLOW, openFolder, refuseLink } from '../files/system.js';
import { writeFileAtomic } from '../files/moves.js';
import { makeFolders, trustedPath } from '../files/trusted-path.js';
import { frame, unframe } from './frame.js';
import { readSecret, secretToSign } from './secret.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
const vm = process.getBuiltinModule('node:vm');
/** Node's CommonJS Module class, as this file's own module has it: `node:module` would load Node's ES module loader too. */
const ownModule = typeof module === 'object' ? (module.constructor as unknown as typeof import('node:module') | undefined) : undefined;
const nodeModule = typeof ownModule?.createRequire === 'function' ? ownModule : process.getBuiltinModule('node:module');

export interface CodeCache {
  dir: string;
  /** The folder of the secret the files are signed with (the config folder). */
  secretDir: string;
  /** The cache file's name: the build, Node, the command. */
  name: string;
  /** What every file of this build's caches starts with (the files of other builds are removed when one is written). */
  build: string;
}

/**
 * Where the cache of this build, this Node and this command is; undefined
 * when it is turned off (GYMCTL_NO_CODE_CACHE=1). The command is the one
 * argv names (the pre-scan's), or `other`: a cache is written only after a
 * run that succeeded (boot.ts), so only real commands get one.
 */
export function codeCacheFor(env: NodeJS.ProcessEnv, buildOrSource: string | { source: string }, argv: readonly string[]): CodeCache | undefined {
  if (env.GYMCTL_NO_CODE_CACHE === '1') return undefined;
  const build = typeof buildOrSource === 'string' ? buildOrSource : buildOf(buildOrSource.source);
  const { command } = scanArgv(argv);
  const named = command !== undefined && /^[a-z][a-z-]{0,31}$/.test(command) ? command : 'other';
  let folders: { dir: string; secretDir: string };
  try {
    folders = { dir: codeCacheDir(env), secretDir: configDir(env) };
  } catch {
    // No home folder to find them in (files/system.ts, homeDir): no cache, and the command says why, if it needs one.
    return undefined;
  }
  return { ...folders, build: `${build}-`, name: `${build}-${process.version}-${process.arch}-${named}.v8` };
}

/** A build's name (from its source, when the cache is on): the first 16 hex digits of the source's SHA-256 (V8 itself checks only its length). */
export const buildOf = (source: string): string => process.getBuiltinModule('node:crypto').createHash('sha256').update(source).digest('hex').slice(0, 16);

/** A stat that is the user's own and closed to others' writing (and, for the folder, reading); on Windows, where neither uids nor modes say so, the user's profile folder is what keeps others out. */
const ownClosed = (stat: import('node:fs').Stats, mask: number) => (currentUid() === undefined || stat.uid === currentUid()) && (!modesApply() || (stat.mode & mask) === 0);

/** The largest cache file read: far beyond any real one. */
const MAX_BYTES = 64 * 1024 * 1024;

/** The cache, when it is there and may be trusted. */
function readCodeCache(cache: CodeCache): Buffer | undefined {
  try {
    const secret = readSecret(cache.secretDir);
    if (!Buffer.isBuffer(secret) || !trustedPath(cache.dir)) return undefined;
    const folder = openFolder(cache.dir);
    if (!folder) return undefined;
    try {
      if (!folder.stat.isDirectory() || !ownClosed(folder.stat, 0o077)) return undefined;
      const file = path.join(folder.path, cache.name);
      refuseLink(file);
      const fd = fs.openSync(file, fs.constants.O_RDONLY | NO_FOLLOW | (fs.constants.O_NONBLOCK ?? 0));
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile() || !ownClosed(stat, 0o022) || stat.size > MAX_BYTES) return undefined;
        // A file cut short, or grown, since fstat fails the frame's check of the length.
        return unframe(fs.readFileSync(fd), cache.name, secret);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      folder.close();
    }
  } catch {
    return undefined;
  }
}

/** Leftovers of writers that were stopped are removed when they are this old. */
const LEFTOVER_MS = 60_000;

/** Other builds' caches are removed when they are this old: an old version's, after an upgrade; not those of another gymctl installed beside this one, in use. */
const OTHER_BUILD_MS = 24 * 60 * 60_000;

/** This build's caches are removed when they were written this long ago (a command still in use writes its file again on its next run). */
export const MAX_AGE_MS = 30 * 24 * 60 * 60_000;

/** The most cache files kept, the newest written: one per command used and Node, at about 300 KB a file. */
export const MAX_FILES = 16;

/**
 * Writes the cache (atomically, signed; `data` is asked for only then) in a folder of the user's own, and prunes
 * the folder: leftovers of stopped writers, other builds' caches not written for a day, any not written for
 * MAX_AGE_MS, then the oldest beyond MAX_FILES. Only when a file is written, so the usual run pays nothing for it.
 */
function writeCodeCache(cache: CodeCache, data: () => Buffer): void {
  try {
    // Only through folders and links of the user's (or root's): as root with another user's HOME, or through a
    // parent folder another user linked elsewhere, nothing is made or written.
    if (!trustedPath(cache.dir)) return;
    const secret = secretToSign(cache.secretDir);
    if (!secret) return;
    makeFolders(cache.dir);
    const folder = openFolder(cache.dir);
    if (!folder) return;
    try {
      if (!folder.stat.isDirectory() || !ownClosed(folder.stat, 0o077)) return;
      writeFileAtomic(path.join(folder.path, cache.name), frame(data(), cache.name, secret));
      prune(folder.path, cache);
    } finally {
      folder.close();
    }
  } catch {
    // A cache that cannot be written costs the next run time, nothing else.
  }
}

/** Removes what writeCodeCache says, in the opened folder `dir`; never the file just written. */
function prune(dir: string, cache: CodeCache): void {
  const now = Date.now();
  const kept: { file: string; written: number }[] = [];
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    const cacheFile = name.endsWith('.v8');
    if (!cacheFile && !name.endsWith('.tmp')) continue;
    const written = fs.lstatSync(file).mtimeMs;
    const age = cacheFile ? (name.startsWith(cache.build) ? MAX_AGE_MS : OTHER_BUILD_MS) : LEFTOVER_MS;
    if (name !== cache.name && now - written > age) fs.rmSync(file, { force: true });
    else if (cacheFile) kept.push({ file, written: name === cache.name ? Number.POSITIVE_INFINITY : written });
  }
  kept.sort((a, b) => b.written - a.written);
  for (const { file } of kept.slice(MAX_FILES)) fs.rmSync(file, { force: true });
}

export interface LoadedFile {
  exports: unknown;
  /** V8 took the code cache. */
  cached: boolean;
  /** Writes the cache, once the command has run, when there was none that V8 took. */
  save(): void;
}

/** Loads a CommonJS file as Node would (its own `module`, `require` and place in require.cache, so that side files can require it back), with the code cache when V8 takes it. */
export function loadWithCodeCache(file: string, cacheOf: CodeCache | undefined | ((source: string) => CodeCache | undefined)): LoadedFile {
  const source = fs.readFileSync(file, 'utf8');
  const cache = typeof cacheOf === 'function' ? cacheOf(source) : cacheOf;
  const cachedData = cache && readCodeCache(cache);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, { filename: file, cachedData });
  const stale = cache !== undefined && (cachedData === undefined || script.cachedDataRejected === true);
  const loaded = new nodeModule(file);
  loaded.filename = file;
  const requireHere = nodeModule.createRequire(file);
  requireHere.cache[file] = loaded;
  (script.runInThisContext() as (...args: unknown[]) => void).call(loaded.exports, loaded.exports, requireHere, loaded, file, path.dirname(file));
  loaded.loaded = true;
  return {
    exports: loaded.exports,
    cached: cachedData !== undefined && script.cachedDataRejected !== true,
    save() {
      // What V8 made is asked for only when it can be written: it takes milliseconds.
      if (stale) writeCodeCache(cache!, () => script.createCachedData());
    },
  };
}
