/**
 * The code cache of the main file (src/boot/code-cache.ts): taken when it
 * is whole and the user's own, and otherwise ignored and rewritten, never
 * trusted. Each test loads a small CommonJS file through it, as
 * bin/gymctl.cjs loads dist/gymctl.cjs.
 */
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CodeCache, checksum, codeCacheFor, frame, loadWithCodeCache, unframe } from '../../src/boot/code-cache.js';
import { idCommands, readCommands } from '../../src/operations/declare.js';
import { OPERATIONS } from '../../src/operations/index.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A CommonJS file and a cache folder for it, in a fresh temporary folder. */
function fixture(source = 'exports.answer = () => 6 * 7; exports.self = require.cache[__filename] === module;') {
  const root = mkdtempSync(path.join(tmpdir(), 'gymctl-code-cache-'));
  folders.push(root);
  const file = path.join(root, 'main.cjs');
  writeFileSync(file, source);
  const cache: CodeCache = { dir: path.join(root, 'cache', 'gymctl-code-cache'), build: 'b1-', name: `b1-${process.version}-test.v8` };
  return { root, file, cache, cacheFile: path.join(cache.dir, cache.name) };
}

/** Loads the file as the bin does, runs it, and saves the cache. */
function run(file: string, cache: CodeCache) {
  const loaded = loadWithCodeCache(file, cache);
  const exports = loaded.exports as { answer(): number; self: boolean };
  expect(exports.answer()).toBe(42);
  loaded.save();
  return loaded;
}

describe('the code cache frame', () => {
  it('gives back what V8 made, and nothing from a file cut short or changed by one byte', () => {
    const data = Buffer.from(Array.from({ length: 1001 }, (_, i) => (i * 31) % 256));
    const framed = frame(data);
    expect(unframe(framed)?.equals(data)).toBe(true);
    expect(unframe(framed.subarray(0, framed.length - 1))).toBeUndefined();
    const changed = Buffer.from(framed);
    changed[framed.length - 500]! ^= 1;
    expect(unframe(changed)).toBeUndefined();
    expect(unframe(Buffer.from('not a cache at all'))).toBeUndefined();
    expect(checksum(data)).not.toBe(checksum(changed.subarray(16)));
  });
});

describe('loading through the code cache', () => {
  it('writes the cache after the first run (0600, in a 0700 folder) and takes it on the next', () => {
    const { file, cache, cacheFile } = fixture();
    const first = run(file, cache);
    expect(first.cached).toBe(false);
    expect((first.exports as { self: boolean }).self).toBe(true);
    expect(lstatSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(lstatSync(cache.dir).mode & 0o777).toBe(0o700);
    const written = readFileSync(cacheFile);
    const second = run(file, cache);
    expect(second.cached).toBe(true);
    // Taken, so not written again.
    expect(readFileSync(cacheFile).equals(written)).toBe(true);
  });

  it('ignores a corrupt cache, and rewrites it', () => {
    const { file, cache, cacheFile } = fixture();
    run(file, cache);
    const bytes = readFileSync(cacheFile);
    bytes[bytes.length - 100]! ^= 0xff;
    writeFileSync(cacheFile, bytes, { mode: 0o600 });
    const loaded = run(file, cache);
    expect(loaded.cached).toBe(false);
    expect(unframe(readFileSync(cacheFile))).toBeDefined();
    expect(run(file, cache).cached).toBe(true);
  });

  it('ignores a cache V8 rejects (made for another source of the same name), and rewrites it', () => {
    const { file, cache, cacheFile } = fixture();
    run(file, cache);
    const before = readFileSync(cacheFile);
    writeFileSync(file, 'exports.answer = () => 42; exports.self = true; // another build');
    const loaded = run(file, cache);
    expect(loaded.cached).toBe(false);
    expect(readFileSync(cacheFile).equals(before)).toBe(false);
    expect(run(file, cache).cached).toBe(true);
  });

  it("ignores a cache file others may write, or that is another user's, and replaces it with one of the user's own", () => {
    const { file, cache, cacheFile } = fixture();
    run(file, cache);
    // As root, the file is handed to another user; otherwise it is opened to everyone's writing: neither is trusted.
    if (process.getuid?.() === 0) chownSync(cacheFile, 65534, 65534);
    else chmodSync(cacheFile, 0o666);
    expect(run(file, cache).cached).toBe(false);
    const stat = lstatSync(cacheFile);
    expect(stat.uid).toBe(process.getuid?.());
    expect(stat.mode & 0o777).toBe(0o600);
    expect(run(file, cache).cached).toBe(true);
  });

  it('neither reads nor writes a cache folder that is a link or open to others', () => {
    const { root, file, cache } = fixture();
    const elsewhere = path.join(root, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    mkdirSync(path.dirname(cache.dir), { recursive: true });
    symlinkSync(elsewhere, cache.dir);
    expect(run(file, cache).cached).toBe(false);
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(cache.dir);
    mkdirSync(cache.dir, { mode: 0o755 });
    chmodSync(cache.dir, 0o755);
    expect(run(file, cache).cached).toBe(false);
    expect(readdirSync(cache.dir)).toEqual([]);
  });

  it("removes other builds' caches not written for a day, and leftovers of stopped writers, when it writes one", () => {
    const { file, cache } = fixture();
    mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    const old = new Date(Date.now() - 2 * 24 * 60 * 60_000);
    for (const name of ['b0-old-build.v8', `${cache.name}.123.abc.tmp`]) {
      writeFileSync(path.join(cache.dir, name), 'stale', { mode: 0o600 });
      utimesSync(path.join(cache.dir, name), old, old);
    }
    // Another gymctl's, in use beside this one: kept.
    writeFileSync(path.join(cache.dir, 'b2-beside.v8'), 'in use', { mode: 0o600 });
    run(file, cache);
    expect(readdirSync(cache.dir).sort()).toEqual(['b2-beside.v8', cache.name].sort());
  });

  it('is named after the build, Node, the flags and the command, and can be turned off', () => {
    const env = { XDG_CACHE_HOME: '/x' };
    const commands = { read: readCommands(OPERATIONS), ids: idCommands(OPERATIONS) };
    const whoami = codeCacheFor(env, 'abc', ['whoami', '--json'], commands)!;
    expect(whoami.dir).toBe(path.join('/x', 'gymctl-code-cache'));
    expect(whoami.name).toContain(`abc-${process.version}-${process.arch}-`);
    expect(whoami.name).toMatch(/-whoami\.v8$/);
    expect(codeCacheFor(env, 'abc', ['--profile', 'work', 'academy', '1'], commands)!.name).toMatch(/-academy\.v8$/);
    expect(codeCacheFor(env, 'abc', ['family', '-'], commands)!.name).toMatch(/-family-batch\.v8$/);
    expect(codeCacheFor(env, 'abc', ['api', '/me'], commands)!.name).toMatch(/-api\.v8$/);
    expect(codeCacheFor(env, 'abc', ['auth', 'status'], commands)!.name).toMatch(/-other\.v8$/);
    expect(codeCacheFor({ ...env, GYMCTL_NO_CODE_CACHE: '1' }, 'abc', ['whoami'], commands)).toBeUndefined();
  });
});
