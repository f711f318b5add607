// Where gymctl keeps its files (src/files/folders.ts): an XDG folder is taken as given, a Windows variable only when
// it names a drive or a share, and an older Windows config folder stays in use, on the real disk, while it alone
// holds a config.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configFolder, configHome } from '../../src/files/folders.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-folders-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** Runs `body` with process.platform saying win32: the paths stay this system's, so the real disk can be asked. */
function onWindows<T>(body: () => T): T {
  const real = Object.getOwnPropertyDescriptor(process, 'platform')!;
  Object.defineProperty(process, 'platform', { ...real, value: 'win32' });
  try {
    return body();
  } finally {
    Object.defineProperty(process, 'platform', real);
  }
}

describe('where the config goes', () => {
  it('an absolute XDG_CONFIG_HOME is used as given on Linux and macOS', () => {
    expect(configHome({ XDG_CONFIG_HOME: '/xdg/config', HOME: '/home/u' })).toBe('/xdg/config');
    expect(configHome({ XDG_CONFIG_HOME: '/xdg/config', HOME: '/home/u' }, 'linux')).toBe('/xdg/config');
  });

  it('on Windows, a variable that names no drive or share, even with one inside it, is passed over for the next', () => {
    const env = { XDG_CONFIG_HOME: 'x\\C:\\config', APPDATA: 'C:\\Users\\u\\AppData\\Roaming', HOME: 'C:\\Users\\u' };
    expect(configHome(env, 'win32')).toBe('C:\\Users\\u\\AppData\\Roaming');
  });

  it('on Windows, the old config folder (~\\.config\\gymctl) stays in use, read from the disk, while it alone holds a config', () => {
    const home = path.join(base, 'home');
    const appData = path.join(home, 'AppData', 'Roaming');
    const old = path.join(home, '.config', 'gymctl');
    mkdirSync(old, { recursive: true });
    writeFileSync(path.join(old, 'config.json'), '{}');
    // On Windows the home folder is USERPROFILE's, never HOME's.
    const env = { USERPROFILE: home, HOME: path.join(base, 'elsewhere'), APPDATA: appData };
    expect(onWindows(() => configFolder(env))).toEqual({ dir: old, preferred: path.join(appData, 'gymctl'), old, usingOld: true });
    mkdirSync(path.join(appData, 'gymctl'), { recursive: true });
    writeFileSync(path.join(appData, 'gymctl', 'config.json'), '{}');
    expect(onWindows(() => configFolder(env))).toMatchObject({ dir: path.join(appData, 'gymctl'), usingOld: false });
  });
});
