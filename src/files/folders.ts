/**
 * Where gymctl keeps its files on each system, as gh does: docs/configuration.md. On Windows, an old `~\.config\gymctl`
 * that alone holds a `config.json` stays the config folder until the user moves it (`gymctl doctor` says how).
 * Boot code (startup/boot.ts loads it): node:fs and node:path only, and on Linux and macOS no system call at all.
 */
import { homeDir, isWindowsFullPath } from './system.js';

const fs = process.getBuiltinModule('node:fs');
const nodePath = process.getBuiltinModule('node:path');

/** What a test hands in instead of this system's: the platform (its path rules with it), and whether a file is there. */
export interface Place {
  platform?: NodeJS.Platform;
  exists?: (file: string) => boolean;
}

/** The path rules of `platform`; this system's own when none is given (a test that fakes process.platform still gets paths it can open). */
export const pathOf = (platform?: NodeJS.Platform): typeof import('node:path') => (platform === undefined ? nodePath : platform === 'win32' ? nodePath.win32 : nodePath.posix);

/** An environment variable that names an absolute folder (on Windows, a full path: isWindowsFullPath), else undefined. */
function absolute(value: string | undefined, platform: NodeJS.Platform | undefined): string | undefined {
  if (!value) return undefined;
  const rules = pathOf(platform);
  if (rules === nodePath.win32) return isWindowsFullPath(value) ? value : undefined;
  return rules.isAbsolute(value) ? value : undefined;
}

/** The folder configs go in: $XDG_CONFIG_HOME, else %APPDATA% on Windows, else ~/.config. */
export function configHome(env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): string {
  const xdg = absolute(env.XDG_CONFIG_HOME, platform);
  if (xdg) return xdg;
  if ((platform ?? process.platform) === 'win32') return absolute(env.APPDATA, platform) ?? pathOf(platform).join(homeDir(env, 'win32'), 'AppData', 'Roaming');
  return pathOf(platform).join(homeDir(env, platform), '.config');
}

/** The folder caches go in: $XDG_CACHE_HOME, else %LOCALAPPDATA% on Windows, else ~/.cache. */
export function cacheHome(env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): string {
  const xdg = absolute(env.XDG_CACHE_HOME, platform);
  if (xdg) return xdg;
  if ((platform ?? process.platform) === 'win32') return absolute(env.LOCALAPPDATA, platform) ?? pathOf(platform).join(homeDir(env, 'win32'), 'AppData', 'Local');
  return pathOf(platform).join(homeDir(env, platform), '.cache');
}

/** The config folder and how it was chosen. */
export interface ConfigFolder {
  /** The folder in use. */
  dir: string;
  /** The folder this system's convention names (the same as `dir` but while an old Windows folder is in use). */
  preferred: string;
  /** Windows only, without GYMCTL_CONFIG_DIR or XDG_CONFIG_HOME: the folder gymctl used before, `~\.config\gymctl`. */
  old?: string;
  /** `old` is in use: it holds a config.json and `preferred` holds none. */
  usingOld: boolean;
}

const exists = (file: string): boolean => fs.existsSync(file);

/** The config folder (see above): `$GYMCTL_CONFIG_DIR`, else the system's, else, on Windows, the old one while it alone holds a config. */
export function configFolder(env: NodeJS.ProcessEnv, place: Place = {}): ConfigFolder {
  const { platform } = place;
  const p = pathOf(platform);
  if (env.GYMCTL_CONFIG_DIR) {
    const dir = p.resolve(env.GYMCTL_CONFIG_DIR);
    return { dir, preferred: dir, usingOld: false };
  }
  const preferred = p.join(configHome(env, platform), 'gymctl');
  if ((platform ?? process.platform) !== 'win32' || absolute(env.XDG_CONFIG_HOME, platform)) return { dir: preferred, preferred, usingOld: false };
  const old = p.join(homeDir(env, 'win32'), '.config', 'gymctl');
  const there = place.exists ?? exists;
  const usingOld = old !== preferred && !there(p.join(preferred, 'config.json')) && there(p.join(old, 'config.json'));
  return { dir: usingOld ? old : preferred, preferred, old, usingOld };
}

/** The config folder in use. */
export const configDir = (env: NodeJS.ProcessEnv, place: Place = {}): string => configFolder(env, place).dir;

/** The response cache's folder. */
export const cacheDir = (env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): string => pathOf(platform).join(cacheHome(env, platform), 'gymctl');

/** The code cache's folder: beside the response cache, not in it. */
export const codeCacheDir = (env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): string => pathOf(platform).join(cacheHome(env, platform), 'gymctl-code-cache');

/** The single executable's folder of unpacked files (one folder per build below it). */
export const seaDir = (env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): string => pathOf(platform).join(cacheHome(env, platform), 'gymctl-sea');
