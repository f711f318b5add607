/**
 * The single executable's unpacked folder (src/sea/unpack.ts), where what
 * a user would suffer turns on the system's answers: two first runs at
 * once, a folder root or another user made, a system with no uids, a path
 * that cannot be read, a run killed half-way, and which old builds'
 * folders are gymctl's to remove. The system's answers that a normal
 * user's run cannot make (another owner, EACCES for root) are given
 * through the module object unpack.ts uses (node:fs, process.getuid), so
 * that the tests need no root and pass as root too.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type MoveSeams, moveSeams } from '../../src/files/moves.js';
import { checkWhole, FolderUnavailable, type Manifest, SeaError, tidy, unpacked, verify } from '../../src/sea/unpack.js';
import { withoutUids } from '../helpers/root.js';

// The module object unpack.ts and trusted-path.ts use (an ESM namespace cannot be spied on).
const fs = process.getBuiltinModule('node:fs');
const realLstat = fs.lstatSync;
const realReaddir = fs.readdirSync;
const realMoves: MoveSeams = { ...moveSeams };

const ASSETS: Record<string, string> = {
  'gymctl.cjs': 'exports.main = () => {};\n',
  'side/auth.cjs': 'module.exports = 1;\n',
  'addon/linux-x64/keyring.node': '\x7fELF',
  'jq.wasm': '\0asm',
};
const manifest: Manifest = Object.fromEntries(Object.entries(ASSETS).map(([name, text]) => [name, createHash('sha256').update(text).digest('hex')]));
const asset = (name: string) => new TextEncoder().encode(ASSETS[name]);
const fix = 'remove it, or set XDG_CACHE_HOME to a folder of your own';

const DAY = 24 * 60 * 60 * 1000;
const THIS = '0.2.0-0123456789abcdef';
const OTHER = '0.1.0-fedcba9876543210';
/** A normal user's uid, whoever runs the tests. */
const USER = 4242;

let home: string;
let root: string;
let dir: string;
const unpack = () => unpacked({ root, build: THIS, manifest, asset });

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-guards-'));
  chmodSync(home, 0o700);
  root = path.join(home, 'cache', 'gymctl-sea');
  dir = path.join(root, THIS);
});
afterEach(() => {
  vi.restoreAllMocks();
  Object.assign(moveSeams, realMoves);
  rmSync(home, { recursive: true, force: true });
});

/** What `run` throws (vitest's toThrow(text) passes on a thrown undefined, so the error is looked at itself). */
function caught(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing was thrown');
}

const errno = (code: string, what: string) => Object.assign(new Error(`${code}: ${what}`), { code });

/**
 * gymctl runs as `uid`, a normal user: what the runner of the tests made is that user's, and each path of `owners`
 * belongs to the uid given for it (0: root).
 */
function runAs(uid: number, owners: Record<string, number> = {}): void {
  const runner = process.getuid!();
  vi.spyOn(process, 'getuid').mockReturnValue(uid);
  vi.spyOn(fs, 'lstatSync').mockImplementation(((file: string, options?: object) => {
    const stat = realLstat(file, options as never);
    if (!stat) return stat;
    const owner = owners[path.resolve(String(file))] ?? (stat.uid === runner ? uid : stat.uid);
    return Object.create(stat, { uid: { value: owner } });
  }) as never);
}

/** Looking at `file` fails with `code`, as for a path the system will not show this user. */
function unreadable(file: string, code: string): void {
  vi.spyOn(fs, 'lstatSync').mockImplementation(((name: string, options?: object) => {
    if (path.resolve(String(name)) === file) throw errno(code, `permission denied, lstat '${file}'`);
    return realLstat(name, options as never);
  }) as never);
}

const readdir = (folder: string) => (realReaddir(folder) as string[]).sort();

describe('two first runs at once', () => {
  /** Another gymctl's copy of the same build is put in place while this run's rename is refused with `code`. */
  function racedWith(code: string) {
    moveSeams.rename = (from, to) => {
      cpSync(from, to, { recursive: true });
      chmodSync(to, 0o700);
      writeFileSync(path.join(to, 'gymctl.cjs'), ASSETS['gymctl.cjs']!.replace('{}', '{ /* theirs */ }'));
      throw errno(code, `rename '${from}' -> '${to}'`);
    };
  }

  it('a second gymctl starting at the same moment still starts, on the first one’s copy, whatever the system says of the folder taken (ENOTEMPTY, EEXIST, EPERM, EACCES, EBUSY)', () => {
    for (const platform of ['linux', 'win32'] as const) {
      for (const code of ['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY']) {
        rmSync(root, { recursive: true, force: true });
        moveSeams.platform = () => platform;
        moveSeams.sleep = () => {};
        racedWith(code);
        expect([platform, code, unpack()]).toEqual([platform, code, dir]);
        expect(readFileSync(path.join(dir, 'gymctl.cjs'), 'utf8')).toContain('theirs');
        // This run's own copy is gone: the folder holds the one build.
        expect([platform, code, readdir(root)]).toEqual([platform, code, [THIS]]);
      }
    }
  });

  it('never runs from a folder never made or checked: not after a refused rename with no copy there, nor from another run’s copy open to others', () => {
    // The rename refused (EPERM: a folder that may not be changed), and no other run made the folder.
    moveSeams.rename = (from, to) => {
      throw errno('EPERM', `operation not permitted, rename '${from}' -> '${to}'`);
    };
    const refused = caught(unpack);
    expect(refused).toBeInstanceOf(FolderUnavailable);
    expect(refused.message).toBe(`cannot unpack gymctl into ${root} (EPERM)`);
    expect(readdir(root)).toEqual([]);
    // Another run's copy is there, but open to others: checked, and refused as any such folder.
    moveSeams.rename = (from, to) => {
      cpSync(from, to, { recursive: true });
      chmodSync(to, 0o755);
      throw errno('ENOTEMPTY', `directory not empty, rename '${from}' -> '${to}'`);
    };
    const open = caught(unpack);
    expect(open).toBeInstanceOf(SeaError);
    expect(open).not.toBeInstanceOf(FolderUnavailable);
    expect(open.message).toBe(`${dir} is open to others (mode 755), so gymctl will not run code from it: ${fix}`);
  });
});

describe('whose the folders are', () => {
  it('a build or cache folder root or another user made is refused for a normal user: else gymctl would run code they put there', () => {
    unpack();
    // This build's folder, root's.
    runAs(USER, { [dir]: 0 });
    const build = caught(unpack);
    expect(build).toBeInstanceOf(SeaError);
    expect(build.message).toBe(`${dir} belongs to another user (uid 0), so gymctl will not run code from it: ${fix}`);
    // The cache folder root made before this build was unpacked: refused, not given up, and nothing written into it.
    rmSync(dir, { recursive: true });
    vi.restoreAllMocks();
    runAs(USER, { [root]: 0 });
    const cache = caught(unpack);
    expect(cache).toBeInstanceOf(SeaError);
    expect(cache).not.toBeInstanceOf(FolderUnavailable);
    expect(cache.message).toBe(`${root} belongs to another user (uid 0), so gymctl will not run code from it: ${fix}`);
    expect(readdir(root)).toEqual([]);
    // Another user's: refused too.
    vi.restoreAllMocks();
    runAs(USER, { [root]: USER + 1 });
    expect(caught(unpack).message).toContain(`${root} belongs to another user (uid ${USER + 1})`);
    // The same folders, the user's own: made and used.
    vi.restoreAllMocks();
    runAs(USER);
    expect(unpack()).toBe(dir);
    expect(unpack()).toBe(dir);
  });

  it('on a system with no uids (Windows), the folder is made and used, its owner and made-up mode never held against it', () => {
    withoutUids(() => {
      expect(unpack()).toBe(dir);
      chmodSync(dir, 0o755);
      expect(unpack()).toBe(dir);
    });
  });
});

describe('a path that cannot be read', () => {
  it('is given up, not refused, when a folder above cannot be looked at: the run goes on from the binary', () => {
    unreadable(path.join(home, 'cache'), 'EACCES');
    const error = caught(unpack);
    expect(error).toBeInstanceOf(FolderUnavailable);
    expect(error.message).toBe(`cannot unpack gymctl into ${dir} (cannot read its path: EACCES)`);
  });

  it('is refused, with what to do, when the folder itself cannot be looked at, and nothing is made in its place', () => {
    unreadable(dir, 'EPERM');
    const error = withoutUids(() => caught(unpack));
    expect(error).toBeInstanceOf(SeaError);
    expect(error).not.toBeInstanceOf(FolderUnavailable);
    expect(error.message).toBe(`cannot read ${dir} (EPERM): ${fix}`);
    expect(existsSync(dir)).toBe(false);
  });

  it('is said to be damaged, with the folder that cannot be read, when checked whole', () => {
    const error = caught(() => checkWhole(dir, manifest));
    expect(error).toBeInstanceOf(SeaError);
    expect(error.message).toBe(`${dir} is not as this gymctl unpacked it (cannot read it: ENOENT): remove ${dir}, and run gymctl again`);
    unpack();
    vi.spyOn(fs, 'readdirSync').mockImplementation(((folder: string, options?: object) => {
      if (folder === path.join(dir, 'side')) throw errno('EACCES', `permission denied, scandir '${folder}'`);
      return realReaddir(folder, options as never);
    }) as never);
    expect(caught(() => checkWhole(dir, manifest)).message).toContain('(cannot read side: EACCES)');
  });
});

describe('the folder checked whole', () => {
  const damaged = (what: string) => `${dir} is not as this gymctl unpacked it (${what}): remove ${dir}, and run gymctl again`;
  const fault = () => {
    const error = caught(() => checkWhole(dir, manifest));
    expect(error).toBeInstanceOf(SeaError);
    return error.message;
  };

  it('takes a file two folders deep, with no other file in the first, and names the file or folder missing, not another', () => {
    unpack();
    expect(() => checkWhole(dir, manifest)).not.toThrow();
    rmSync(path.join(dir, 'side', 'auth.cjs'));
    expect(fault()).toBe(damaged('side/auth.cjs is missing'));
    writeFileSync(path.join(dir, 'side', 'auth.cjs'), ASSETS['side/auth.cjs']!);
    // The addon's folder alone is gone, the one above it there: that folder is named.
    rmSync(path.join(dir, 'addon', 'linux-x64'), { recursive: true });
    expect(fault()).toBe(damaged('addon/linux-x64 is missing'));
    mkdirSync(path.join(dir, 'addon', 'linux-x64'), { mode: 0o700 });
    writeFileSync(path.join(dir, 'addon', 'linux-x64', 'keyring.node'), ASSETS['addon/linux-x64/keyring.node']!);
    // Two files gone: the first by name, whatever order the binary lists them in.
    rmSync(path.join(dir, 'jq.wasm'));
    rmSync(path.join(dir, 'side', 'auth.cjs'));
    expect(fault()).toBe(damaged('jq.wasm is missing'));
  });

  it('names the same fault on every run, the first by name, whatever order the system lists the files in', () => {
    unpack();
    for (const name of ['a-planted', 'm-planted', 'z-planted']) writeFileSync(path.join(dir, name), '');
    const rank: Record<string, number> = { 'z-planted': 0, 'a-planted': 1, 'm-planted': 2 };
    vi.spyOn(fs, 'readdirSync').mockImplementation(((folder: string, options?: object) => {
      const entries = realReaddir(folder, options as never) as unknown as { name: string }[];
      return folder === dir ? [...entries].sort((a, b) => (rank[a.name] ?? 3) - (rank[b.name] ?? 3)) : entries;
    }) as never);
    expect(fault()).toBe(damaged('a-planted is not a file this gymctl unpacked'));
  });

  it('never writes through a link planted in the folder being filled: the file it leads to is not made', () => {
    const outside = path.join(home, 'outside.wasm');
    const planting = (name: string) => {
      if (name === 'jq.wasm') {
        const temporary = readdirSync(root).find((entry) => entry.startsWith('.'))!;
        symlinkSync(outside, path.join(root, temporary, 'jq.wasm'));
      }
      return asset(name);
    };
    const error = caught(() => unpacked({ root, build: THIS, manifest, asset: planting }));
    expect(error).toBeInstanceOf(FolderUnavailable);
    expect(existsSync(outside)).toBe(false);
    expect(readdir(root)).toEqual([]);
  });
});

describe('a run killed half-way', () => {
  it('leaves its temporary folder beside the build’s, named so that a later run removes it once a day old', () => {
    const now = Date.now();
    let leftover = '';
    moveSeams.rename = (from, to) => {
      renameSync(from, to);
      // What a run killed just before its rename leaves: its temporary folder, by its name.
      mkdirSync(from, { mode: 0o700 });
      leftover = from;
    };
    expect(unpacked({ root, build: THIS, manifest, asset, now })).toBe(dir);
    expect(existsSync(leftover)).toBe(true);
    utimesSync(leftover, (now - 2 * DAY) / 1000, (now - 2 * DAY) / 1000);
    tidy(root, THIS, now, process.getuid?.());
    expect(existsSync(leftover)).toBe(false);
    expect(readdir(root)).toEqual([THIS]);
  });
});

describe("other builds' folders", () => {
  const now = Date.UTC(2026, 0, 31);
  const folder = (name: string, ms: number) => {
    const made = path.join(root, name);
    mkdirSync(path.join(made, 'side'), { recursive: true, mode: 0o700 });
    utimesSync(made, (now - ms) / 1000, (now - ms) / 1000);
    return made;
  };
  const uid = process.getuid?.();

  it('are kept a whole week unused, to the millisecond, and removed after', () => {
    folder(OTHER, 7 * DAY);
    folder('0.1.1-00000000000000aa', 7 * DAY + 1000);
    folder(`.${OTHER}-aB3dE9`, DAY);
    folder(`.${THIS}-x1Y2z3`, DAY + 1000);
    tidy(root, THIS, now, uid);
    expect(readdir(root)).toEqual([`.${OTHER}-aB3dE9`, OTHER]);
  });

  it('are known by their name, whatever the version (10.0.0, 0.10.0, a pre-release), and what is not named so is left', () => {
    const old = 30 * DAY;
    const builds = ['10.0.0-fedcba9876543210', '0.10.0-fedcba9876543210', '1.0.0-rc.1-fedcba9876543210'];
    const temporaries = builds.map((build) => `.${build}-aB3dE9`);
    const others = ['backup-0.1.0-fedcba9876543210', '0.1.0-fedcba9876543210.bak', `backup.${OTHER}-aB3dE9`, `.${OTHER}-aB3dE9.bak`];
    for (const name of [...builds, ...temporaries, ...others]) folder(name, old);
    tidy(root, THIS, now, uid);
    expect(readdir(root)).toEqual([...others].sort());
  });

  it("this build's folder is marked as used at most once a day: its times set to now, never more often", () => {
    const own = folder(THIS, 2 * 60 * 60 * 1000);
    tidy(root, THIS, now, uid);
    expect(statSync(own).mtimeMs).toBe(now - 2 * 60 * 60 * 1000);
    utimesSync(own, (now - DAY) / 1000, (now - DAY) / 1000);
    tidy(root, THIS, now, uid);
    expect(statSync(own).mtimeMs).toBe(now - DAY);
    utimesSync(own, (now - DAY - 1000) / 1000, (now - DAY - 1000) / 1000);
    tidy(root, THIS, now, uid);
    expect([statSync(own).atimeMs, statSync(own).mtimeMs]).toEqual([now, now]);
  });

  it("this build's folder is never removed, even a week unused where it cannot be marked", () => {
    folder(THIS, 30 * DAY);
    vi.spyOn(fs, 'utimesSync').mockImplementation(() => {
      throw errno('EPERM', 'operation not permitted, utime');
    });
    tidy(root, THIS, now, uid);
    expect(readdir(root)).toEqual([THIS]);
  });

  it("another user's folder is left alone; with no uids (Windows), an old one is removed", () => {
    const theirs = folder(OTHER, 30 * DAY);
    tidy(root, THIS, now, statSync(theirs).uid + 1);
    expect(readdir(root)).toEqual([OTHER]);
    tidy(root, THIS, now, undefined);
    expect(readdir(root)).toEqual([]);
  });

  it('a removal cut short after its rename leaves only a temporary folder, which a later run removes; a temporary one is removed as it is', () => {
    folder(THIS, 0);
    folder(OTHER, 30 * DAY);
    folder(`.${OTHER}-aB3dE9`, 2 * DAY);
    // A draw whose base 36 is short ("0.i"): the name is padded to six characters all the same.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    vi.spyOn(fs, 'renameSync').mockImplementation(((from: string, to: string) => {
      renameSync(from, to);
      throw errno('EINTR', 'the run was stopped here');
    }) as never);
    tidy(root, THIS, now, uid);
    expect(readdir(root)).toEqual([`.${OTHER}-i00000`, THIS]);
    vi.restoreAllMocks();
    tidy(root, THIS, now, uid);
    expect(readdir(root)).toEqual([THIS]);
  });

  it('never fail the run when the cache folder is gone', () => {
    expect(() => tidy(path.join(home, 'gone'), THIS, now, uid)).not.toThrow();
  });
});

describe('verify', () => {
  /** The descriptors this process holds open on `file`. */
  const openOn = (file: string) =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false; // closed meanwhile
      }
    });

  it('leaves no file open, whether the bytes are the binary’s or not', () => {
    unpack();
    const file = realpathSync(path.join(dir, 'jq.wasm'));
    verify(dir, 'jq.wasm', manifest);
    expect(openOn(file)).toEqual([]);
    writeFileSync(file, 'changed');
    expect(caught(() => verify(dir, 'jq.wasm', manifest))).toBeInstanceOf(SeaError);
    expect(openOn(file)).toEqual([]);
  });
});
