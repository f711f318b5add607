/**
 * Moves Windows refuses for a moment, and file systems without hard links
 * (src/files/moves.ts): a rename refused as busy (EPERM, EACCES, EBUSY,
 * as while an antivirus scans a file just written) is tried again with the
 * waits of BUSY_WAITS_MS, on Windows only, then said with its likely cause;
 * where link() is refused (FAT32, exFAT, SMB), the cache secret is created
 * exclusively instead, still 0600 and still first-one-wins. The failures
 * come through `moveSeams`, the seam gymctl moves files through; the waits
 * are recorded, never slept, and no duration is measured.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUSY_WAITS_MS, type MoveSeams, moveSeams, StillBusyError, whileBusy, writeFileAtomic } from '../../src/files/moves.js';

const real: MoveSeams = { ...moveSeams };
let dir: string;
let slept: number[];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gymctl-busy-'));
  slept = [];
  Object.assign(moveSeams, { sleep: (ms: number) => void slept.push(ms), platform: () => 'win32' });
});
afterEach(() => {
  Object.assign(moveSeams, real);
  rmSync(dir, { recursive: true, force: true });
});

const failure = (code: string, syscall = 'rename') => Object.assign(new Error(`${code}: operation not permitted, ${syscall}`), { code, syscall });

/** A rename that fails with `code` the first `times` calls, then renames. */
function flakyRename(code: string, times: number): { calls: () => number } {
  let calls = 0;
  moveSeams.rename = (from, to) => {
    if (calls++ < times) throw failure(code);
    renameSync(from, to);
  };
  return { calls: () => calls };
}

describe('a rename Windows refuses as busy', () => {
  it('is tried again: EPERM twice, then the file is in place, whole and 0600, and no temporary file is left', () => {
    const file = path.join(dir, 'entry.json');
    writeFileSync(file, 'old');
    const rename = flakyRename('EPERM', 2);
    writeFileAtomic(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(rename.calls()).toBe(3);
    expect(slept).toEqual(BUSY_WAITS_MS.slice(0, 2));
    expect(readdirSync(dir)).toEqual(['entry.json']);
  });

  it('for EACCES and EBUSY as for EPERM, about a second in all', () => {
    for (const code of ['EACCES', 'EBUSY']) {
      slept = [];
      flakyRename(code, 1);
      writeFileAtomic(path.join(dir, code), code);
      expect(readFileSync(path.join(dir, code), 'utf8')).toBe(code);
      expect(slept).toEqual([BUSY_WAITS_MS[0]]);
    }
    // The whole wait is about a second, as atomically's synchronous renames try for 1,000 ms; its first waits are short.
    expect(BUSY_WAITS_MS.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(1000);
    expect(BUSY_WAITS_MS.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(1500);
    expect(BUSY_WAITS_MS[0]).toBeLessThanOrEqual(20);
  });

  it('says, when it is still refused after every wait, what most likely holds it, with the system’s code and words', () => {
    const rename = flakyRename('EPERM', Number.POSITIVE_INFINITY);
    const file = path.join(dir, 'entry.json');
    let thrown: unknown;
    try {
      writeFileAtomic(file, 'new');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StillBusyError);
    expect(thrown).toMatchObject({ code: 'EPERM' });
    expect((thrown as Error).message).toBe(
      'EPERM: operation not permitted, rename (still refused after a second of tries: another program holds it open, most often an antivirus scanning files just written)',
    );
    expect(rename.calls()).toBe(BUSY_WAITS_MS.length + 1);
    expect(slept).toEqual(BUSY_WAITS_MS);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is not tried again for any other code, nor off Windows (there EPERM means a folder you may not change), nor once giveUp says so', () => {
    flakyRename('ENOSPC', 1);
    expect(() => writeFileAtomic(path.join(dir, 'a'), 'x')).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    moveSeams.platform = () => 'linux';
    flakyRename('EPERM', 1);
    expect(() => writeFileAtomic(path.join(dir, 'b'), 'x')).toThrow(expect.objectContaining({ code: 'EPERM' }));
    expect(slept).toEqual([]);
    moveSeams.platform = () => 'win32';
    let tries = 0;
    let thrown: unknown;
    try {
      whileBusy(
        () => {
          tries++;
          throw failure('EPERM');
        },
        { giveUp: () => tries === 2 },
      );
    } catch (error) {
      thrown = error;
    }
    // The system's own error, as it came: the place is taken, and no wait would change that.
    expect(thrown).toMatchObject({ code: 'EPERM', message: 'EPERM: operation not permitted, rename' });
    expect(thrown).not.toBeInstanceOf(StillBusyError);
    expect(tries).toBe(2);
    expect(slept).toEqual([BUSY_WAITS_MS[0]]);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('the cache secret where the file system has no hard links', () => {
  const secret = () => path.join(dir, 'secret');

  /** link() refused as a file system without links refuses it; `first` runs before it fails (another process). */
  function noLinks(code: string, first?: () => void): void {
    moveSeams.link = () => {
      first?.();
      throw failure(code, 'link');
    };
  }

  it('is created exclusively instead, 0600, for every code a file system without links answers', () => {
    // Linux's vfat and SMB say EPERM; Windows' exFAT and FAT32 EISDIR (ERROR_INVALID_FUNCTION), ReFS and SMB ENOTSUP.
    for (const code of ['EPERM', 'EISDIR', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']) {
      rmSync(secret(), { force: true });
      noLinks(code);
      writeFileAtomic(secret(), `${code}\n`, { keepExisting: true });
      expect(readFileSync(secret(), 'utf8'), code).toBe(`${code}\n`);
      expect(statSync(secret()).mode & 0o777, code).toBe(0o600);
      expect(readdirSync(dir), code).toEqual(['secret']);
    }
  });

  it('keeps one someone made first, as a link would: never overwritten', () => {
    writeFileSync(secret(), 'theirs\n', { mode: 0o600 });
    noLinks('EISDIR');
    writeFileAtomic(secret(), 'mine\n', { keepExisting: true });
    expect(readFileSync(secret(), 'utf8')).toBe('theirs\n');
    expect(readdirSync(dir)).toEqual(['secret']);
  });

  it('two at once agree on one: the one that made the file first wins, and the other waits for its bytes', () => {
    // The other process made the file and had not written it yet when this one looked: its bytes come during the wait.
    noLinks('EPERM', () => writeFileSync(secret(), '', { mode: 0o600 }));
    moveSeams.sleep = (ms) => {
      slept.push(ms);
      if (slept.length === 2) writeFileSync(secret(), 'theirs\n');
    };
    writeFileAtomic(secret(), 'mine\n', { keepExisting: true });
    expect(readFileSync(secret(), 'utf8')).toBe('theirs\n');
    expect(slept).toEqual(BUSY_WAITS_MS.slice(0, 2));
    expect(readdirSync(dir)).toEqual(['secret']);
  });

  it('still fails on what is not a file system without links', () => {
    noLinks('ENOSPC');
    expect(() => writeFileAtomic(secret(), 'mine\n', { keepExisting: true })).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    expect(readdirSync(dir)).toEqual([]);
  });
});
