/**
 * The path walk (every part of a folder's path, links followed, must be
 * the user's or root's) and makeFolders (mkdir -p without Node's recursive
 * mkdir, which loops on procfs and names ENOENT for a read-only file
 * system). A made-up file system, handed in, plays other users without
 * root; the real one, where changing owners needs root, and /proc.
 */
import { chmodSync, chownSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeUntrusted, makeFolders, type PathSystem, untrustedPart } from '../../src/trusted-path.js';

interface Entry {
  uid: number;
  mode?: number;
  link?: string;
  file?: boolean;
}

/** A file system of folders, files and links with owners, as the walk sees it; ENOENT for the rest. */
function fakeSystem(uid: number, entries: Record<string, Entry>): PathSystem & { made: string[] } {
  const made: string[] = [];
  const entry = (file: string) => {
    const found = file === '/' ? { uid: 0, mode: 0o755 } : entries[file];
    if (!found) throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
    return found;
  };
  return {
    uid,
    made,
    lstat: (file) => {
      const found = entry(file);
      return {
        uid: found.uid,
        mode: found.mode ?? 0o755,
        isDirectory: () => !found.link && !found.file,
        isSymbolicLink: () => found.link !== undefined,
      };
    },
    readlink: (file) => entry(file).link!,
    mkdir: (dir) => {
      made.push(dir);
      entries[dir] = { uid };
    },
  };
}

const USER = 1000;
const OTHER = 1001;

describe('untrustedPart: a path is trusted when every part is the user’s or root’s, links followed', () => {
  const tree = (): Record<string, Entry> => ({
    '/home': { uid: 0 },
    '/home/u': { uid: USER },
    '/home/u/.cache': { uid: USER },
    '/home/v': { uid: OTHER },
    '/tmp': { uid: 0, mode: 0o1777 },
    '/srv': { uid: 0, mode: 0o777 },
    '/srv/cache': { uid: USER },
    '/root': { uid: 0, mode: 0o700 },
    '/root/.config': { uid: 0 },
  });

  it('the user’s own folders, and root’s above them, are trusted, made or not', () => {
    const system = fakeSystem(USER, tree());
    expect(untrustedPart('/home/u/.cache/gymctl', system)).toBeUndefined();
    expect(untrustedPart('/home/u/.cache', system)).toBeUndefined();
    expect(untrustedPart('/tmp/new/gymctl', system)).toBeUndefined(); // /tmp's sticky bit: no one can put a link in place of ours
  });

  it("root with another user's HOME stops at that HOME, owned by someone else", () => {
    const found = untrustedPart('/home/u/.cache/gymctl', fakeSystem(0, tree()));
    expect(found).toEqual({ why: 'owner', path: '/home/u', uid: USER, link: false });
    expect(describeUntrusted(found!)).toBe('/home/u belongs to another user (uid 1000)');
  });

  it('a folder of another user on the way is refused, even where the user could write', () => {
    expect(untrustedPart('/home/v/shared/gymctl', fakeSystem(USER, tree()))).toMatchObject({ why: 'owner', path: '/home/v', uid: OTHER });
  });

  it('a link the user made to a folder of someone else’s is refused, naming the link', () => {
    const entries = { ...tree(), '/home/u/.cache': { uid: USER, link: '/home/v' } };
    const found = untrustedPart('/home/u/.cache/gymctl', fakeSystem(USER, entries));
    expect(found).toEqual({ why: 'owner', path: '/home/v', uid: OTHER, link: false, via: '/home/u/.cache' });
    expect(describeUntrusted(found!)).toBe('/home/v belongs to another user (uid 1001) (the link /home/u/.cache leads there)');
  });

  it('a link made by someone else is refused, whatever it leads to (a root-owned folder too)', () => {
    const entries = { ...tree(), '/root/.cache': { uid: USER, link: '/root/.config' } };
    const found = untrustedPart('/root/.cache/gymctl', fakeSystem(0, entries));
    expect(found).toEqual({ why: 'owner', path: '/root/.cache', uid: USER, link: true });
    expect(describeUntrusted(found!)).toBe('/root/.cache is a link made by another user (uid 1000)');
  });

  it('links of the user’s own are followed, relative ones and “..” included, to folders of the user’s or root’s', () => {
    const entries: Record<string, Entry> = { ...tree(), '/home/u/c': { uid: USER, link: '../../tmp' }, '/home/u/d': { uid: USER, link: './.cache' } };
    const system = fakeSystem(USER, entries);
    expect(untrustedPart('/home/u/c/gymctl', system)).toBeUndefined();
    expect(untrustedPart('/home/u/d/gymctl', system)).toBeUndefined();
    entries['/home/u/e'] = { uid: USER, link: '../v' };
    expect(untrustedPart('/home/u/e/gymctl', system)).toMatchObject({ why: 'owner', path: '/home/v', via: '/home/u/e' });
  });

  it('a folder anyone may write to, without the sticky bit, is refused above the target', () => {
    const found = untrustedPart('/srv/cache/gymctl', fakeSystem(USER, tree()));
    expect(found).toEqual({ why: 'open', path: '/srv' });
    expect(describeUntrusted(found!)).toBe('/srv can be written by anyone');
    // The target itself is its caller's to judge (the cache tightens it; the config store names the fix).
    expect(untrustedPart('/srv', fakeSystem(USER, tree()))).toBeUndefined();
  });

  it('a file on the way is not a folder; a loop of links ends', () => {
    const entries = { ...tree(), '/home/u/f': { uid: USER, file: true }, '/home/u/a': { uid: USER, link: 'b' }, '/home/u/b': { uid: USER, link: 'a' } };
    const system = fakeSystem(USER, entries);
    expect(untrustedPart('/home/u/f/gymctl', system)).toEqual({ why: 'not a folder', path: '/home/u/f' });
    expect(untrustedPart('/home/u/a/gymctl', system)).toMatchObject({ why: 'too many links' });
  });

  it('without uids (Windows) nothing is judged', () => {
    expect(untrustedPart('/home/v/x', { ...fakeSystem(USER, tree()), uid: undefined })).toBeUndefined();
  });
});

describe('makeFolders: one folder at a time, the real error, never a loop', () => {
  it('makes the missing folders top down, and only those', () => {
    const system = fakeSystem(USER, { '/home': { uid: 0 }, '/home/u': { uid: USER } });
    makeFolders('/home/u/.cache/gymctl', 0o700, system);
    expect(system.made).toEqual(['/home/u/.cache', '/home/u/.cache/gymctl']);
  });

  it('a read-only file system is EROFS, not ENOENT', () => {
    const system = fakeSystem(USER, { '/ro': { uid: 0 } });
    system.mkdir = () => {
      throw Object.assign(new Error("EROFS: read-only file system, mkdir '/ro/gymctl'"), { code: 'EROFS' });
    };
    expect(() => makeFolders('/ro/gymctl', 0o700, system)).toThrow(expect.objectContaining({ code: 'EROFS' }));
  });

  it('a folder that takes no new folders (procfs: mkdir says ENOENT under a folder that is there) fails once, in words', () => {
    let calls = 0;
    const system = fakeSystem(0, { '/proc': { uid: 0 } });
    system.mkdir = () => {
      calls++;
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    };
    expect(() => makeFolders('/proc/gymctl', 0o700, system)).toThrow(expect.objectContaining({ code: 'ENOENT', reason: '/proc takes no new folders' }));
    expect(calls).toBe(1);
  });

  it('a folder made meanwhile by another gymctl is fine; a file in its place is not', () => {
    const entries: Record<string, Entry> = { '/home': { uid: 0 } };
    const system = fakeSystem(USER, entries);
    system.mkdir = (dir) => {
      entries[dir] = { uid: USER };
      throw Object.assign(new Error('EEXIST'), { code: 'EEXIST' });
    };
    expect(() => makeFolders('/home/x', 0o700, system)).not.toThrow();
    system.mkdir = (dir) => {
      entries[dir] = { uid: USER, file: true };
      throw Object.assign(new Error('EEXIST'), { code: 'EEXIST' });
    };
    expect(() => makeFolders('/home/y', 0o700, system)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
  });

  it.runIf(process.platform === 'linux')('on the real /proc, it fails at once with ENOENT, where fs.mkdirSync(…, { recursive: true }) never returns', () => {
    expect(() => makeFolders('/proc/gymctl-trusted-path-test')).toThrow(expect.objectContaining({ code: 'ENOENT', reason: '/proc takes no new folders' }));
  });
});

/** Changing owners needs root: CI runs as root; elsewhere these tests say so and are skipped. */
const isRoot = process.getuid?.() === 0;
if (!isRoot && process.env.CI === 'true') throw new Error('the ownership tests need root (CI runs as root)');
if (!isRoot) console.warn('skipping the real ownership tests of the path walk: they need root, to give folders and links to another user');

describe.skipIf(!isRoot)('on the real file system, as root', () => {
  const OTHER_UID = 65534;
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'gymctl-walk-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('a home of another user, a link another user made, and a link to another user’s folder are each refused', () => {
    const home = path.join(base, 'home');
    mkdirSync(home);
    chownSync(home, OTHER_UID, OTHER_UID);
    expect(untrustedPart(path.join(home, '.cache', 'gymctl'))).toEqual({ why: 'owner', path: home, uid: OTHER_UID, link: false });

    const own = path.join(base, 'own');
    const target = path.join(base, 'target');
    mkdirSync(own);
    mkdirSync(target);
    symlinkSync(target, path.join(own, '.cache'));
    expect(untrustedPart(path.join(own, '.cache', 'gymctl'))).toBeUndefined();
    lchownSync(path.join(own, '.cache'), OTHER_UID, OTHER_UID);
    expect(untrustedPart(path.join(own, '.cache', 'gymctl'))).toMatchObject({ why: 'owner', path: path.join(own, '.cache'), link: true });
    lchownSync(path.join(own, '.cache'), 0, 0);
    chownSync(target, OTHER_UID, OTHER_UID);
    expect(untrustedPart(path.join(own, '.cache', 'gymctl'))).toMatchObject({ why: 'owner', path: target, via: path.join(own, '.cache') });
  });

  it('makeFolders makes 0700 folders, and a world-writable folder on the way is refused by the walk', () => {
    makeFolders(path.join(base, 'a', 'b'));
    expect(statSync(path.join(base, 'a', 'b')).mode & 0o777).toBe(0o700);
    const open = path.join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(untrustedPart(path.join(open, 'x'))).toEqual({ why: 'open', path: open });
    writeFileSync(path.join(base, 'file'), '');
    expect(() => makeFolders(path.join(base, 'file', 'x'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(lstatSync(path.join(base, 'file')).isFile()).toBe(true);
  });
});
