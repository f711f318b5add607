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
import { describeUntrusted, makeFolders, type PathSystem, untrustedPart } from '../../src/files/trusted-path.js';
import { needsRoot } from '../helpers/root.js';

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

  it('only a whole part is a folder to judge: a trailing “/” or “/.” of a link leaves an open folder or a file last, the caller’s to judge', () => {
    const entries: Record<string, Entry> = { ...tree(), '/home/u/f': { uid: USER, file: true } };
    const system = fakeSystem(USER, entries);
    for (const [name, text] of [
      ['s1', '/srv/'],
      ['s2', '/srv/.'],
      ['s3', '/srv//.'],
      ['f1', 'f/'],
      ['f2', 'f/.'],
    ] as const) {
      entries[`/home/u/${name}`] = { uid: USER, link: text };
      expect(untrustedPart(`/home/u/${name}`, system), text).toBeUndefined();
    }
    // The same folders with a part after them are refused.
    entries['/home/u/s4'] = { uid: USER, link: '/srv/./cache' };
    expect(untrustedPart('/home/u/s4', system)).toStrictEqual({ why: 'open', path: '/srv', via: '/home/u/s4' });
    entries['/home/u/f3'] = { uid: USER, link: 'f/./x' };
    const found = untrustedPart('/home/u/f3', system);
    expect(found).toStrictEqual({ why: 'not a folder', path: '/home/u/f', via: '/home/u/f3' });
    expect(describeUntrusted(found!)).toBe('/home/u/f is not a folder (the link /home/u/f3 leads there)');
    expect(describeUntrusted({ why: 'not a folder', path: '/home/u/f' })).toBe('/home/u/f is not a folder');
  });

  it('a part reached through no link names no link: no `via` at all', () => {
    const entries = { ...tree(), '/home/u/f': { uid: USER, file: true } };
    expect(untrustedPart('/home/u/f/x', fakeSystem(USER, entries))).toStrictEqual({ why: 'not a folder', path: '/home/u/f' });
    expect(untrustedPart('/srv/cache/x', fakeSystem(USER, entries))).toStrictEqual({ why: 'open', path: '/srv' });
    expect(untrustedPart('/home/v/x', fakeSystem(USER, entries))).toStrictEqual({ why: 'owner', path: '/home/v', uid: OTHER, link: false });
    // A found part built with `via` left undefined is said without a link.
    expect(describeUntrusted({ why: 'open', path: '/srv', via: undefined })).toBe('/srv can be written by anyone');
  });

  it('/ itself is not judged (in a user namespace it may show as nobody): “..” above it, “.” and empty parts of a link stay at /', () => {
    const entries: Record<string, Entry> = {
      ...tree(),
      '/home/u/up': { uid: USER, link: '../../../../tmp' },
      '/home/u/dot': { uid: USER, link: '/./tmp' },
      '/home/u/two': { uid: USER, link: '//tmp' },
    };
    const system = fakeSystem(USER, entries);
    const lstat = system.lstat;
    system.lstat = (file) => (file === '/' ? { ...lstat(file), uid: 65534, mode: 0o777 } : lstat(file));
    expect(untrustedPart('/home/u/.cache/gymctl', system)).toBeUndefined();
    for (const link of ['up', 'dot', 'two']) expect(untrustedPart(`/home/u/${link}/gymctl`, system), link).toBeUndefined();
    // “..” goes to the folder above, whose own parts were judged on the way down: the owner of what it leaves does not count.
    entries['/home/u/x'] = { uid: OTHER };
    entries['/home/u/back'] = { uid: USER, link: '/home/u/.cache/../../u/.cache' };
    expect(untrustedPart('/home/u/back/gymctl', system)).toBeUndefined();
  });

  it('follows up to 40 links, as the kernel does, and refuses the 41st', () => {
    const chain = (count: number): Record<string, Entry> => {
      const entries: Record<string, Entry> = { ...tree() };
      for (let i = 0; i < count; i++) entries[`/home/u/l${i}`] = { uid: USER, link: i === count - 1 ? '.cache' : `l${i + 1}` };
      return entries;
    };
    expect(untrustedPart('/home/u/l0/gymctl', fakeSystem(USER, chain(40)))).toBeUndefined();
    const found = untrustedPart('/home/u/l0/gymctl', fakeSystem(USER, chain(41)));
    expect(found).toStrictEqual({ why: 'too many links', path: '/home/u/l40' });
    expect(describeUntrusted(found!)).toBe('/home/u/l40 goes through too many links');
  });

  it('a part it cannot look at (EACCES) is thrown, not taken as missing', () => {
    const system = fakeSystem(USER, tree());
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    system.lstat = (file) => {
      if (file === '/home/u') throw denied;
      return fakeSystem(USER, tree()).lstat(file);
    };
    expect(() => untrustedPart('/home/u/.cache/gymctl', system)).toThrow(denied);
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

  it('a folder whose link leads nowhere is named as such when mkdir says ENOENT under it', () => {
    const system = fakeSystem(USER, { '/home': { uid: 0 }, '/home/u': { uid: USER }, '/home/u/l': { uid: USER, link: '/gone' } });
    system.mkdir = () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    };
    let caught: unknown;
    try {
      makeFolders('/home/u/l/gymctl', 0o700, system);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'ENOENT',
      syscall: 'mkdir',
      path: '/home/u/l/gymctl',
      reason: '/home/u/l is a link to nothing',
      message: "ENOENT: /home/u/l is a link to nothing, mkdir '/home/u/l/gymctl'",
    });
  });

  it('any error of mkdir but EEXIST on a folder is thrown as it came, even when the folder is there after all', () => {
    const entries: Record<string, Entry> = { '/home': { uid: 0 } };
    const system = fakeSystem(USER, entries);
    const readOnly = Object.assign(new Error("EROFS: read-only file system, mkdir '/home/x'"), { code: 'EROFS' });
    system.mkdir = (dir) => {
      entries[dir] = { uid: USER };
      throw readOnly;
    };
    expect(() => makeFolders('/home/x', 0o700, system)).toThrow(readOnly);
    // EEXIST with a file in the folder's place, or with nothing there any more (removed meanwhile): that error, unchanged.
    for (const [dir, after] of [
      ['/home/y', { uid: USER, file: true }],
      ['/home/z', undefined],
    ] as const) {
      const exists = Object.assign(new Error(`EEXIST: file already exists, mkdir '${dir}'`), { code: 'EEXIST' });
      system.mkdir = (dir) => {
        if (after) entries[dir] = after;
        else delete entries[dir];
        throw exists;
      };
      let caught: unknown;
      try {
        makeFolders(dir, 0o700, system);
      } catch (error) {
        caught = error;
      }
      expect(caught, dir).toBe(exists);
    }
  });

  it('a folder on the way it cannot look at (EACCES) is thrown, and nothing is made', () => {
    const system = fakeSystem(USER, { '/home': { uid: 0 } });
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const lstat = system.lstat;
    system.lstat = (file) => {
      if (file === '/home/u') throw denied;
      return lstat(file);
    };
    expect(() => makeFolders('/home/u/.cache', 0o700, system)).toThrow(denied);
    expect(system.made).toEqual([]);
  });

  it('stops at / when not even / can be seen (a bare chroot): every folder below it is made, with the mode asked for', () => {
    const modes: number[] = [];
    const made: string[] = [];
    const system: Partial<PathSystem> = {
      lstat: (file) => {
        throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
      },
      mkdir: (dir, mode) => {
        made.push(dir);
        modes.push(mode);
      },
    };
    makeFolders('/a/b', 0o750, system);
    expect(made).toEqual(['/a', '/a/b']);
    expect(modes).toEqual([0o750, 0o750]);
  });

  it.runIf(process.platform === 'linux')('on the real /proc, it fails at once with ENOENT, where fs.mkdirSync(…, { recursive: true }) never returns', () => {
    expect(() => makeFolders('/proc/gymctl-trusted-path-test')).toThrow(expect.objectContaining({ code: 'ENOENT', reason: '/proc takes no new folders' }));
  });
});

/** Changing owners needs root: CI runs as root; elsewhere these tests say so and are skipped. */
const isRoot = needsRoot('the real ownership tests of the path walk', 'to give folders and links to another user');

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

  it('a world-writable folder is refused without the sticky bit and trusted with it (as /tmp); a chain of 41 links is too many; a link into another user’s folder is refused there', () => {
    const open = path.join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(untrustedPart(path.join(open, 'x'))).toStrictEqual({ why: 'open', path: open });
    chmodSync(open, 0o1777);
    expect(untrustedPart(path.join(open, 'x'))).toBeUndefined();
    chmodSync(open, 0o1776); // sticky, but others may not write: trusted as well
    expect(untrustedPart(path.join(open, 'x'))).toBeUndefined();

    mkdirSync(path.join(base, 'own'));
    for (let i = 0; i < 41; i++) symlinkSync(i === 40 ? 'own' : `l${i + 1}`, path.join(base, `l${i}`));
    expect(untrustedPart(path.join(base, 'l1', 'x'))).toBeUndefined(); // 40 links
    expect(untrustedPart(path.join(base, 'l0', 'x'))).toStrictEqual({ why: 'too many links', path: path.join(base, 'l40') });

    // A link of root's into a folder of root's inside another user's folder: refused at that user's folder.
    const other = path.join(base, 'other');
    mkdirSync(path.join(other, 'in'), { recursive: true });
    chownSync(other, OTHER_UID, OTHER_UID);
    symlinkSync(path.join(other, 'in'), path.join(base, 'into'));
    expect(untrustedPart(path.join(base, 'into', 'x'))).toStrictEqual({ why: 'owner', path: other, uid: OTHER_UID, link: false, via: path.join(base, 'into') });
  });
});
