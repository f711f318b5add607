/**
 * The code cache of the main file (src/startup/code-cache.ts): taken when it
 * is signed with the user's key and is the user's own, and otherwise
 * ignored and rewritten, never trusted. Each test loads a small CommonJS
 * file through it, as bin/gymctl.cjs loads dist/gymctl.cjs.
 */
import { createHmac } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildOf, type CodeCache, codeCacheFor, loadWithCodeCache, MAX_AGE_MS, MAX_FILES } from '../../src/startup/code-cache.js';
import { frame, signingKey, unframe } from '../../src/startup/frame.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  delete (globalThis as { gymctlCrafted?: number }).gymctlCrafted;
});

const SOURCE = 'exports.answer = () => 6 * 7; exports.self = require.cache[__filename] === module;';

/** A CommonJS file, a cache folder and a config folder (for the secret) for it, in a fresh temporary folder. */
function fixture(source = SOURCE) {
  const root = mkdtempSync(path.join(tmpdir(), 'gymctl-code-cache-'));
  folders.push(root);
  const file = path.join(root, 'main.cjs');
  writeFileSync(file, source);
  const cache: CodeCache = {
    dir: path.join(root, 'cache', 'gymctl-code-cache'),
    secretDir: path.join(root, 'config'),
    build: 'b1-',
    name: `b1-${process.version}-test.v8`,
  };
  return { root, file, cache, cacheFile: path.join(cache.dir, cache.name), secretFile: path.join(root, 'config', 'cache-secret') };
}

/** Loads the file as the bin does, runs it, and saves the cache. */
function run(file: string, cache: CodeCache) {
  const loaded = loadWithCodeCache(file, cache);
  const exports = loaded.exports as { answer(): number; self: boolean };
  expect(exports.answer()).toBe(42);
  loaded.save();
  return loaded;
}

/** A secret as the config folder holds one: 64 hex digits. */
const secretText = (fill: number) => `${Buffer.alloc(32, fill).toString('hex')}\n`;
/** The secret of a config folder, as an attacker who cannot read it would guess it. */
const ANOTHER_SECRET = Buffer.alloc(32, 0xee);
/** The secret in `file`. */
const secretIn = (file: string) => Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');

describe('the code cache frame', () => {
  const secret = Buffer.alloc(32, 7);

  it('gives back what V8 made, and nothing from a file cut short or changed by one byte', () => {
    const data = Buffer.from(Array.from({ length: 1001 }, (_, i) => (i * 31) % 256));
    const framed = frame(data, 'a.v8', secret);
    expect(unframe(framed, 'a.v8', secret)?.equals(data)).toBe(true);
    expect(unframe(framed.subarray(0, framed.length - 1), 'a.v8', secret)).toBeUndefined();
    // A byte changed anywhere (what V8 made, the signature, the length) undoes it.
    for (const at of [framed.length - 500, framed.length - 1, 20, 44, 12]) {
      const changed = Buffer.from(framed);
      changed[at]! ^= 1;
      expect(unframe(changed, 'a.v8', secret), `byte ${at}`).toBeUndefined();
    }
    expect(unframe(Buffer.from('not a cache at all'), 'a.v8', secret)).toBeUndefined();
  });

  it('is good only with the secret it was signed with, and under the name it was signed for', () => {
    const data = Buffer.from('what V8 made');
    const framed = frame(data, 'a.v8', secret);
    expect(unframe(framed, 'a.v8', ANOTHER_SECRET)).toBeUndefined();
    expect(unframe(framed, 'b.v8', secret)).toBeUndefined();
    // Re-signed by someone without the secret: no good either.
    expect(unframe(frame(data, 'a.v8', ANOTHER_SECRET), 'a.v8', secret)).toBeUndefined();
  });

  it('takes no file of the first format (a length and a checksum, unsigned)', () => {
    const data = Buffer.alloc(200, 0x41);
    const header = Buffer.alloc(16);
    header.write('gymctlV8');
    header.writeUInt32LE(data.length, 8);
    header.writeUInt32LE(0x12345678, 12);
    expect(unframe(Buffer.concat([header, data]), 'a.v8', secret)).toBeUndefined();
  });
});

/** A frame made by hand, signed as a holder of the secret would sign it: head fields as given, then the signature, then the data. */
function signedFrame(fields: { magic?: string; format?: number; length?: number }, data: Buffer, name: string, secret: Buffer): Buffer {
  const head = Buffer.alloc(16);
  head.write(fields.magic ?? 'gymctlV8', 'latin1');
  head.writeUInt32LE(fields.format ?? 2, 8);
  head.writeUInt32LE(fields.length ?? data.length, 12);
  const key = createHmac('sha256', secret).update('gymctl code cache signing key, format 2').digest();
  return Buffer.concat([head, createHmac('sha256', key).update(head).update(`${name}\u0000`).update(data).digest(), data]);
}

describe('the code cache frame, byte by byte', () => {
  const secret = Buffer.alloc(32, 7);
  const data = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37) % 256));

  it('is the magic, the format, the length, an HMAC-SHA256 with a key made from the secret, then what V8 made: a file of this format stays good from one version to the next', () => {
    const framed = frame(data, 'a.v8', secret);
    expect(framed.length).toBe(48 + data.length);
    expect(framed.subarray(0, 8).toString('latin1')).toBe('gymctlV8');
    expect(framed.readUInt32LE(8)).toBe(2);
    expect(framed.readUInt32LE(12)).toBe(data.length);
    expect(framed.subarray(48).equals(data)).toBe(true);
    expect(framed.equals(signedFrame({}, data, 'a.v8', secret))).toBe(true);
    expect(signingKey(secret).equals(createHmac('sha256', secret).update('gymctl code cache signing key, format 2').digest())).toBe(true);
    // The key is not the secret, nor an HMAC over a text with a NUL in it (the response cache's).
    expect(signingKey(secret).equals(secret)).toBe(false);
    expect(unframe(signedFrame({}, data, 'a.v8', secret), 'a.v8', secret)?.equals(data)).toBe(true);
    // Nothing at all to cache is framed too.
    expect(unframe(frame(Buffer.alloc(0), 'a.v8', secret), 'a.v8', secret)?.length).toBe(0);
  });

  it('takes nothing with any one byte of the head or the signature changed, or a byte of what V8 made', () => {
    const framed = frame(data, 'a.v8', secret);
    for (let at = 0; at < framed.length; at++) {
      for (const flip of [0x01, 0x80]) {
        const changed = Buffer.from(framed);
        changed[at]! ^= flip;
        expect(unframe(changed, 'a.v8', secret), `byte ${at} ^ ${flip}`).toBeUndefined();
      }
    }
  });

  it('takes no frame of another magic, another format or a length that is not the data’s, even when it is signed with the user’s key', () => {
    for (const fields of [{ magic: 'gymctlV9' }, { magic: 'Gymctlv8' }, { format: 1 }, { format: 3 }, { length: data.length - 1 }, { length: data.length + 1 }, { length: 0 }]) {
      expect(unframe(signedFrame(fields, data, 'a.v8', secret), 'a.v8', secret), JSON.stringify(fields)).toBeUndefined();
    }
  });

  it('takes no frame cut short anywhere, and never throws on one, nor loads crypto for it', () => {
    const getBuiltin = vi.spyOn(process, 'getBuiltinModule');
    try {
      for (const framed of [frame(Buffer.alloc(0), 'a.v8', secret), frame(data, 'a.v8', secret)]) {
        for (let length = 0; length < framed.length; length++) {
          expect(unframe(framed.subarray(0, length), 'a.v8', secret), `${length} of ${framed.length} bytes`).toBeUndefined();
        }
      }
      // A head of another magic or format is refused before any signature is worked out.
      const refused = [signedFrame({ format: 3 }, data, 'a.v8', secret), signedFrame({ magic: 'gymctlV9' }, data, 'a.v8', secret), frame(data, 'a.v8', secret).subarray(0, 47)];
      getBuiltin.mockClear();
      for (const bytes of refused) expect(unframe(bytes, 'a.v8', secret)).toBeUndefined();
      expect(getBuiltin.mock.calls.filter(([name]) => name === 'node:crypto')).toEqual([]);
    } finally {
      getBuiltin.mockRestore();
    }
  });

  it('a frame made with another secret, or for another name, is not good: not even with the names’ bytes moved across the NUL', () => {
    const other = Buffer.from(secret);
    other[31]! ^= 1;
    expect(unframe(frame(data, 'a.v8', other), 'a.v8', secret)).toBeUndefined();
    expect(unframe(frame(data, 'a.v8', secret), 'a.v8', other)).toBeUndefined();
    // The name ends with a NUL in what is signed: "a.v8" + data "\0x…" is not "a.v8\0" + "x…".
    const shifted = Buffer.concat([Buffer.from([0]), data]);
    expect(unframe(signedFrame({ length: data.length }, shifted.subarray(1), 'a.v8', secret), 'a.v8', secret)?.equals(data)).toBe(true);
    expect(unframe(frame(data, 'a.v8', secret), 'a.v8\u0000', secret)).toBeUndefined();
  });
});

describe('loading through the code cache', () => {
  it('writes the cache after the first run (0600, in a 0700 folder), signed with a secret it makes in the config folder, and takes it on the next', () => {
    const { file, cache, cacheFile, secretFile } = fixture();
    const first = run(file, cache);
    expect(first.cached).toBe(false);
    expect((first.exports as { self: boolean }).self).toBe(true);
    expect(lstatSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(lstatSync(cache.dir).mode & 0o777).toBe(0o700);
    // The secret is made as the response cache makes its own: 64 hex digits, 0600, in a 0700 folder.
    expect(readFileSync(secretFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(lstatSync(secretFile).mode & 0o777).toBe(0o600);
    expect(lstatSync(cache.secretDir).mode & 0o777).toBe(0o700);
    expect(unframe(readFileSync(cacheFile), cache.name, secretIn(secretFile))).toBeDefined();
    const written = readFileSync(cacheFile);
    const second = run(file, cache);
    expect(second.cached).toBe(true);
    // Taken, so not written again.
    expect(readFileSync(cacheFile).equals(written)).toBe(true);
  });

  it('ignores a corrupt cache, and rewrites it', () => {
    const { file, cache, cacheFile, secretFile } = fixture();
    run(file, cache);
    const bytes = readFileSync(cacheFile);
    bytes[bytes.length - 100]! ^= 0xff;
    writeFileSync(cacheFile, bytes, { mode: 0o600 });
    const loaded = run(file, cache);
    expect(loaded.cached).toBe(false);
    expect(unframe(readFileSync(cacheFile), cache.name, secretIn(secretFile))).toBeDefined();
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

  it("never runs a crafted file whose frame is whole but whose signature is not the user's: its top level does not run", () => {
    // V8 checks only the length of the source a cache was made for: a cache made from other code of the same length is
    // taken, and that code runs as the file's. Here the other code counts its runs in a global.
    const source = `${SOURCE} /*${' '.repeat(200)}*/`;
    const { file, cache, cacheFile, secretFile } = fixture(source);
    // The folders and the user's secret as a run leaves them, with no run: V8 would take this process's own
    // compilation of the source (its in-memory cache) over any code cache.
    mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    mkdirSync(cache.secretDir, { mode: 0o700 });
    writeFileSync(secretFile, secretText(5), { mode: 0o600 });
    const evil = 'globalThis.gymctlCrafted = (globalThis.gymctlCrafted ?? 0) + 1; exports.answer = () => 42;';
    const wrap = (text: string) => `(function (exports, require, module, __filename, __dirname) { ${text}\n})`;
    const crafted = new vm.Script(wrap(evil.padEnd(source.length)), { filename: file });
    expect(wrap(evil.padEnd(source.length)).length).toBe(wrap(source).length);
    // Run once, as gymctl's own code runs before its cache is made, so that the cache holds the crafted code compiled.
    (crafted.runInThisContext() as (...args: unknown[]) => void)({}, undefined, {}, file, path.dirname(file));
    expect((globalThis as { gymctlCrafted?: number }).gymctlCrafted).toBe(1);
    delete (globalThis as { gymctlCrafted?: number }).gymctlCrafted;
    // Signed with a key other than the user's, as anyone who can write to the cache folder but not read the secret must.
    writeFileSync(cacheFile, frame(crafted.createCachedData(), cache.name, ANOTHER_SECRET), { mode: 0o600 });
    const loaded = loadWithCodeCache(file, cache);
    expect((globalThis as { gymctlCrafted?: number }).gymctlCrafted).toBeUndefined();
    expect(loaded.cached).toBe(false);
    expect((loaded.exports as { answer(): number }).answer()).toBe(42);
    loaded.save();
    // Replaced by a file of the user's, signed with the user's secret.
    expect(unframe(readFileSync(cacheFile), cache.name, secretIn(secretFile))).toBeDefined();
    expect(run(file, cache).cached).toBe(true);
    expect((globalThis as { gymctlCrafted?: number }).gymctlCrafted).toBeUndefined();
  });

  it('does not take a file with a byte changed and framed again by someone without the secret, and rewrites it', () => {
    const { file, cache, cacheFile, secretFile } = fixture();
    run(file, cache);
    const data = Buffer.from(unframe(readFileSync(cacheFile), cache.name, secretIn(secretFile))!);
    // A byte V8 does not check: without the signature the changed cache would be taken (and such a change crashed later runs).
    data[data.length - 8]! ^= 0x41;
    const reframed = frame(data, cache.name, ANOTHER_SECRET);
    writeFileSync(cacheFile, reframed, { mode: 0o600 });
    const loaded = run(file, cache);
    expect(loaded.cached).toBe(false);
    expect(readFileSync(cacheFile).equals(reframed)).toBe(false);
    expect(run(file, cache).cached).toBe(true);
  });

  it("rejects a file signed with another user's secret, and replaces it with one of the user's own", () => {
    const mine = fixture();
    const theirs = fixture();
    // Each user's run makes a secret of their own: the other user's file is whole and signed, but not with this user's key.
    run(mine.file, mine.cache);
    run(theirs.file, { ...theirs.cache, name: mine.cache.name });
    expect(readFileSync(mine.secretFile).equals(readFileSync(theirs.secretFile))).toBe(false);
    const signedByThem = readFileSync(path.join(theirs.cache.dir, mine.cache.name));
    writeFileSync(mine.cacheFile, signedByThem, { mode: 0o600 });
    expect(run(mine.file, mine.cache).cached).toBe(false);
    expect(readFileSync(mine.cacheFile).equals(signedByThem)).toBe(false);
    expect(run(mine.file, mine.cache).cached).toBe(true);
  });

  it('goes without a cache, and leaves the secret as it is, when the secret is not one to trust (open to others, or not 64 hex digits)', () => {
    for (const [text, mode] of [
      [secretText(1), 0o644],
      ['not a secret\n', 0o600],
    ] as const) {
      const { file, cache, secretFile } = fixture();
      mkdirSync(cache.secretDir, { mode: 0o700 });
      writeFileSync(secretFile, text, { mode });
      chmodSync(secretFile, mode);
      // Nor is V8's cache made (it takes milliseconds) when it could not be written.
      const made = vi.spyOn(vm.Script.prototype, 'createCachedData');
      expect(run(file, cache).cached).toBe(false);
      expect(run(file, cache).cached).toBe(false);
      expect(made).not.toHaveBeenCalled();
      made.mockRestore();
      expect(existsSync(cache.dir)).toBe(false);
      expect(readFileSync(secretFile, 'utf8')).toBe(text);
      expect(lstatSync(secretFile).mode & 0o777).toBe(mode);
    }
  });

  it('takes the secret the config folder already has, and signs with it', () => {
    const { file, cache, cacheFile, secretFile } = fixture();
    mkdirSync(cache.secretDir, { mode: 0o700 });
    writeFileSync(secretFile, secretText(3), { mode: 0o600 });
    run(file, cache);
    expect(readFileSync(secretFile, 'utf8')).toBe(secretText(3));
    expect(unframe(readFileSync(cacheFile), cache.name, Buffer.alloc(32, 3))).toBeDefined();
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

  it(`keeps at most ${MAX_FILES} files, the newest written, and none of this build written more than 30 days ago, when it writes one`, () => {
    const { file, cache } = fixture();
    mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    // Files of this build under other flags and commands, one a minute older than the last; and one past the age limit.
    const names = Array.from({ length: MAX_FILES + 4 }, (_, i) => `${cache.build}${process.version}-flags${i}-whoami.v8`);
    names.forEach((name, i) => {
      writeFileSync(path.join(cache.dir, name), 'cache', { mode: 0o600 });
      utimesSync(path.join(cache.dir, name), minutesAgo(i + 1), minutesAgo(i + 1));
    });
    const tooOld = `${cache.build}${process.version}-flags-old-api.v8`;
    writeFileSync(path.join(cache.dir, tooOld), 'cache', { mode: 0o600 });
    utimesSync(path.join(cache.dir, tooOld), new Date(Date.now() - MAX_AGE_MS - 60_000), new Date(Date.now() - MAX_AGE_MS - 60_000));
    // Not a cache file: left alone.
    writeFileSync(path.join(cache.dir, 'notes.txt'), 'mine', { mode: 0o600 });
    run(file, cache);
    expect(readdirSync(cache.dir).sort()).toEqual([cache.name, 'notes.txt', ...names.slice(0, MAX_FILES - 1)].sort());
  });

  it('prunes nothing on a run that takes its cache', () => {
    const { file, cache } = fixture();
    run(file, cache);
    const extra = Array.from({ length: MAX_FILES + 2 }, (_, i) => `${cache.build}${process.version}-flags${i}-whoami.v8`);
    for (const name of extra) writeFileSync(path.join(cache.dir, name), 'cache', { mode: 0o600 });
    expect(run(file, cache).cached).toBe(true);
    expect(readdirSync(cache.dir)).toHaveLength(extra.length + 1);
  });

  it('is named after the build (its source), Node and the command, and can be turned off', () => {
    const env = { XDG_CACHE_HOME: '/x' };
    const whoami = codeCacheFor(env, 'abc', ['whoami', '--json'])!;
    expect(whoami.dir).toBe(path.join('/x', 'gymctl-code-cache'));
    expect(codeCacheFor({ ...env, GYMCTL_CONFIG_DIR: '/c' }, 'abc', ['whoami'])!.secretDir).toBe(path.resolve('/c'));
    expect(whoami.name).toBe(`abc-${process.version}-${process.arch}-whoami.v8`);
    expect(codeCacheFor(env, 'abc', ['--profile', 'work', 'academy', '1'])!.name).toMatch(/-academy\.v8$/);
    expect(codeCacheFor(env, 'abc', ['api', '/me'])!.name).toMatch(/-api\.v8$/);
    expect(codeCacheFor(env, 'abc', ['auth', 'status'])!.name).toMatch(/-auth\.v8$/);
    expect(codeCacheFor(env, 'abc', ['-q', '.name'])!.name).toMatch(/-other\.v8$/);
    expect(codeCacheFor({ ...env, GYMCTL_NO_CODE_CACHE: '1' }, 'abc', ['whoami'])).toBeUndefined();
    expect(buildOf('a')).not.toBe(buildOf('b'));
    expect(buildOf('a')).toMatch(/^[0-9a-f]{16}$/);
  });
});
