/**
 * conf writes the config file: every write of the store goes through it,
 * with the options that keep gymctl's promises (the real file behind a
 * symlink, mode 0600, exact JSON, never clearing a broken file), and reads
 * never load it. The real conf does the writing here: the mock only records
 * what it was asked. (store-safety.test.ts checks what conf writes:
 * 64-bit integers, __proto__ and unknown members, the lock, the folder.)
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const made = vi.hoisted(() => [] as Array<Record<string, unknown>>);
// An error the next conf throws as it opens the file, as conf does when the file changed after gymctl checked it.
const failing = vi.hoisted(() => ({ next: undefined as Error | undefined }));
vi.mock('conf', async (importOriginal) => {
  const { default: Conf } = await importOriginal<typeof import('conf')>();
  class RecordedConf<T extends Record<string, unknown>> extends Conf<T> {
    constructor(options: ConstructorParameters<typeof Conf<T>>[0]) {
      made.push({ ...options });
      const error = failing.next;
      failing.next = undefined;
      if (error) throw error;
      super(options);
    }
  }
  return { default: RecordedConf };
});

const { ConfigStore } = await import('../../src/config/store.js');

let base: string;
let dir: string;
let file: string;
beforeEach(() => {
  made.length = 0;
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-conf-'));
  dir = path.join(base, 'config');
  file = path.join(dir, 'config.json');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('conf writes the config file', () => {
  it('every write goes through conf, with mode 0600, no clearing, and gymctl’s exact JSON', async () => {
    await new ConfigStore(dir).updateProfile('default', () => ({ apiKey: 'k_1234567890abcdef', format: 'json' }));
    await new ConfigStore(dir).update((f) => ({ ...f, defaultProfile: 'default' }));
    await new ConfigStore(dir).updateProfile('default', ({ apiKey: _gone, ...rest }) => rest);
    expect(made).toHaveLength(3);
    for (const options of made) {
      expect(options).toMatchObject({ cwd: dir, configName: 'config.json', fileExtension: '', configFileMode: 0o600, clearInvalidConfig: false });
      expect(typeof options.serialize).toBe('function');
      expect(typeof options.deserialize).toBe('function');
    }
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { format: 'json' } }, defaultProfile: 'default' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a symlinked config.json: conf is pointed at the real file, and the link stays a link', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const real = path.join(base, 'dotfiles', 'gymctl.json');
    mkdirSync(path.dirname(real), { mode: 0o700 });
    writeFileSync(real, '{"profiles":{"default":{"format":"csv"}}}', { mode: 0o600 });
    symlinkSync(real, file);
    await new ConfigStore(dir).updateProfile('default', (p) => ({ ...p, format: 'json' }));
    expect(made[0]).toMatchObject({ cwd: path.dirname(real), configName: 'gymctl.json' });
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8')).profiles.default.format).toBe('json');
  });

  it('a broken file is left byte for byte, and conf is never asked to write it', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{"profiles": {', { mode: 0o600 });
    await expect(new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' }))).rejects.toThrow(/is not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {');
    expect(made).toHaveLength(0);
  });

  it('a config file conf cannot open fails the write with a read error naming the file, and the file is left as it was', async () => {
    await new ConfigStore(dir).updateProfile('default', () => ({ apiKey: 'k_1234567890abcdef' }));
    const before = readFileSync(file);
    failing.next = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const error = await new ConfigStore(dir)
      .updateProfile('default', (profile) => ({ ...profile, format: 'json' }))
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error?.message).toBe(`config file ${file} cannot be read (EACCES: permission denied); fix or remove it`);
    expect(error?.message).not.toContain('k_1234567890abcdef');
    expect(readFileSync(file).equals(before)).toBe(true);
    // The lock is let go: the next write goes through.
    await new ConfigStore(dir).updateProfile('default', (profile) => ({ ...profile, format: 'csv' }));
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.format).toBe('csv');
  });

  it('reading never makes a conf', () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{"profiles":{"default":{"format":"csv"}}}', { mode: 0o600 });
    expect(new ConfigStore(dir).profile('default')).toEqual({ format: 'csv' });
    expect(made).toHaveLength(0);
  });
});
