/**
 * The response cache's store (src/cache/store.ts) called directly, beyond what test/commands/cache.test.ts shows
 * through the commands: the secret, entries' age and heads, what a read or a clear makes (nothing), what a write
 * says when it cannot store, and every folder it opens closed again.
 */
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs, { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResponseHead } from '../../src/api/errors.js';
import { type CacheOptions, clearCache, dropKeyEntries, hasCacheSecret, openCache, systemMessage } from '../../src/cache/store.js';

const SECRET = 'ab'.repeat(32);
const KEY = 'key_of_rita_1234';
let home: string;
let dir: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'gymctl-cache-store-'));
  dir = path.join(home, 'gymctl');
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  rmSync(home, { recursive: true, force: true });
});

const env = () => ({ XDG_CACHE_HOME: home });
const hmac = (text: string, secret = SECRET) => createHmac('sha256', Buffer.from(secret, 'hex')).update(text).digest('hex').slice(0, 40);
const keyFolder = (key = KEY) => path.join(dir, hmac(`key\u0000${key}`));
const entryFile = (apiPath: string, key = KEY) => path.join(keyFolder(key), `${hmac(`https://api.example\u0000${apiPath}`)}.json`);
function withSecret(text = `${SECRET}\n`): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dir, 'secret'), text, { mode: 0o600 });
}
const open = (options: Partial<CacheOptions> = {}) => openCache({ env: env(), baseUrl: 'https://api.example', apiKey: KEY, lifetimeMs: 60_000, warn: () => {}, ...options });
/** The file descriptors this process has open: a folder handle left open shows here. */
const openFds = () => readdirSync('/proc/self/fd').length;
/** What `work` throws, which must be a failure of kind `internal` (exit 1 with gymctl's own words, never a stack). */
function internal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).toMatchObject({ kind: 'internal' });
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}
const HEAD: ResponseHead = { version: '1.1', status: 200, statusText: 'OK', headers: [['content-type', 'application/json']] };

describe('the cache secret', () => {
  it('is read trimmed, as hex: a secret file with spaces around it files entries where a clean one does', () => {
    withSecret(`  ${SECRET}  \n`);
    open().write('/me', '{"data":1}');
    expect(existsSync(entryFile('/me'))).toBe(true);
    expect(readdirSync(keyFolder())).toEqual([path.basename(entryFile('/me'))]);
  });

  it('hasCacheSecret: false with none, true with one, and each bad one said as such, naming the file and the fix', () => {
    const file = path.join(dir, 'secret');
    expect(hasCacheSecret(env())).toBe(false);
    withSecret();
    expect(hasCacheSecret(env())).toBe(true);
    for (const [text, said] of [
      ['not hex', 'is not a cache secret (64 hex digits)'],
      [`${SECRET}ff`, 'is not a cache secret (64 hex digits)'],
      [`ff${SECRET}`, 'is not a cache secret (64 hex digits)'],
      ['a'.repeat(2000), 'is too large to be a cache secret'],
    ]) {
      writeFileSync(file, text!);
      expect(
        internal(() => hasCacheSecret(env())),
        text,
      ).toBe(`${file} ${said}: remove it, and gymctl makes a new one`);
    }
    rmSync(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    expect(internal(() => hasCacheSecret(env()))).toBe(`${file} is not a regular file, so not a cache secret: remove it, and gymctl makes a new one`);
  });

  it('a secret that cannot be read for another reason is not called "not a regular file"', () => {
    withSecret();
    const denied = Object.assign(new Error('EACCES: permission denied, open'), { code: 'EACCES' });
    vi.spyOn(fs, 'openSync').mockImplementation(() => {
      throw denied;
    });
    expect(() => hasCacheSecret(env())).toThrow(denied);
  });
});

describe('what reading makes: nothing', () => {
  it('a cache folder with no secret: opening, reading and dropping a key make no secret and no folder', () => {
    mkdirSync(dir, { mode: 0o700 });
    const cache = open();
    expect(cache.read('/me')).toBeUndefined();
    expect(dropKeyEntries(env(), KEY)).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('no cache folder: dropping a key is 0, clearing holds no answers, and neither makes the folder', () => {
    expect(dropKeyEntries(env(), KEY)).toBe(0);
    expect(clearCache(env())).toEqual({ dir, removed: 0 });
    expect(existsSync(dir)).toBe(false);
  });

  it('a read for a key with no answers yet makes no folder for it; a folder removed after the cache was opened is not made again', () => {
    withSecret();
    const cache = open();
    expect(cache.read('/me')).toBeUndefined();
    expect(readdirSync(dir)).toEqual(['secret']);
    rmSync(dir, { recursive: true });
    expect(cache.read('/me')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('read-only (Tab completion): a write stores nothing', () => {
    withSecret();
    open({ readOnly: true }).write('/me', '{"data":1}');
    expect(readdirSync(dir)).toEqual(['secret']);
  });

  it('with --refresh alone (no lifetime), a fresh answer is never read', () => {
    withSecret();
    open().write('/me', '{"data":1}');
    expect(open().read('/me')?.body).toBe('{"data":1}');
    expect(open({ lifetimeMs: undefined }).read('/me')).toBeUndefined();
  });
});

describe('an entry’s age', () => {
  it('an answer of age 0 is served; one exactly as old as the duration is not; one from the future is not', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 });
    withSecret();
    open().write('/me', '{"data":1}');
    expect(open().read('/me')).toEqual({ body: '{"data":1}', ageMs: 0 });
    vi.setSystemTime(1_700_000_000_000 + 59_999);
    expect(open().read('/me')?.ageMs).toBe(59_999);
    vi.setSystemTime(1_700_000_000_000 + 60_000);
    expect(open().read('/me')).toBeUndefined();
    vi.setSystemTime(1_700_000_000_000 - 1);
    expect(open().read('/me')).toBeUndefined();
  });

  it('an entry whose body is not a string is a miss', () => {
    withSecret();
    open().write('/me', '{"data":1}');
    writeFileSync(entryFile('/me'), JSON.stringify({ storedAt: Date.now(), body: { data: 1 } }));
    expect(open().read('/me')).toBeUndefined();
  });
});

describe('an entry’s status line and headers', () => {
  it('are given back as stored', () => {
    withSecret();
    open().write('/me', '{"data":1}', HEAD);
    expect(open().read('/me')).toMatchObject({ body: '{"data":1}', head: HEAD });
  });

  it('anything but a whole head is no head, the body still served', () => {
    withSecret();
    open().write('/me', '{"data":1}', HEAD);
    const stored = JSON.parse(readFileSync(entryFile('/me'), 'utf8')) as { storedAt: number };
    for (const head of [
      null,
      'HTTP/1.1 200 OK',
      { ...HEAD, version: 1.1 },
      { ...HEAD, status: '200' },
      { ...HEAD, status: 200.5 },
      { ...HEAD, statusText: undefined },
      { ...HEAD, headers: 'content-type: application/json' },
      { ...HEAD, headers: [['content-type', 'application/json'], ['x-only-a-name']] },
      { ...HEAD, headers: [['content-type', 'application/json'], 'x-a-string'] },
      { ...HEAD, headers: [['content-type', 'application/json', 'x-a-third']] },
      { ...HEAD, headers: [['content-type', 7]] },
      { ...HEAD, headers: [[7, 'application/json']] },
    ]) {
      writeFileSync(entryFile('/me'), JSON.stringify({ storedAt: stored.storedAt, body: '{"data":1}', head }));
      const read = open().read('/me');
      expect(read?.body, JSON.stringify(head)).toBe('{"data":1}');
      expect(read && 'head' in read, JSON.stringify(head)).toBe(false);
    }
  });
});

describe('entries on disk', () => {
  it('are named by 40 hex digits of an HMAC, in a folder of 40 more', () => {
    withSecret();
    open().write('/academies/1', '{"data":1}');
    expect(readdirSync(keyFolder())).toEqual([expect.stringMatching(/^[0-9a-f]{40}\.json$/)]);
    expect(existsSync(entryFile('/academies/1'))).toBe(true);
  });
});

describe('a write that cannot store', () => {
  it('a key’s folder that is a file: said once, naming it, and the command goes on', () => {
    withSecret();
    writeFileSync(keyFolder(), 'not a folder');
    const warnings: string[] = [];
    const cache = open({ warn: (line) => warnings.push(line) });
    cache.write('/me', '{"data":1}');
    cache.write('/me', '{"data":2}');
    expect(warnings).toEqual([`the answer could not be cached in ${dir}: ${keyFolder()} is not a folder`]);
  });

  it('a key’s folder that cannot be made: the system’s reason, not "not a folder"', () => {
    withSecret();
    const real = fs.mkdirSync;
    vi.spyOn(fs, 'mkdirSync').mockImplementation((target, options) => {
      if (String(target) === keyFolder() || String(target).endsWith(path.basename(keyFolder())))
        throw Object.assign(new Error('EDQUOT: disk quota exceeded, mkdir'), { code: 'EDQUOT' });
      return real(target, options);
    });
    const warnings: string[] = [];
    open({ warn: (line) => warnings.push(line) }).write('/me', '{"data":1}');
    expect(warnings).toEqual([`the answer could not be cached in ${dir}: EDQUOT: disk quota exceeded, mkdir`]);
  });

  it('a second write of a key whose folder is there (EEXIST) stores it', () => {
    withSecret();
    open().write('/a', '{"data":1}');
    open().write('/b', '{"data":2}');
    expect(readdirSync(keyFolder()).sort()).toEqual([path.basename(entryFile('/a')), path.basename(entryFile('/b'))].sort());
  });
});

describe('cache clear', () => {
  it('counts only answers, removes whatever else a key’s folder holds (a folder too), and the key’s folder', () => {
    withSecret();
    open().write('/a', '{"data":1}');
    open().write('/b', '{"data":2}');
    writeFileSync(path.join(keyFolder(), 'leftover.tmp'), 'x');
    mkdirSync(path.join(keyFolder(), 'odd-folder'));
    writeFileSync(path.join(keyFolder(), 'odd-folder', 'inside.json'), 'x');
    expect(clearCache(env())).toEqual({ dir, removed: 2 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a link in the cache folder is removed as itself, what it points to left alone', () => {
    withSecret();
    const elsewhere = path.join(home, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, 'kept.json'), 'x');
    symlinkSync(elsewhere, path.join(dir, 'a-link'));
    expect(clearCache(env()).removed).toBe(0);
    expect(readdirSync(elsewhere)).toEqual(['kept.json']);
    expect(existsSync(path.join(dir, 'a-link'))).toBe(false);
  });

  it('a cache folder that is a link, or a file, is said as such, not cleared through', () => {
    const elsewhere = path.join(home, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, dir);
    const said = `cache folder ${dir} is not a folder (a link, or a file): remove it, or set XDG_CACHE_HOME`;
    expect(internal(() => clearCache(env()))).toBe(said);
    rmSync(dir);
    writeFileSync(dir, 'a file');
    expect(internal(() => clearCache(env()))).toBe(said);
  });

  it('whichever of ELOOP or ENOTDIR the system says of it; any other failure to open it is said as a failure to clear', () => {
    mkdirSync(dir, { mode: 0o700 });
    const real = fs.openSync;
    let code = 'ELOOP';
    vi.spyOn(fs, 'openSync').mockImplementation((target, ...rest) => {
      if (String(target) === dir) throw Object.assign(new Error(`${code}: said by the system, open`), { code });
      return real(target, ...rest);
    });
    expect(internal(() => clearCache(env()))).toBe(`cache folder ${dir} is not a folder (a link, or a file): remove it, or set XDG_CACHE_HOME`);
    code = 'EIO';
    expect(internal(() => clearCache(env()))).toBe(`the cache folder ${dir} could not be cleared: EIO: said by the system, open`);
  });

  it('a removal the system refuses is said naming the folder and how many answers went before it, without the handle’s path', () => {
    withSecret();
    open().write('/a', '{"data":1}');
    open({ apiKey: 'another_key_5678' }).write('/a', '{"data":1}');
    const real = fs.rmSync;
    let calls = 0;
    vi.spyOn(fs, 'rmSync').mockImplementation((target, options) => {
      if (String(target).endsWith('.json') && ++calls === 2) throw Object.assign(new Error("EROFS: read-only file system, unlink '/proc/self/fd/18'"), { code: 'EROFS' });
      return real(target, options);
    });
    expect(internal(() => clearCache(env()))).toBe(`the cache folder ${dir} could not be cleared (1 answers were removed): EROFS: read-only file system, unlink`);
    calls = 0;
    vi.spyOn(fs, 'readdirSync').mockImplementation(() => {
      throw Object.assign(new Error('EIO: i/o error, scandir'), { code: 'EIO' });
    });
    expect(() => clearCache(env())).toThrow(`the cache folder ${dir} could not be cleared: EIO: i/o error, scandir`);
  });

  it('a failure that is not the system’s (no code) is not dressed as one', () => {
    withSecret();
    const odd = new Error('something odd');
    vi.spyOn(fs, 'readdirSync').mockImplementation(() => {
      throw odd;
    });
    expect(() => clearCache(env())).toThrow(odd);
  });
});

describe.skipIf(process.getuid?.() !== 0)('someone else’s cache folder (as root, to give it away)', () => {
  it('a cache folder of another user is refused by the path rule, naming the uid and the fix', () => {
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 4242, 4242);
    expect(() => clearCache(env())).toThrow(`will not use the cache folder ${dir}: ${dir} belongs to another user (uid 4242); run gymctl as that user, or set XDG_CACHE_HOME`);
  });

  it('a cache folder given to another user between the path rule’s check and its opening is refused all the same', () => {
    mkdirSync(dir, { mode: 0o700 });
    const real = fs.openSync;
    vi.spyOn(fs, 'openSync').mockImplementation((target, ...rest) => {
      if (String(target) === dir) chownSync(dir, 4242, 4242);
      return real(target, ...rest);
    });
    expect(internal(() => clearCache(env()))).toBe(
      `cache folder ${dir} belongs to another user (uid 4242), so gymctl will not keep answers in it: set XDG_CACHE_HOME to a folder of your own`,
    );
  });

  it('a cache folder reached through a folder others may write is refused, naming the fix', () => {
    chmodSync(home, 0o777);
    chownSync(home, 4242, 4242);
    expect(() => clearCache(env())).toThrow(/will not use the cache folder .*; (run gymctl as that user, or )?set XDG_CACHE_HOME to a folder of your own$/);
  });
});

describe('every folder opened is closed again', () => {
  it('after reads, writes, a failed write, a clear, a key dropped and hasCacheSecret', () => {
    withSecret();
    const before = openFds();
    const cache = open();
    cache.write('/a', '{"data":1}');
    cache.read('/a');
    cache.read('/missing');
    open({ apiKey: 'other' }).read('/a');
    writeFileSync(keyFolder('third'), 'not a folder');
    open({ apiKey: 'third' }).write('/a', '{"data":1}');
    dropKeyEntries(env(), KEY);
    open().write('/a', '{"data":1}');
    clearCache(env());
    hasCacheSecret(env());
    expect(openFds()).toBe(before);
  });
});

describe('a system error said without the path of a handle', () => {
  it('drops /proc/self/fd/N, a leading comma and a leading "Unknown error: "', () => {
    expect(systemMessage(new Error("EROFS: read-only file system, chmod '/proc/self/fd/18'"))).toBe('EROFS: read-only file system, chmod');
    expect(systemMessage(new Error(", Unknown error: Read-only file system '/proc/self/fd/7'"))).toBe('Read-only file system');
    expect(systemMessage(new Error('EIO: Unknown error: 5'))).toBe('EIO: Unknown error: 5');
    expect(systemMessage('not an error')).toBe('not an error');
  });
});
