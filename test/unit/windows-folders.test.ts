/**
 * Where gymctl keeps its files on Windows (src/files/folders.ts), decided with
 * Windows' path rules (path.win32) and a made-up environment, so that it is
 * tested on any system: %APPDATA% and %LOCALAPPDATA%, what overrides them,
 * and an older gymctl's `~\.config\gymctl`, which stays in use until the
 * user moves it. Linux and macOS keep the folders they always had.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runConfigPath } from '../../src/commands/config/run.js';
import { ConfigStore } from '../../src/config/store.js';
import { onWindows, profileFolder } from '../../src/commands/doctor/windows.js';
import { cacheDir, cacheHome, codeCacheDir, configDir, configFolder, configHome, seaDir } from '../../src/files/folders.js';
import { HomeFolderError, homeDir } from '../../src/files/system.js';
import { createIO } from '../../src/terminal/io.js';
import { fakeStreams } from '../helpers/harness.js';

const RITA = { USERPROFILE: 'C:\\Users\\rita', HOME: 'C:\\Users\\rita', APPDATA: 'C:\\Users\\rita\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\rita\\AppData\\Local' };
const win32 = { platform: 'win32' as const, exists: () => false };

describe('the folders on Windows', () => {
  it('keeps the config in %APPDATA%\\gymctl and the caches side by side in %LOCALAPPDATA%', () => {
    expect(configDir(RITA, win32)).toBe('C:\\Users\\rita\\AppData\\Roaming\\gymctl');
    expect(cacheDir(RITA, 'win32')).toBe('C:\\Users\\rita\\AppData\\Local\\gymctl');
    expect(codeCacheDir(RITA, 'win32')).toBe('C:\\Users\\rita\\AppData\\Local\\gymctl-code-cache');
    expect(seaDir(RITA, 'win32')).toBe('C:\\Users\\rita\\AppData\\Local\\gymctl-sea');
  });

  it('falls back to the profile’s AppData folders when %APPDATA% or %LOCALAPPDATA% is unset, empty or relative', () => {
    for (const unset of [{}, { APPDATA: '', LOCALAPPDATA: '' }, { APPDATA: 'Roaming', LOCALAPPDATA: 'Local' }]) {
      const env = { USERPROFILE: 'C:\\Users\\rita', ...unset };
      expect(configHome(env, 'win32'), JSON.stringify(env)).toBe('C:\\Users\\rita\\AppData\\Roaming');
      expect(cacheHome(env, 'win32'), JSON.stringify(env)).toBe('C:\\Users\\rita\\AppData\\Local');
    }
  });

  it('lets GYMCTL_CONFIG_DIR, and an absolute XDG_CONFIG_HOME or XDG_CACHE_HOME, override them, as on every system', () => {
    expect(configDir({ ...RITA, GYMCTL_CONFIG_DIR: 'D:\\gymctl', XDG_CONFIG_HOME: 'D:\\xdg' }, win32)).toBe('D:\\gymctl');
    expect(configDir({ ...RITA, XDG_CONFIG_HOME: 'D:\\xdg' }, win32)).toBe('D:\\xdg\\gymctl');
    expect(cacheDir({ ...RITA, XDG_CACHE_HOME: 'D:\\cache' }, 'win32')).toBe('D:\\cache\\gymctl');
    expect(codeCacheDir({ ...RITA, XDG_CACHE_HOME: 'D:\\cache' }, 'win32')).toBe('D:\\cache\\gymctl-code-cache');
    // Relative ones are ignored, as the XDG spec says: nothing lands under the current folder.
    expect(configDir({ ...RITA, XDG_CONFIG_HOME: 'xdg' }, win32)).toBe('C:\\Users\\rita\\AppData\\Roaming\\gymctl');
    expect(cacheDir({ ...RITA, XDG_CACHE_HOME: '.\\cache' }, 'win32')).toBe('C:\\Users\\rita\\AppData\\Local\\gymctl');
    // Rooted but with no drive (a Unix path, or one slash): on whichever drive is current, so ignored too.
    expect(configDir({ ...RITA, XDG_CONFIG_HOME: '/home/u/.config' }, win32)).toBe('C:\\Users\\rita\\AppData\\Roaming\\gymctl');
    expect(cacheDir({ ...RITA, XDG_CACHE_HOME: '\\cache', LOCALAPPDATA: '\\Local' }, 'win32')).toBe('C:\\Users\\rita\\AppData\\Local\\gymctl');
    // A share is a place of its own.
    expect(cacheDir({ ...RITA, XDG_CACHE_HOME: '\\\\server\\cache' }, 'win32')).toBe('\\\\server\\cache\\gymctl');
    expect(configDir({ ...RITA, XDG_CONFIG_HOME: 'D:/xdg' }, win32)).toBe('D:\\xdg\\gymctl');
  });

  it('keeps Linux and macOS where they were: ~/.config and ~/.cache, %APPDATA% ignored', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const env = { HOME: '/home/rita', APPDATA: '/elsewhere', LOCALAPPDATA: '/elsewhere' };
      expect(configDir(env, { platform })).toBe('/home/rita/.config/gymctl');
      expect(cacheDir(env, platform)).toBe('/home/rita/.cache/gymctl');
      expect(codeCacheDir(env, platform)).toBe('/home/rita/.cache/gymctl-code-cache');
      expect(seaDir(env, platform)).toBe('/home/rita/.cache/gymctl-sea');
      expect(configFolder(env, { platform, exists: () => true })).toEqual({ dir: '/home/rita/.config/gymctl', preferred: '/home/rita/.config/gymctl', usingOld: false });
    }
  });
});

describe('the home folder on Windows: one rule for the folders and doctor', () => {
  it('is %USERPROFILE%, as Windows programs read it: a HOME of Git Bash or Cygwin (/home/jose) is not read', () => {
    const jose = { HOME: '/home/jose', USERPROFILE: 'C:\\Users\\jose' };
    expect(homeDir(jose, 'win32')).toBe('C:\\Users\\jose');
    expect(configDir(jose, win32)).toBe('C:\\Users\\jose\\AppData\\Roaming\\gymctl');
    expect(cacheDir(jose, 'win32')).toBe('C:\\Users\\jose\\AppData\\Local\\gymctl');
    expect(configFolder(jose, win32).old).toBe('C:\\Users\\jose\\.config\\gymctl');
    // doctor's profile folder, which it tells files inside it by: the same folder.
    expect(profileFolder(jose)).toBe('C:\\Users\\jose');
    // Elsewhere HOME is the home, as ever.
    expect(homeDir(jose, 'linux')).toBe('/home/jose');
  });

  it('is the system’s answer for the account when USERPROFILE is unset, whatever HOME says', () => {
    // Node's os.homedir() reads USERPROFILE on Windows, then asks the system; here, on this system, it answers for this user.
    expect(homeDir({ HOME: 'C:\\elsewhere' }, 'win32')).toBe(homedir());
    expect(configHome({ HOME: 'C:\\elsewhere' }, 'win32')).toBe(path.win32.join(homedir(), 'AppData', 'Roaming'));
  });

  it('refuses a USERPROFILE that is no absolute path, in one line that says what to set, and doctor says it in its row', () => {
    for (const value of ['jose', 'C:', 'C:Users\\jose']) {
      expect(() => configDir({ USERPROFILE: value }, win32), value).toThrow(HomeFolderError);
      expect(() => configDir({ USERPROFILE: value }, win32), value).toThrow(
        `USERPROFILE is "${value}", not an absolute path such as C:\\Users\\you: set it to your profile folder, or set GYMCTL_CONFIG_DIR and LOCALAPPDATA`,
      );
    }
    // Which is enough: with those set, no home folder is looked for.
    const set = { USERPROFILE: 'jose', GYMCTL_CONFIG_DIR: 'D:\\gymctl', LOCALAPPDATA: 'D:\\local' };
    expect(configDir(set, win32)).toBe('D:\\gymctl');
    expect(cacheDir(set, 'win32')).toBe('D:\\local\\gymctl');
    expect(onWindows('config file', 'D:\\gymctl\\config.json', set)).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('whether it is in your user profile cannot be told: USERPROFILE is "jose", not an absolute path'),
    });
  });
});

describe('an older gymctl’s config on Windows (~\\.config\\gymctl)', () => {
  const OLD = 'C:\\Users\\rita\\.config\\gymctl';
  const NEW = 'C:\\Users\\rita\\AppData\\Roaming\\gymctl';
  const having = (...files: string[]) => ({ platform: 'win32' as const, exists: (file: string) => files.includes(file) });

  it('is the folder in use while it alone holds a config.json', () => {
    expect(configFolder(RITA, having(`${OLD}\\config.json`))).toEqual({ dir: OLD, preferred: NEW, old: OLD, usingOld: true });
  });

  it('is left alone once the new folder holds one, and when there is none in it', () => {
    expect(configFolder(RITA, having(`${OLD}\\config.json`, `${NEW}\\config.json`))).toMatchObject({ dir: NEW, usingOld: false, old: OLD });
    expect(configFolder(RITA, having(`${OLD}\\cache-secret`))).toMatchObject({ dir: NEW, usingOld: false });
  });

  it('is not looked at when GYMCTL_CONFIG_DIR or XDG_CONFIG_HOME names the folder', () => {
    const asked: string[] = [];
    const exists = (file: string) => {
      asked.push(file);
      return true;
    };
    expect(configFolder({ ...RITA, GYMCTL_CONFIG_DIR: 'D:\\c' }, { platform: 'win32', exists })).toEqual({ dir: 'D:\\c', preferred: 'D:\\c', usingOld: false });
    expect(configFolder({ ...RITA, XDG_CONFIG_HOME: 'D:\\x' }, { platform: 'win32', exists })).toEqual({ dir: 'D:\\x\\gymctl', preferred: 'D:\\x\\gymctl', usingOld: false });
    expect(asked).toEqual([]);
  });

  describe('on disk', () => {
    let root: string;
    afterEach(() => rmSync(root, { recursive: true, force: true }));
    /** Windows' answer for a home in a temporary folder, with Windows' separators turned back into this system's. */
    const onDisk = (windowsPath: string) => windowsPath.replaceAll('\\', '/');
    const place = { platform: 'win32' as const, exists: (file: string) => existsSync(onDisk(file)) };

    it('is read and written where it is: the new folder is neither made nor given an empty file, and `config path` names the file in use', async () => {
      root = mkdtempSync(path.join(tmpdir(), 'gymctl-windows-'));
      const env = { HOME: root, USERPROFILE: root, APPDATA: path.join(root, 'AppData', 'Roaming') };
      const old = path.join(root, '.config', 'gymctl');
      mkdirSync(old, { recursive: true });
      const stored = `${JSON.stringify({ profiles: { default: { apiKey: 'rita_key_0123456789', baseUrl: 'https://api.gym.test' } }, extra: 1 }, null, 2)}\n`;
      writeFileSync(path.join(old, 'config.json'), stored, { mode: 0o600 });

      const folder = configFolder(env, place);
      expect(folder.usingOld).toBe(true);
      expect(onDisk(folder.dir)).toBe(old);
      const store = new ConfigStore(onDisk(folder.dir));
      expect(store.profile('default')?.apiKey).toBe('rita_key_0123456789');
      await store.updateProfile('default', (profile) => ({ ...profile, format: 'json' }));
      expect(JSON.parse(readFileSync(path.join(old, 'config.json'), 'utf8'))).toMatchObject({ extra: 1, profiles: { default: { apiKey: 'rita_key_0123456789', format: 'json' } } });
      expect(existsSync(path.join(root, 'AppData'))).toBe(false);

      const streams = fakeStreams();
      await runConfigPath({ io: createIO(streams.streams, { env: {} }), config: () => new ConfigStore(folder.dir), env }, place);
      expect(onDisk(streams.stdout())).toBe(`${old}/config.json\n`);
      expect(onDisk(streams.stderr())).toContain(
        `where an older gymctl kept its config on Windows; it is still read and written there until you move it to ${root}/AppData/Roaming/gymctl`,
      );
      expect(streams.stderr()).toContain('move "');

      // Moved: the new file is the one in use, and `config path` says nothing more.
      mkdirSync(path.join(root, 'AppData', 'Roaming', 'gymctl'), { recursive: true });
      writeFileSync(path.join(root, 'AppData', 'Roaming', 'gymctl', 'config.json'), stored);
      const moved = configFolder(env, place);
      expect(moved.usingOld).toBe(false);
      const after = fakeStreams();
      await runConfigPath({ io: createIO(after.streams, { env: {} }), config: () => new ConfigStore(moved.dir), env }, place);
      expect(onDisk(after.stdout())).toBe(`${root}/AppData/Roaming/gymctl/config.json\n`);
      expect(after.stderr()).toBe('');
    });
  });
});
