/**
 * The single executable's unpacked folder (src/sea/unpack.ts): made once,
 * 0700 with 0600 files, beside the cache and not in it; refused when it,
 * or any part of its path, is not the user's, or when it is not as gymctl
 * made it; given up, leaving nothing behind, when it cannot be made; the
 * file run from disk checked against the binary's hashes; and other
 * builds' folders removed once unused for a week.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUSY_WAITS_MS, type MoveSeams, moveSeams } from '../../src/files/moves.js';
import { checkWhole, FolderUnavailable, type Manifest, SeaError, tidy, UNUSED_MS, unpacked, verify } from '../../src/sea/unpack.js';
import { needsRoot } from '../helpers/root.js';

const isRoot = needsRoot("the ownership tests of the single executable's folder", 'to give folders to another user');
const OTHER_UID = 4242;

const ASSETS: Record<string, string> = { 'gymctl.cjs': 'exports.main = () => {};\n', 'side/auth.cjs': 'module.exports = 1;\n', 'jq.wasm': '\0asm' };
const manifest: Manifest = Object.fromEntries(Object.entries(ASSETS).map(([name, text]) => [name, createHash('sha256').update(text).digest('hex')]));
const asset = (name: string) => new TextEncoder().encode(ASSETS[name]);

let home: string;
let root: string;
const unpack = () => unpacked({ root, build: '1.0.0-abc', manifest, asset });

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-'));
  chmodSync(home, 0o700);
  root = path.join(home, 'cache', 'gymctl-sea');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('the unpacked folder', () => {
  it('is made once, the user own: the folder and those above it 0700, files 0600, with the binary bytes', () => {
    const dir = unpack();
    expect(dir).toBe(path.join(root, '1.0.0-abc'));
    for (const folder of [root, dir, path.join(dir, 'side')]) expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of Object.keys(ASSETS)) {
      expect(statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);
      expect(readFileSync(path.join(dir, name), 'utf8')).toBe(ASSETS[name]);
    }
    // A later run takes it as it is, and leaves no temporary folder behind.
    writeFileSync(path.join(dir, 'gymctl.cjs'), 'changed');
    expect(unpack()).toBe(dir);
    expect(readFileSync(path.join(dir, 'gymctl.cjs'), 'utf8')).toBe('changed');
    expect(readdir(root)).toEqual(['1.0.0-abc']);
  });

  it('loses a race to another first run without failing: the other copy stays, this one is removed', () => {
    const dir = path.join(root, '1.0.0-abc');
    let first = true;
    const racing = (name: string) => {
      if (first) {
        first = false;
        // Another gymctl finishes its copy meanwhile.
        mkdirSync(path.join(dir, 'side'), { recursive: true, mode: 0o700 });
        chmodSync(dir, 0o700);
        for (const other of Object.keys(ASSETS)) writeFileSync(path.join(dir, other), ASSETS[other]!);
        writeFileSync(path.join(dir, 'gymctl.cjs'), 'theirs');
      }
      return asset(name);
    };
    expect(unpacked({ root, build: '1.0.0-abc', manifest, asset: racing })).toBe(dir);
    expect(readFileSync(path.join(dir, 'gymctl.cjs'), 'utf8')).toBe('theirs');
    expect(readdir(root)).toEqual(['1.0.0-abc']);
  });

  it('is refused when open to others, or not a folder', () => {
    const dir = unpack();
    chmodSync(dir, 0o755);
    expect(unpack).toThrow(SeaError);
    expect(unpack).toThrow(/is open to others \(mode 755\), so gymctl will not run code from it/);
    rmSync(dir, { recursive: true });
    writeFileSync(dir, '');
    expect(unpack).toThrow(/is not a folder/);
  });

  it('is refused when a part of its path can be written by anyone (no sticky bit)', () => {
    mkdirSync(path.join(home, 'cache'));
    chmodSync(path.join(home, 'cache'), 0o777);
    expect(unpack).toThrow(`${path.join(home, 'cache')} can be written by anyone`);
  });

  it.runIf(isRoot)('is refused when it, or a link on its path, belongs to another user', () => {
    const dir = unpack();
    chownSync(dir, OTHER_UID, OTHER_UID);
    expect(unpack).toThrow(`belongs to another user (uid ${OTHER_UID})`);
    chownSync(dir, 0, 0);
    renameSync(root, path.join(home, 'elsewhere'));
    symlinkSync(path.join(home, 'elsewhere'), root);
    expect(unpack()).toBe(path.join(root, '1.0.0-abc'));
    lchownSync(root, OTHER_UID, OTHER_UID);
    expect(unpack).toThrow(`${root} is a link made by another user (uid ${OTHER_UID})`);
  });

  it('is given up, not refused, when it cannot be made, or its path has a file for a folder: the run goes on from the binary', () => {
    const proc = () => unpacked({ root: '/proc/self/gymctl-sea', build: '1.0.0-abc', manifest, asset });
    expect(proc).toThrow(FolderUnavailable);
    expect(proc).toThrow('cannot unpack gymctl into /proc/self/gymctl-sea (ENOENT)');
    writeFileSync(path.join(home, 'cache'), '');
    expect(unpack).toThrow(FolderUnavailable);
    expect(unpack).toThrow(`(${path.join(home, 'cache')} is not a folder)`);
  });

  it('leaves nothing behind when a write fails half-way (a full disk): no temporary folder, no folder', () => {
    let written = 0;
    const full = (name: string) => {
      if (++written === 2) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return asset(name);
    };
    for (let run = 0; run < 5; run++) {
      written = 0;
      expect(() => unpacked({ root, build: '1.0.0-abc', manifest, asset: full })).toThrow('cannot unpack gymctl into');
    }
    expect(readdir(root)).toEqual([]);
  });
});

describe('the folder, checked whole on every use', () => {
  const damaged = (what: string) => `is not as this gymctl unpacked it (${what}): remove ${path.join(root, '1.0.0-abc')}, and run gymctl again`;

  it('is refused when a file was added (a package.json planted beside an addon), removed, or a folder is gone', () => {
    const dir = unpack();
    writeFileSync(path.join(dir, 'side', 'package.json'), '{"main":"../../../evil.js"}');
    expect(unpack).toThrow(damaged('side/package.json is not a file this gymctl unpacked'));
    rmSync(path.join(dir, 'side', 'package.json'));
    rmSync(path.join(dir, 'jq.wasm'));
    expect(unpack).toThrow(damaged('jq.wasm is missing'));
    writeFileSync(path.join(dir, 'jq.wasm'), ASSETS['jq.wasm']!);
    rmSync(path.join(dir, 'side'), { recursive: true });
    expect(unpack).toThrow(damaged('side is missing'));
    writeFileSync(path.join(dir, 'side'), '');
    expect(unpack).toThrow(damaged('side is not a folder'));
  });

  it('is refused at once, nothing opened, when a file is a FIFO, a link (to /dev/zero) or a folder', () => {
    const dir = unpack();
    rmSync(path.join(dir, 'jq.wasm'));
    spawnSync('mkfifo', [path.join(dir, 'jq.wasm')]);
    expect(unpack).toThrow(damaged('jq.wasm is not a regular file'));
    rmSync(path.join(dir, 'jq.wasm'));
    symlinkSync('/dev/zero', path.join(dir, 'jq.wasm'));
    expect(() => checkWhole(dir, manifest)).toThrow(damaged('jq.wasm is not a regular file'));
    rmSync(path.join(dir, 'jq.wasm'));
    mkdirSync(path.join(dir, 'jq.wasm'));
    expect(() => checkWhole(dir, manifest)).toThrow(damaged('jq.wasm is not a regular file'));
  });
});

describe('other builds', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const now = Date.UTC(2026, 0, 31);
  const THIS = '0.2.0-0123456789abcdef';
  const OTHER = '0.1.0-fedcba9876543210';
  const age = (folder: string, ms: number) => utimesSync(folder, (now - ms) / 1000, (now - ms) / 1000);
  const folder = (name: string, ms: number) => {
    mkdirSync(path.join(root, name, 'side'), { recursive: true, mode: 0o700 });
    age(path.join(root, name), ms);
    return path.join(root, name);
  };

  it("are removed once unused for a week, whole; this build's, a recent one, and what is not gymctl's are left", () => {
    folder(THIS, 2 * DAY);
    folder(OTHER, UNUSED_MS + DAY);
    folder('0.1.1-00000000000000aa', UNUSED_MS - DAY);
    folder('notes', UNUSED_MS + DAY);
    writeFileSync(path.join(root, '0.0.9-00000000000000bb'), '');
    tidy(root, THIS, now, process.getuid?.());
    expect(readdir(root)).toEqual(['0.0.9-00000000000000bb', '0.1.1-00000000000000aa', THIS, 'notes']);
    // This build's folder is marked as used, at most once a day.
    expect(statSync(path.join(root, THIS)).mtimeMs).toBe(now);
  });

  it('lose temporary folders left by a killed run once a day old, and keep one being written now', () => {
    folder(`.${OTHER}-aB3dE9`, 2 * DAY);
    folder(`.${THIS}-x1Y2z3`, 60_000);
    tidy(root, THIS, now, process.getuid?.());
    expect(readdir(root)).toEqual([`.${THIS}-x1Y2z3`]);
  });

  it('are removed by the run that unpacks a new build, before it writes (a full disk may need their room)', () => {
    folder(OTHER, UNUSED_MS + DAY);
    const dir = unpacked({ root, build: THIS, manifest, asset, now });
    expect(readdir(root)).toEqual([THIS]);
    expect(existsSync(path.join(dir, 'jq.wasm'))).toBe(true);
  });

  it.runIf(isRoot)("leave another user's folder alone", () => {
    chownSync(folder(OTHER, UNUSED_MS + DAY), OTHER_UID, OTHER_UID);
    tidy(root, THIS, now, process.getuid?.());
    expect(readdir(root)).toEqual([OTHER]);
  });
});

describe('the unpacked folder on Windows, while an antivirus scans the new files', () => {
  const real: MoveSeams = { ...moveSeams };
  let slept: number[];
  beforeEach(() => {
    slept = [];
    // Windows' answers, through the seam gymctl renames through; the waits recorded, never slept.
    Object.assign(moveSeams, { platform: () => 'win32', sleep: (ms: number) => void slept.push(ms) });
  });
  afterEach(() => Object.assign(moveSeams, real));

  /** The rename of the folder into place fails with `code` the first `times` calls (a scanner holds a file in it), then renames. */
  const scanned = (code: string, times: number) => {
    let calls = 0;
    moveSeams.rename = (from, to) => {
      if (calls++ < times) throw Object.assign(new Error(`${code}: operation not permitted, rename '${from}' -> '${to}'`), { code });
      renameSync(from, to);
    };
    return () => calls;
  };

  it('is renamed into place once the scan lets go (EPERM twice, then the rename), whole, and used from then on', () => {
    const calls = scanned('EPERM', 2);
    const dir = unpack();
    expect(dir).toBe(path.join(root, '1.0.0-abc'));
    expect(calls()).toBe(3);
    expect(slept).toEqual(BUSY_WAITS_MS.slice(0, 2));
    for (const name of Object.keys(ASSETS)) expect(() => verify(dir, name, manifest)).not.toThrow();
    expect(readdir(root)).toEqual(['1.0.0-abc']);
    // The next run finds it, and renames nothing.
    expect(unpack()).toBe(dir);
    expect(calls()).toBe(3);
  });

  it('says what holds it when the scan outlasts a second of tries, and leaves no temporary folder', () => {
    scanned('EBUSY', Number.POSITIVE_INFINITY);
    expect(unpack).toThrow(SeaError);
    slept = [];
    expect(unpack).toThrow(
      `cannot move the files gymctl unpacked into ${path.join(root, '1.0.0-abc')} (EBUSY): Windows refused it for a second of tries, as it does while another program holds one of them open, most often an antivirus scanning new files; run gymctl again, and if this goes on, have the antivirus skip ${root}`,
    );
    expect(slept).toEqual(BUSY_WAITS_MS);
    expect(readdir(root)).toEqual([]);
  });

  it('stops trying once another first run’s folder is there, and uses it', () => {
    const dir = path.join(root, '1.0.0-abc');
    let calls = 0;
    moveSeams.rename = (from) => {
      calls++;
      // Another gymctl finished its copy of the same files meanwhile: Windows refuses a rename over a folder with EPERM.
      cpSync(from, dir, { recursive: true });
      chmodSync(dir, 0o700);
      throw Object.assign(new Error('EPERM: operation not permitted, rename'), { code: 'EPERM' });
    };
    expect(unpack()).toBe(dir);
    expect(calls).toBe(1);
    expect(slept).toEqual([]);
    expect(readdir(root)).toEqual(['1.0.0-abc']);
  });
});

describe('verify', () => {
  it('passes the bytes the binary holds, and refuses a changed, missing or unknown file', () => {
    const dir = unpack();
    expect(() => verify(dir, 'jq.wasm', manifest)).not.toThrow();
    writeFileSync(path.join(dir, 'jq.wasm'), '\0asm!');
    expect(() => verify(dir, 'jq.wasm', manifest)).toThrow(`${path.join(dir, 'jq.wasm')} is not the file this gymctl unpacked`);
    rmSync(path.join(dir, 'jq.wasm'));
    expect(() => verify(dir, 'jq.wasm', manifest)).toThrow(SeaError);
    expect(() => verify(dir, 'other.wasm', manifest)).toThrow(SeaError);
  });

  it('refuses a FIFO or a link at once, without reading it', () => {
    const dir = unpack();
    rmSync(path.join(dir, 'jq.wasm'));
    spawnSync('mkfifo', [path.join(dir, 'jq.wasm')]);
    expect(() => verify(dir, 'jq.wasm', manifest)).toThrow('not a regular file');
    rmSync(path.join(dir, 'jq.wasm'));
    writeFileSync(path.join(home, 'elsewhere.wasm'), ASSETS['jq.wasm']!);
    // The right bytes, through a link: refused all the same (the file checked is the file loaded, never a link's target).
    symlinkSync(path.join(home, 'elsewhere.wasm'), path.join(dir, 'jq.wasm'));
    expect(() => verify(dir, 'jq.wasm', manifest)).toThrow(SeaError);
    rmSync(path.join(dir, 'jq.wasm'));
    symlinkSync('/dev/zero', path.join(dir, 'jq.wasm'));
    expect(() => verify(dir, 'jq.wasm', manifest)).toThrow(SeaError);
  });
});

function readdir(dir: string): string[] {
  return (process.getBuiltinModule('node:fs').readdirSync(dir) as string[]).sort();
}
