/**
 * The secret the code cache signs with (src/startup/secret.ts), read and made
 * on the real file system: taken only from a regular file of the user's
 * own, closed to others, of 64 hex digits; made only in a folder of the
 * user's own, never over one another gymctl made first. The tests that
 * give files to another user need root.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readSecret, secretToSign } from '../../src/startup/secret.js';
import { needsRoot } from '../helpers/root.js';

let base: string;
let config: string;
let secretFile: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-code-cache-secret-'));
  config = path.join(base, 'config');
  secretFile = path.join(config, 'cache-secret');
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(base, { recursive: true, force: true });
});

const HEX = 'ab'.repeat(32);
const SECRET = Buffer.from(HEX, 'hex');

/** The config folder (0700) with `text` as its secret file (0600 unless told). */
function withSecret(text: string, mode = 0o600): void {
  mkdirSync(config, { recursive: true, mode: 0o700 });
  writeFileSync(secretFile, text, { mode });
  chmodSync(secretFile, mode);
}

/** The file descriptors this process holds (Linux): none may be left open by a read. */
const openFiles = () => readdirSync('/proc/self/fd').length;

/** Changing owners needs root: CI runs as root; elsewhere these tests say so and are skipped. */
const isRoot = needsRoot('the ownership tests of the code cache secret', 'to give files to another user');

describe('readSecret: 64 hex digits in a regular file of the user’s own, closed to others', () => {
  it('takes the secret, with or without a newline or spaces around it', () => {
    for (const text of [HEX, `${HEX}\n`, ` \t${HEX}\r\n`]) {
      withSecret(text);
      expect(readSecret(config), JSON.stringify(text)).toEqual(SECRET);
    }
  });

  it('is missing only when there is no file; an unreadable path (a file where the folder should be) is no secret', () => {
    expect(readSecret(config)).toBe('missing');
    writeFileSync(config, HEX);
    expect(readSecret(config)).toBeUndefined();
  });

  it('refuses text that is a digit off: one more or fewer, a letter beyond f, capitals, anything before or after', () => {
    for (const text of [HEX.slice(1), `${HEX}a`, `${HEX.slice(1)}g`, `g${HEX.slice(1)}`, HEX.toUpperCase(), `x${HEX}`, `${HEX}x`, `${HEX} ${HEX}`, '']) {
      withSecret(text);
      expect(readSecret(config), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('reads a file of up to 1024 bytes whole, and refuses a larger one unread', () => {
    // The digits last, so that a read short of the whole file would miss them.
    withSecret(`${' '.repeat(1024 - 64)}${HEX}`);
    expect(readSecret(config)).toEqual(SECRET);
    withSecret(`${' '.repeat(1025 - 64)}${HEX}`);
    expect(readSecret(config)).toBeUndefined();
    withSecret(`${HEX}${'\n'.repeat(1025 - 64)}`);
    expect(readSecret(config)).toBeUndefined();
  });

  it('refuses a secret others may read or write, a folder in its place, and a FIFO, at once (it never waits on a writer)', () => {
    for (const mode of [0o644, 0o640, 0o604, 0o602, 0o620, 0o660]) {
      withSecret(HEX, mode);
      expect(readSecret(config), mode.toString(8)).toBeUndefined();
    }
    rmSync(secretFile);
    mkdirSync(secretFile, { mode: 0o700 });
    expect(readSecret(config)).toBeUndefined();
    rmSync(secretFile, { recursive: true });
    expect(spawnSync('mkfifo', ['-m', '600', secretFile]).status).toBe(0);
    expect(readSecret(config)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('leaves no file open, whether the secret is taken or refused', () => {
    const before = openFiles();
    withSecret(HEX);
    for (let i = 0; i < 5; i++) expect(readSecret(config)).toEqual(SECRET);
    withSecret(HEX, 0o644);
    for (let i = 0; i < 5; i++) expect(readSecret(config)).toBeUndefined();
    expect(openFiles()).toBe(before);
  });

  it.skipIf(!isRoot)('refuses a secret of another user’s, even closed to others, and one reached through a link to it', () => {
    withSecret(HEX);
    chownSync(secretFile, 65534, 65534);
    expect(readSecret(config)).toBeUndefined();
    const own = path.join(base, 'own');
    mkdirSync(own, { mode: 0o700 });
    symlinkSync(secretFile, path.join(own, 'cache-secret'));
    expect(readSecret(own)).toBeUndefined();
  });
});

describe('secretToSign: the secret there, or one made in a folder of the user’s own', () => {
  it('makes a secret (64 hex digits, 0600) when there is none, and takes it from then on', () => {
    const made = secretToSign(config);
    expect(made?.length).toBe(32);
    expect(readFileSync(secretFile, 'utf8')).toBe(`${made!.toString('hex')}\n`);
    expect(secretToSign(config)).toEqual(made);
  });

  it('takes the secret that is there without loading crypto (a cost on every write of the cache), and makes none beside a refused one', () => {
    withSecret(HEX);
    const getBuiltin = vi.spyOn(process, 'getBuiltinModule');
    expect(secretToSign(config)).toEqual(SECRET);
    withSecret(HEX, 0o644);
    expect(secretToSign(config)).toBeUndefined();
    expect(getBuiltin.mock.calls.filter(([name]) => name === 'node:crypto')).toEqual([]);
    expect(readdirSync(config)).toEqual(['cache-secret']);
  });

  it('never writes over a secret another gymctl made while it was making its own', () => {
    const fs = process.getBuiltinModule('node:fs');
    const openSync = fs.openSync;
    let first = true;
    vi.spyOn(fs, 'openSync').mockImplementation(((...args: Parameters<typeof openSync>) => {
      if (args[0] === secretFile && first) {
        // The first look finds none; before this gymctl writes its own, another one makes the folder and its secret.
        first = false;
        withSecret(`${HEX}\n`);
        throw Object.assign(new Error(`ENOENT: no such file or directory, open '${secretFile}'`), { code: 'ENOENT' });
      }
      return openSync(...args);
    }) as never);
    expect(secretToSign(config)).toEqual(SECRET);
    expect(readFileSync(secretFile, 'utf8')).toBe(`${HEX}\n`);
    expect(readdirSync(config)).toEqual(['cache-secret']);
  });

  it.runIf(process.platform === 'linux')('makes no secret where its folder cannot be made (procfs), whatever a later look would find', () => {
    const fs = process.getBuiltinModule('node:fs');
    const openSync = fs.openSync;
    const elsewhere = path.join(base, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o700 });
    writeFileSync(path.join(elsewhere, 'cache-secret'), HEX, { mode: 0o600 });
    // A folder of procfs, which takes no new folders: the config folder cannot be made. A second look would find a secret.
    const dir = '/proc/gymctl-code-cache-secret-test/config';
    let looks = 0;
    vi.spyOn(fs, 'openSync').mockImplementation(((...args: Parameters<typeof openSync>) => {
      if (args[0] === path.join(dir, 'cache-secret') && looks++ > 0) return openSync(path.join(elsewhere, 'cache-secret'), args[1]);
      return openSync(...args);
    }) as never);
    expect(secretToSign(dir)).toBeUndefined();
  });

  it('makes no secret through a link in the config folder’s place, even one of the user’s own to a folder of the user’s own', () => {
    const target = path.join(base, 'target');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, config);
    expect(secretToSign(config)).toBeUndefined();
    expect(readdirSync(target)).toEqual([]);
  });

  it.skipIf(!isRoot)('makes no secret in a folder of root’s for a user who is not root, though the walk trusts folders of root’s', () => {
    mkdirSync(config, { mode: 0o700 });
    vi.spyOn(process, 'getuid').mockReturnValue(4242);
    expect(secretToSign(config)).toBeUndefined();
    expect(existsSync(secretFile)).toBe(false);
    expect(readdirSync(config)).toEqual([]);
  });

  it.skipIf(!isRoot)('makes no secret in a folder of another user’s', () => {
    mkdirSync(config, { mode: 0o700 });
    chownSync(config, 65534, 65534);
    expect(secretToSign(config)).toBeUndefined();
    expect(readdirSync(config)).toEqual([]);
  });
});
