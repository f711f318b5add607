import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { ConfigStore, configDir } from '../../src/config/store.js';
import { tempConfigDir } from '../helpers/cli.js';

const cleanups: Array<() => void> = [];
function newDir(): string {
  const { dir, remove } = tempConfigDir();
  cleanups.push(remove);
  return dir;
}
afterEach(() => {
  for (const remove of cleanups.splice(0)) remove();
});

const mode = (file: string) => statSync(file).mode & 0o777;

describe('configDir', () => {
  it('uses GYMCTL_CONFIG_DIR, then XDG_CONFIG_HOME/gymctl, then ~/.config/gymctl', () => {
    expect(configDir({ GYMCTL_CONFIG_DIR: '/a/b', XDG_CONFIG_HOME: '/x' })).toBe('/a/b');
    expect(configDir({ XDG_CONFIG_HOME: '/x' })).toBe('/x/gymctl');
    expect(configDir({})).toMatch(/\.config\/gymctl$/);
  });

  it('ignores a relative XDG_CONFIG_HOME or XDG_CACHE_HOME, as the XDG spec says: nothing goes under the current folder', async () => {
    const { cacheDir } = await import('../../src/cache/store.js');
    expect(configDir({ XDG_CONFIG_HOME: 'relative', HOME: '/home/rita' })).toBe('/home/rita/.config/gymctl');
    expect(cacheDir({ XDG_CACHE_HOME: './cache', HOME: '/home/rita' })).toBe('/home/rita/.cache/gymctl');
    expect(cacheDir({ XDG_CACHE_HOME: '/var/cache/rita', HOME: '/home/rita' })).toBe('/var/cache/rita/gymctl');
  });
});

describe('ConfigStore', () => {
  it('reading a missing file gives an empty config and creates nothing', () => {
    const dir = newDir();
    const store = new ConfigStore(dir);
    expect(store.read()).toEqual({});
    expect(store.profile('default')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('writes the file 0600 in a folder 0700, and reads back what it wrote', async () => {
    const dir = newDir();
    const store = new ConfigStore(dir);
    await store.updateProfile('default', (p) => ({ ...p, apiKey: 'k_1234567890', baseUrl: 'https://api.test' }));
    expect(mode(store.path)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(new ConfigStore(dir).profile('default')).toEqual({ apiKey: 'k_1234567890', baseUrl: 'https://api.test' });
  });

  it('tightens a file that was left readable by others when it next writes it', async () => {
    const dir = newDir();
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'config.json');
    writeFileSync(file, '{"profiles":{}}', { mode: 0o644 });
    await new ConfigStore(dir).updateProfile('work', () => ({ apiKey: 'k_abcdefghijkl' }));
    expect(mode(file)).toBe(0o600);
  });

  it('keeps other profiles and fields it does not know', async () => {
    const dir = newDir();
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ future: { x: 1 }, profiles: { other: { apiKey: 'o', color: 'blue' } } }));
    const store = new ConfigStore(dir);
    await store.updateProfile('default', () => ({ format: 'json' }));
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written).toEqual({
      future: { x: 1 },
      profiles: { other: { apiKey: 'o', color: 'blue' }, default: { format: 'json' } },
    });
  });

  for (const [label, content, expected] of [
    ['invalid JSON', '{"profiles": {', 'is not valid JSON'],
    ['a wrong shape', '{"profiles": {"default": {"timeout": "soon"}}}', 'profiles.default.timeout: expected integer, got string'],
    ['a wrong top level', '[1, 2]', 'is not valid'],
  ] as const) {
    it(`a file with ${label} is an internal error naming the file, and is left byte for byte`, async () => {
      const dir = newDir();
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'config.json');
      writeFileSync(file, content, { mode: 0o600 });
      const store = new ConfigStore(dir);
      for (const attempt of [async () => store.read(), () => store.updateProfile('default', (p) => ({ ...p, format: 'json' }))]) {
        let error: unknown;
        try {
          await attempt();
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(GymctlError);
        expect((error as GymctlError).kind).toBe('internal');
        expect((error as GymctlError).message).toContain(file);
        expect((error as GymctlError).message).toContain(expected);
      }
      expect(readFileSync(file, 'utf8')).toBe(content);
    });
  }
});

describe('stored values out of range', () => {
  it('a stored timeout longer than a timer can be is refused, naming the field', () => {
    const dir = newDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config.json'), '{"profiles":{"default":{"timeout":99999999999}}}');
    expect(() => new ConfigStore(dir).profile('default')).toThrow(/profiles\.default\.timeout/);
  });
});
