/**
 * What doctor says on Windows, where mode bits mean nothing (Node makes
 * them up: every folder 0777) and no chmod exists. What keeps others out
 * of gymctl's files there is the access list of the user's profile folder
 * (`C:\Users\<name>`), which only the user, SYSTEM and administrators may
 * open, and which every folder below it inherits: %APPDATA% and
 * %LOCALAPPDATA% are in it. So a file or folder of gymctl's passes when it
 * is inside the profile, and is a warning, with the command that shows who
 * may open it, when it is not (GYMCTL_CONFIG_DIR or XDG_* pointing at
 * another drive or a shared folder). Commands are for cmd and PowerShell
 * both, paths in double quotes.
 */
import type { ConfigFolder } from '../../files/folders.js';
import { HomeFolderError, homeDir } from '../../files/system.js';
import { type Outcome, result } from './outcome.js';

const fs = process.getBuiltinModule('node:fs');
const win32 = process.getBuiltinModule('node:path').win32;

/** A path in double quotes, as cmd and PowerShell both take it. */
export const quoted = (file: string): string => `"${file}"`;

/** The user's profile folder: the home folder by Windows' rule (%USERPROFILE%, else the account's), as the config and cache folders take it. */
export const profileFolder = (env: NodeJS.ProcessEnv): string => homeDir(env, 'win32');

/** Whether `target` is the profile folder or inside it (Windows' rules: either slash, any case). */
export function inProfile(target: string, profile: string): boolean {
  const relative = win32.relative(profile, target);
  return !relative.startsWith('..') && !win32.isAbsolute(relative);
}

/** The row for a file or folder of gymctl's on Windows: what protects it, by where it is. `suffix` follows the path (a link's target). */
export function onWindows(check: string, target: string, env: NodeJS.ProcessEnv, suffix = ''): Outcome {
  let profile: string;
  try {
    profile = profileFolder(env);
  } catch (error) {
    if (!(error instanceof HomeFolderError)) throw error;
    return result(check, 'warn', `${target}${suffix}: whether it is in your user profile cannot be told: ${error.message}`);
  }
  if (inProfile(target, profile)) return result(check, 'pass', `${target}${suffix} (in your user profile, which only you and administrators can open)`);
  const folder = check === 'config file' ? win32.dirname(target) : target;
  return result(
    check,
    'warn',
    `${target}${suffix} is outside your user profile (${profile}), so who can open it is up to its folder`,
    `see who can with: icacls ${quoted(folder)}`,
  );
}

/**
 * The command that removes what is at `file` (a file, or a link), as the
 * system's shell has it. On Windows a link to a folder (or a junction) is
 * removed by cmd's rmdir, which leaves what it points to alone (PowerShell's
 * Remove-Item may ask to empty the folder it leads to).
 */
export function removeCommand(file: string, platform: NodeJS.Platform = process.platform): string {
  if (platform !== 'win32') return `rm ${file}`;
  let folder = false;
  try {
    folder = fs.statSync(file).isDirectory();
  } catch {
    // A link to nothing, or nothing: del says what is there.
  }
  return folder ? `cmd /c rmdir ${quoted(file)}` : `del ${quoted(file)}`;
}

/** How to move the old Windows config folder's files to the new one: for cmd and PowerShell both (PowerShell's move is Move-Item). */
export const moveCommand = (from: string, to: string): string => `mkdir ${quoted(to)}, then move ${quoted(win32.join(from, '*'))} ${quoted(to)}`;

/**
 * The config folder on Windows, when an older gymctl's is there: in use
 * while it alone holds a config.json, with how to move it; not read when
 * the new one holds one too, said so that nothing in it is forgotten.
 * Undefined when there is nothing to say.
 */
export function oldConfigCheck(folder: ConfigFolder, exists: (file: string) => boolean = fs.existsSync): Outcome | undefined {
  if (folder.old === undefined) return undefined;
  const oldFile = win32.join(folder.old, 'config.json');
  if (folder.usingOld)
    return result(
      'config folder',
      'warn',
      `${folder.old} is where gymctl kept its config before; it is still read and written there, until you move it to ${folder.preferred}, where Windows programs keep their settings`,
      moveCommand(folder.old, folder.preferred),
    );
  if (!exists(oldFile)) return undefined;
  return result(
    'config folder',
    'warn',
    `${oldFile}, of an older gymctl, is not read: ${win32.join(folder.preferred, 'config.json')} is in use`,
    `copy what you still need from ${quoted(oldFile)} (gymctl config set, gymctl auth login), then: del ${quoted(oldFile)}`,
  );
}
