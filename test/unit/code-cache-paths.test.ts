/**
 * Where the code cache (src/startup/code-cache.ts) may make, read and write
 * its folder, and its secret: only through folders and links of the user's
 * own or root's (src/files/trusted-path.ts). The tests that give folders to
 * another user need root.
 */
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CodeCache, codeCacheFor, loadWithCodeCache } from '../../src/startup/code-cache.js';
import { trustedPath } from '../../src/files/trusted-path.js';
import { configDir } from '../../src/config/store.js';
import { needsRoot } from '../helpers/root.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-code-cache-paths-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Changing owners needs root: CI runs as root; elsewhere these tests say so and are skipped. */
const isRoot = needsRoot('the ownership tests of the code cache', 'to give folders to another user');
const OTHER_UID = 65534;

/** A secret as gymctl makes one. */
const SECRET = `${'ab'.repeat(32)}\n`;

/** A folder (made with its parents), 0700 unless told. */
function folder(...parts: string[]): string {
  const dir = path.join(base, ...parts);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A config folder of the user's own holding a secret. */
function ownConfig(): string {
  const dir = folder('own-config');
  writeFileSync(path.join(dir, 'cache-secret'), SECRET, { mode: 0o600 });
  return dir;
}

/** Loads a small CommonJS file through the cache, runs it, and saves the cache; returns whether the cache was taken. */
function run(cache: CodeCache): boolean {
  const file = path.join(base, 'main.cjs');
  writeFileSync(file, 'exports.answer = () => 6 * 7;');
  const loaded = loadWithCodeCache(file, cache);
  expect((loaded.exports as { answer(): number }).answer()).toBe(42);
  loaded.save();
  return loaded.cached;
}

const cacheIn = (dir: string, secretDir = ownConfig()): CodeCache => ({ dir, secretDir, build: 'b1-', name: 'b1-test.v8' });

describe('the path walk', () => {
  it('trusts folders of the user own, links of the user own to them, and parts not there yet', () => {
    const real = folder('real');
    symlinkSync(real, path.join(base, 'link'));
    expect(trustedPath(path.join(base, 'link', 'gymctl-code-cache'))).toBe(true);
    expect(trustedPath(path.join(base, 'missing', 'a', 'b'))).toBe(true);
    // A link to a folder not made yet: what is made is made where it leads, which is checked.
    symlinkSync(path.join(real, 'later'), path.join(base, 'dangling'));
    expect(trustedPath(path.join(base, 'dangling', 'gymctl-code-cache'))).toBe(true);
  });

  it('refuses a folder on the way that everyone may write to, unless it is sticky (as /tmp is)', () => {
    const open = folder('open');
    chmodSync(open, 0o777);
    expect(trustedPath(path.join(open, 'cache', 'gymctl-code-cache'))).toBe(false);
    // Through a link of the user's, the same.
    symlinkSync(open, path.join(base, 'to-open'));
    expect(trustedPath(path.join(base, 'to-open', 'gymctl-code-cache'))).toBe(false);
    chmodSync(open, 0o1777);
    expect(trustedPath(path.join(open, 'cache', 'gymctl-code-cache'))).toBe(true);
  });

  it('refuses a file on the way, and a loop of links', () => {
    writeFileSync(path.join(base, 'file'), '');
    expect(trustedPath(path.join(base, 'file', 'gymctl-code-cache'))).toBe(false);
    symlinkSync(path.join(base, 'b'), path.join(base, 'a'));
    symlinkSync(path.join(base, 'a'), path.join(base, 'b'));
    expect(trustedPath(path.join(base, 'a', 'gymctl-code-cache'))).toBe(false);
  });

  it("signs with the secret in the config folder the config's own code uses", () => {
    for (const env of [
      { HOME: '/home/u' },
      { HOME: '/home/u', XDG_CONFIG_HOME: '/xdg' },
      { HOME: '/home/u', XDG_CONFIG_HOME: 'relative' },
      { HOME: '/home/u', XDG_CONFIG_HOME: '/xdg', GYMCTL_CONFIG_DIR: '/given' },
      { HOME: '/home/u', GYMCTL_CONFIG_DIR: 'relative/config' },
    ]) {
      expect(codeCacheFor(env, 'b', ['whoami'])?.secretDir, JSON.stringify(env)).toBe(configDir(env));
    }
  });
});

describe.skipIf(!isRoot)("as root: nothing made, read or written through another user's folders or links", () => {
  it('refuses a folder of another user on the way, a link of another user, and a link of root to a folder of another user', () => {
    const theirs = folder('theirs');
    chownSync(theirs, OTHER_UID, OTHER_UID);
    expect(trustedPath(path.join(theirs, '.cache', 'gymctl-code-cache'))).toBe(false);
    const mine = folder('mine');
    symlinkSync(mine, path.join(base, 'their-link'));
    lchownSync(path.join(base, 'their-link'), OTHER_UID, OTHER_UID);
    expect(trustedPath(path.join(base, 'their-link', 'gymctl-code-cache'))).toBe(false);
    symlinkSync(theirs, path.join(base, 'my-link'));
    expect(trustedPath(path.join(base, 'my-link', 'gymctl-code-cache'))).toBe(false);
    expect(trustedPath(path.join(mine, 'gymctl-code-cache'))).toBe(true);
  });

  it("makes no code cache folder inside a folder of root's that another user linked as their ~/.cache", () => {
    // The user's home, and their ~/.cache: a link to a folder of root's.
    const home = folder('home');
    chownSync(home, OTHER_UID, OTHER_UID);
    const target = folder('root-owned');
    symlinkSync(target, path.join(home, '.cache'));
    lchownSync(path.join(home, '.cache'), OTHER_UID, OTHER_UID);
    expect(run(cacheIn(path.join(home, '.cache', 'gymctl-code-cache')))).toBe(false);
    expect(readdirSync(target)).toEqual([]);
    // The same link in a home of root's: the link is still the other user's.
    const rootHome = folder('root-home');
    symlinkSync(target, path.join(rootHome, '.cache'));
    lchownSync(path.join(rootHome, '.cache'), OTHER_UID, OTHER_UID);
    expect(run(cacheIn(path.join(rootHome, '.cache', 'gymctl-code-cache')))).toBe(false);
    expect(readdirSync(target)).toEqual([]);
  });

  it("neither reads nor writes a code cache folder of root's inside another user's home (root with their XDG_CACHE_HOME)", () => {
    const home = folder('home');
    const dir = folder('home', '.cache', 'gymctl-code-cache');
    chownSync(home, OTHER_UID, OTHER_UID);
    chownSync(path.dirname(dir), OTHER_UID, OTHER_UID);
    expect(run(cacheIn(dir))).toBe(false);
    expect(run(cacheIn(dir))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("makes no secret in another user's config folder (root with their HOME), and so no cache", () => {
    const home = folder('home');
    chownSync(home, OTHER_UID, OTHER_UID);
    const config = path.join(home, '.config', 'gymctl');
    const dir = path.join(folder('root-cache'), 'gymctl-code-cache');
    expect(run(cacheIn(dir, config))).toBe(false);
    expect(run(cacheIn(dir, config))).toBe(false);
    expect(existsSync(path.join(home, '.config'))).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it("takes no secret of another user's, even in a config folder of root's", () => {
    const config = ownConfig();
    chownSync(path.join(config, 'cache-secret'), OTHER_UID, OTHER_UID);
    const dir = path.join(folder('root-cache'), 'gymctl-code-cache');
    expect(run(cacheIn(dir, config))).toBe(false);
    expect(run(cacheIn(dir, config))).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
