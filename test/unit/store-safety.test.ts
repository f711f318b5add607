/**
 * The config store at its seams: whose files it writes, what it agrees to
 * read, how two writers share the lock, and what a failed write leaves.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { ConfigStore } from '../../src/config/store.js';
import { waitFor } from '../helpers/wait.js';
import { needsRoot } from '../helpers/root.js';

let base: string;
let dir: string;
let file: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-store-'));
  dir = path.join(base, 'config');
  file = path.join(dir, 'config.json');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function failure(work: () => unknown): Promise<GymctlError> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(GymctlError);
    return error as GymctlError;
  }
  throw new Error('expected a failure');
}

/** Changing owners needs root: CI runs as root; elsewhere these tests say so and are skipped. */
const isRoot = needsRoot('the ownership tests', 'to give files to another user');
const OTHER_UID = 4242;

describe.skipIf(!isRoot)('ownership: the key is written only into a folder and file of the user’s own', () => {
  it('a config folder owned by another user is refused before anything is written', async () => {
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, OTHER_UID, OTHER_UID);
    const error = await failure(() => new ConfigStore(dir).updateProfile('default', () => ({ apiKey: 'k_1234567890abcd' })));
    expect(error.message).toBe(
      `gymctl runs as uid 0 and will not write the config folder ${dir}: it belongs to another user (uid ${OTHER_UID}); run gymctl as that user, or point GYMCTL_CONFIG_DIR at a folder of your own`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a config file owned by another user is refused, and left as it was', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{"profiles":{"default":{"format":"csv"}}}\n', { mode: 0o600 });
    chownSync(file, OTHER_UID, OTHER_UID);
    const error = await failure(() => new ConfigStore(dir).updateProfile('default', () => ({ apiKey: 'k_1234567890abcd' })));
    expect(error.message).toBe(
      `gymctl runs as uid 0 and will not write the config file ${file}: it belongs to another user (uid ${OTHER_UID}); run gymctl as that user, or remove the file`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"profiles":{"default":{"format":"csv"}}}\n');
  });

  it('a linked config.json whose real file another user owns is refused: the key is never written into their file', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const theirs = path.join(base, 'theirs');
    mkdirSync(theirs, { mode: 0o755 });
    const real = path.join(theirs, 'config.json');
    writeFileSync(real, '{"profiles":{"default":{"format":"csv"}}}\n', { mode: 0o600 });
    chownSync(real, OTHER_UID, OTHER_UID);
    symlinkSync(real, file);
    const error = await failure(() => new ConfigStore(dir).updateProfile('default', () => ({ apiKey: 'k_1234567890abcd' })));
    expect(error.message).toBe(
      `gymctl runs as uid 0 and will not write the config file ${real}: it belongs to another user (uid ${OTHER_UID}); run gymctl as that user, or remove the file`,
    );
    expect(readFileSync(real, 'utf8')).toBe('{"profiles":{"default":{"format":"csv"}}}\n');
  });

  it('a config folder others can write to is refused, naming the fix', async () => {
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expect((await failure(() => new ConfigStore(dir).update((f) => f))).message).toContain(`fix it with: chmod 700 ${dir}`);
  });

  it('reading a file another user owns warns, once', () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{}', { mode: 0o600 });
    chownSync(file, OTHER_UID, OTHER_UID);
    const warnings: string[] = [];
    const store = new ConfigStore(dir, { warn: (message) => warnings.push(message) });
    store.read();
    store.read();
    expect(warnings).toEqual([`warning: config file ${file} belongs to another user (uid ${OTHER_UID}); its settings and key are theirs`]);
  });
});

describe('reading is bounded', () => {
  beforeEach(() => mkdirSync(dir, { mode: 0o700 }));

  it('a FIFO in place of the file is refused at once, not waited on', async () => {
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    // Refused before it is opened: reading a FIFO no one writes to would block this process for good (a hang, not a slow test).
    expect((await failure(() => new ConfigStore(dir).read())).message).toBe(`config file ${file} is not a regular file; remove it, or point GYMCTL_CONFIG_DIR elsewhere`);
  });

  it('a symlink to /dev/zero is refused; a symlink to a regular file is read', async () => {
    symlinkSync('/dev/zero', file);
    expect((await failure(() => new ConfigStore(dir).read())).message).toContain('is not a regular file');
    rmSync(file);
    writeFileSync(path.join(base, 'real.json'), '{"defaultProfile":"work"}', { mode: 0o600 });
    symlinkSync(path.join(base, 'real.json'), file);
    expect(new ConfigStore(dir).read()).toEqual({ defaultProfile: 'work' });
  });

  it('a file over 1 MiB is refused, naming it', async () => {
    writeFileSync(file, `{"x":"${'a'.repeat(1024 * 1024)}"}`, { mode: 0o600 });
    const error = await failure(() => new ConfigStore(dir).read());
    expect(error.message).toBe(`config file ${file} is larger than 1 MiB, which no gymctl config is; fix or remove it`);
    expect(error.kind).toBe('internal');
  });
});

describe('the lock', () => {
  /** The PID of a process that has ended. */
  const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

  /**
   * Counts the writer's tries at taking the lock (creating it exclusively), through the module object lock.ts uses:
   * waiting for a lock is trying again and again, so "at once" is a count of tries, not a time.
   */
  function countTries(onTry: () => void = () => {}) {
    const fs = process.getBuiltinModule('node:fs');
    const openSync = fs.openSync;
    let tries = 0;
    const spy = vi.spyOn(fs, 'openSync').mockImplementation(((...args: Parameters<typeof openSync>) => {
      if (args[0] === `${file}.lock` && args[1] === 'wx') {
        tries++;
        onTry();
      }
      return openSync(...args);
    }) as never);
    return { tries: () => tries, restore: () => spy.mockRestore() };
  }

  it('a lock left by a process that is gone is taken over at once', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(`${file}.lock`, `${deadPid()} left-behind\n`);
    const counted = countTries();
    try {
      await new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' }));
    } finally {
      counted.restore();
    }
    // The try that finds the stale lock, and the one after taking it over: no wait between.
    expect(counted.tries()).toBe(2);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.format).toBe('json');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('16 writers meeting one stale lock lose nothing, and leave nothing behind', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(`${file}.lock`, `${deadPid()} left-behind\n`);
    const names = Array.from({ length: 16 }, (_, i) => `p${i}`);
    await Promise.all(names.map((name) => new ConfigStore(dir).updateProfile(name, () => ({ format: 'json' }))));
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).profiles).sort()).toEqual([...names].sort());
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it("taking over a lock judged stale never removes a live writer's lock that took its place, whatever another writer does meanwhile", async () => {
    // The race, step by step: writer B judged a dead writer's lock stale; meanwhile that lock went and writer A
    // took the lock. If B's takeover frees the name even for a moment, writer W takes it, and A and W are both inside.
    const { takeOver } = await import('../../src/config/lock.js');
    // The module object lock.ts itself uses (its ESM namespace cannot be spied on).
    const fs = process.getBuiltinModule('node:fs');
    mkdirSync(dir, { mode: 0o700 });
    const lock = `${file}.lock`;
    const fresh = `${process.pid} writer-a\n`;
    writeFileSync(lock, fresh);
    const freeing = ['renameSync', 'rmSync', 'unlinkSync'] as const;
    const real = Object.fromEntries(freeing.map((name) => [name, fs[name]])) as Record<(typeof freeing)[number], (...args: unknown[]) => unknown>;
    // Writer W: the moment the lock's name is free, it takes it.
    const spies = freeing.map((name) =>
      vi.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
        const result = real[name]!(...args);
        if (args[0] === lock && !existsSync(lock)) fs.writeFileSync(lock, `${process.pid} writer-w\n`, { flag: 'wx' });
        return result;
      }) as never),
    );
    try {
      takeOver(lock, '4242 a-dead-writer\n');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(readFileSync(lock, 'utf8')).toBe(fresh);
  });

  it('a FIFO in place of the lock is refused at once, not waited on', async () => {
    mkdirSync(dir, { mode: 0o700 });
    expect(spawnSync('mkfifo', [`${file}.lock`]).status).toBe(0);
    const counted = countTries();
    let error: GymctlError;
    try {
      error = await failure(() => new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' })));
    } finally {
      counted.restore();
    }
    expect(error.message).toBe(`${file}.lock is not a regular file, so not a gymctl lock: remove it`);
    // Refused on the first try, not tried again until the wait runs out.
    expect(counted.tries()).toBe(1);
  });

  it('copies left by a writer killed before its rename (they may hold the key) go with the next write, or with logout', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const leftovers = [`${file}.tmp-1732400000123abcdef`, `${file}.4242.lq2x9a.tmp`];
    for (const leftover of leftovers) writeFileSync(leftover, '{"profiles":{"default":{"apiKey":"k_0123456789abcdef"}}}', { mode: 0o600 });
    await new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' }));
    expect(readdirSync(dir)).toEqual(['config.json']);
    for (const leftover of leftovers) writeFileSync(leftover, 'x', { mode: 0o600 });
    await new ConfigStore(dir).sweep();
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('a live process’s lock is never taken over, however old: the writer gives up, naming the process', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(`${file}.lock`, `${process.pid} mine\n`);
    // The writer's clock moves on 100 ms at each try, whatever the machine's speed: it tries until its 300 ms have
    // passed on that clock (at 100, 200, 300 and 400 ms), then gives up.
    let now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    const counted = countTries(() => (now += 100));
    let error: Error;
    try {
      error = await failure(() => new ConfigStore(dir, { lockWaitMs: 300 }).updateProfile('default', () => ({ format: 'json' })));
    } finally {
      counted.restore();
      clock.mockRestore();
    }
    expect(counted.tries()).toBe(4);
    expect(error.message).toBe(`config file ${file} is locked by gymctl process ${process.pid}; if none is running, remove ${file}.lock`);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(`${process.pid} mine\n`);
    expect(existsSync(file)).toBe(false);
  });

  it('an interrupt while waiting for the lock ends the wait at once, leaving the lock and the file alone', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(`${file}.lock`, `${process.pid} mine\n`);
    const controller = new AbortController();
    const store = new ConfigStore(dir, { signal: controller.signal });
    const counted = countTries();
    let triesWhenInterrupted = 0;
    try {
      const updating = store.update((f) => ({ ...f, defaultProfile: 'x' }));
      // Interrupted once it is waiting: it has tried, slept, and tried again.
      await waitFor('a second try at the lock', () => counted.tries() >= 2);
      triesWhenInterrupted = counted.tries();
      controller.abort(new Error('interrupted'));
      await expect(updating).rejects.toThrow('interrupted');
    } finally {
      counted.restore();
    }
    // At once: no more tries after the interrupt (the wait would go on trying for seconds).
    expect(counted.tries() - triesWhenInterrupted).toBeLessThanOrEqual(1);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(`${process.pid} mine\n`);
  });
});

describe('writing', () => {
  it('a parent that is not a folder: said so, naming it, not an unexpected error', async () => {
    writeFileSync(path.join(base, 'plain-file'), '');
    const inside = path.join(base, 'plain-file', 'config');
    const error = await failure(() => new ConfigStore(inside).update((f) => f));
    expect(error.message).toBe(
      `config folder ${inside} is not a folder (${path.join(base, 'plain-file')} is not one); point GYMCTL_CONFIG_DIR at a folder (gymctl config path prints the one in use)`,
    );
  });

  it('a folder that takes no new folders: "cannot be written" with the reason, at once', async () => {
    symlinkSync(path.join(base, 'nothing'), path.join(base, 'dangling'));
    const inside = path.join(base, 'dangling', 'config');
    const error = await failure(() => new ConfigStore(inside).update((f) => f));
    expect(error.message).toBe(`config file ${inside}/config.json cannot be written (ENOENT: ${path.join(base, 'dangling')} is a link to nothing)`);
  });

  /** Writes `stored`, changes the default profile's format through the store, and gives back the file's text. */
  async function rewrite(stored: string): Promise<string> {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, stored, { mode: 0o600 });
    await new ConfigStore(dir).updateProfile('default', (p) => ({ ...p, format: 'json' }));
    return readFileSync(file, 'utf8');
  }

  it('__proto__ members, like every member gymctl does not know, are kept', async () => {
    const text = await rewrite('{"__proto__":{"polluted":true},"profiles":{"default":{"__proto__":{"x":1},"format":"csv"}}}');
    expect(text).toContain('"__proto__": {\n    "polluted": true\n  }');
    expect(text).toContain('"__proto__": {\n        "x": 1\n      }');
    expect(text).toContain('"format": "json"');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('integers beyond 2^53 in fields gymctl does not know keep every digit', async () => {
    const text = await rewrite('{"teamId":12345678901234567890,"profiles":{"default":{"orgId":9007199254740993,"format":"csv"}}}');
    expect(text).toContain('"teamId": 12345678901234567890');
    expect(text).toContain('"orgId": 9007199254740993');
  });

  it("the sweep of a dead writer's copies leaves the user's own files alone: config.json.bak, notes.tmp", async () => {
    mkdirSync(dir, { mode: 0o700 });
    const mine = ['config.json.bak', 'notes.tmp', 'other.json.tmp', 'config.jsonx.tmp-1'];
    for (const name of mine) writeFileSync(path.join(dir, name), 'mine', { mode: 0o600 });
    writeFileSync(`${file}.tmp-1732400000123abcdef`, 'x', { mode: 0o600 });
    await new ConfigStore(dir).sweep();
    expect(readdirSync(dir).sort()).toEqual([...mine].sort());
    await new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' }));
    expect(readdirSync(dir).sort()).toEqual(['config.json', ...mine].sort());
  });

  it('a symlinked config.json stays a link: the file it points to is written', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const dotfiles = path.join(base, 'dotfiles');
    mkdirSync(dotfiles, { mode: 0o700 });
    const real = path.join(dotfiles, 'gymctl.json');
    writeFileSync(real, '{"profiles":{"default":{"format":"csv"}}}', { mode: 0o600 });
    symlinkSync(real, file);
    await new ConfigStore(dir).updateProfile('default', (p) => ({ ...p, format: 'json' }));
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8')).profiles.default.format).toBe('json');
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(readdirSync(dotfiles)).toEqual(['gymctl.json']);
  });

  it('a config folder others can read is tightened to 0700 when the key is written into it', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    await new ConfigStore(dir).updateProfile('default', (p) => ({ ...p, apiKey: 'key_1234567890' }));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('what a failed write or read of the config says', () => {
  const fs = process.getBuiltinModule('node:fs');
  /** An error of the file system, as Node throws it. */
  const fsError = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

  it('a write the system refuses names the reason in words, and the folder to check when it is about permissions', async () => {
    const cases: [string, string][] = [
      ['EACCES', `(EACCES: permission denied); check the permissions of ${dir}`],
      ['EPERM', `(EPERM: operation not permitted); check the permissions of ${dir}`],
      ['EROFS', `(EROFS: read-only file system); check the permissions of ${dir}`],
      ['ENOSPC', '(ENOSPC: no space left on the device)'],
      ['EDQUOT', '(EDQUOT: disk quota exceeded)'],
      ['ENOTDIR', '(ENOTDIR: a part of its path is not a folder)'],
      ['EISDIR', '(EISDIR: it is a folder)'],
      ['EIO', '(EIO)'],
    ];
    mkdirSync(dir, { mode: 0o755 });
    for (const [code, words] of cases) {
      const thrown = fsError(code);
      const spy = vi.spyOn(fs, 'chmodSync').mockImplementation(() => {
        throw thrown;
      });
      try {
        const error = await failure(() => new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' })));
        expect(error.message, code).toBe(`config file ${file} cannot be written ${words}`);
        expect(error.kind).toBe('internal');
        expect(error.cause).toBe(thrown);
      } finally {
        spy.mockRestore();
      }
    }
  });

  it('a read the system refuses says the file cannot be read, and to fix or remove it', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{}', { mode: 0o600 });
    const spy = vi.spyOn(fs, 'openSync').mockImplementation(() => {
      throw fsError('EACCES');
    });
    try {
      const error = await failure(() => new ConfigStore(dir).read());
      expect(error.message).toBe(`config file ${file} cannot be read (EACCES: permission denied); fix or remove it`);
      expect(error.kind).toBe('internal');
    } finally {
      spy.mockRestore();
    }
  });

  it('a config file others can read is warned about once, with its mode and the fix; a private one is not', () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{}', { mode: 0o600 });
    chmodSync(file, 0o640);
    const warnings: string[] = [];
    const store = new ConfigStore(dir, { warn: (line) => warnings.push(line) });
    store.read();
    new ConfigStore(dir, { warn: (line) => warnings.push(line) }).read();
    expect(warnings).toEqual([
      `warning: config file ${file} can be read by others (mode 0640) and may hold your API key; fix it with: chmod 600 ${file}`,
      `warning: config file ${file} can be read by others (mode 0640) and may hold your API key; fix it with: chmod 600 ${file}`,
    ]);
    chmodSync(file, 0o600);
    const quiet: string[] = [];
    new ConfigStore(dir, { warn: (line) => quiet.push(line) }).read();
    expect(quiet).toEqual([]);
  });
});

describe('a config folder that is not one', () => {
  it('is named as such on reading, never read as an empty config', async () => {
    writeFileSync(path.join(base, 'plain'), 'x');
    const asFile = path.join(base, 'plain');
    expect((await failure(() => new ConfigStore(asFile).read())).message).toBe(
      `config folder ${asFile} is not a folder; point GYMCTL_CONFIG_DIR at a folder (gymctl config path prints the one in use)`,
    );
    const under = path.join(asFile, 'deeper', 'config');
    const error = await failure(() => new ConfigStore(under).read());
    expect(error.message).toBe(`config folder ${under} is not a folder (${asFile} is not one); point GYMCTL_CONFIG_DIR at a folder (gymctl config path prints the one in use)`);
    expect(error.kind).toBe('internal');
  });

  it('a folder still to be made reads as an empty config, and is not made by reading', () => {
    expect(new ConfigStore(dir).read()).toEqual({});
    expect(existsSync(dir)).toBe(false);
  });
});

describe('auth logout with nothing to sweep', () => {
  it('a config folder not made yet is left unmade, and the sweep ends quietly', async () => {
    await new ConfigStore(dir).sweep();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('a lock that cannot be taken', () => {
  it('a write whose lock the system refuses says the config cannot be written, with the reason, on a write and on a sweep', async () => {
    const fs = process.getBuiltinModule('node:fs');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(`${file}.tmp-1732400000123abcdef`, 'x', { mode: 0o600 });
    const openSync = fs.openSync;
    const spy = vi.spyOn(fs, 'openSync').mockImplementation(((...args: Parameters<typeof openSync>) => {
      if (String(args[0]).endsWith('.lock')) throw Object.assign(new Error('EROFS: read-only'), { code: 'EROFS' });
      return openSync(...args);
    }) as typeof openSync);
    try {
      const expected = `config file ${file} cannot be written (EROFS: read-only file system); check the permissions of ${dir}`;
      expect((await failure(() => new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' })))).message).toBe(expected);
      expect((await failure(() => new ConfigStore(dir).sweep())).message).toBe(expected);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('a config file others can read, in a write', () => {
  it('is warned about once, though a write reads it twice', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{}', { mode: 0o600 });
    chmodSync(file, 0o644);
    const warnings: string[] = [];
    await new ConfigStore(dir, { warn: (line) => warnings.push(line) }).updateProfile('default', () => ({ format: 'json' }));
    expect(warnings).toHaveLength(1);
  });
});

describe('a write that fails inside conf', () => {
  it('says the config cannot be written, with the reason and the folder to check, and leaves the file as it was', async () => {
    const { Conf } = await import('../../src/config/conf.js');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{"profiles":{"default":{"format":"csv"}}}\n', { mode: 0o600 });
    const spy = vi.spyOn(Conf.prototype as unknown as { _write: () => void }, '_write').mockImplementation(() => {
      throw Object.assign(new Error('EACCES: denied'), { code: 'EACCES' });
    });
    try {
      const error = await failure(() => new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' })));
      expect(error.message).toBe(`config file ${file} cannot be written (EACCES: permission denied); check the permissions of ${dir}`);
    } finally {
      spy.mockRestore();
    }
    expect(readFileSync(file, 'utf8')).toBe('{"profiles":{"default":{"format":"csv"}}}\n');
  });
});
