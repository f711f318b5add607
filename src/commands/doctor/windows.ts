/**
 * What doctor says on Windows, where mode bits mean nothing (Node makes them up: every folder 0777) and no chmod exists. What
 * keeps others out is the access list of the user's profile folder (`C:\Users\<name>`: the user, SYSTEM and administrators),
 * which every folder below it inherits, %APPDATA% and %LOCALAPPDATA% too. So a file of gymctl's inside the profile passes;
 * outside it (GYMCTL_CONFIG_DIR or XDG_* on another drive or a share) is a warning, with the command that shows who may open it.
 * Each command pastes as it is into PowerShell and into cmd.exe (forBothShells).
 */
import type { ConfigFolder } from '../../files/folders.js';
import { HomeFolderError, homeDir } from '../../files/system.js';
import { type Outcome, result } from './outcome.js';

const fs = process.getBuiltinModule('node:fs');
const win32 = process.getBuiltinModule('node:path').win32;

/** A path in PowerShell's single quotes, where nothing is expanded, each quote doubled (‘ ’ ‚ ‛, U+2018 to U+201B, are quotes too). */
export const psQuoted = (text: string): string => `'${text.replace(/['\u2018-\u201b]/g, '$&$&')}'`;

/**
 * A path in cmd.exe's double quotes (no `"` can be in a Windows name), where & | < > ^ ( ) and spaces are plain. Undefined
 * when it holds a %: cmd expands %NAME% even there, with no escape. (So does !NAME! under delayed expansion, off by default.)
 */
export const cmdQuoted = (text: string): string | undefined => (text.includes('%') ? undefined : `"${text}"`);

/** Whether a double-quoted path reads the same in both shells: no $ or backtick, no “ ” „ (U+201C to U+201E, quotes to PowerShell), no %. */
const samePlainInBoth = (text: string): boolean => !/[$`%\u201c-\u201e]/.test(text);

/** Each shell's form, labelled; cmd's left out when it cannot be written (a %). */
const forBothShells = (powershell: string, cmd: string | undefined): string =>
  cmd === undefined ? `in PowerShell: ${powershell} (not in cmd, which would expand the % in the path)` : `in PowerShell: ${powershell}; in cmd: ${cmd}`;

/** `verb "path"` in both shells where it reads the same (`plainAlso`: what else the path may not hold for PowerShell's form), else each shell's. */
function onePath(file: string, powershell: string, cmd: string, plainAlso: RegExp = /(?!)/): string {
  if (samePlainInBoth(file) && !plainAlso.test(file)) return `${cmd} "${file}"`;
  const inCmd = cmdQuoted(file);
  return forBothShells(`${powershell} ${psQuoted(file)}`, inCmd && `${cmd} ${inCmd}`);
}

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
  const detail = `${target}${suffix} is outside your user profile (${profile}), so who can open it is up to its folder`;
  return result(check, 'warn', detail, `see who can with: ${onePath(folder, 'icacls', 'icacls')}`);
}

/**
 * The command that removes a file or link, in the system's shell. On Windows: `del "…"` in both shells while the path reads
 * the same there (PowerShell's del is Remove-Item, which takes [ ] as a pattern), else Remove-Item -LiteralPath. A link to a
 * folder (or a junction): cmd's rmdir, and .NET's Directory.Delete, which removes the link alone (Remove-Item may ask to empty
 * the folder it leads to).
 */
export function removeCommand(file: string, platform: NodeJS.Platform = process.platform): string {
  if (platform !== 'win32') return `rm ${file}`;
  let folder = false;
  try {
    folder = fs.statSync(file).isDirectory();
  } catch {
    // A link to nothing, or nothing: del says what is there.
  }
  if (folder) return forBothShells(`[IO.Directory]::Delete(${psQuoted(file)})`, cmdQuoted(file) && `rmdir ${cmdQuoted(file)}`);
  return onePath(file, 'Remove-Item -LiteralPath', 'del', /[[\]]/);
}

/** How to move the old Windows config folder's files, hidden ones too, into the new one (made if need be); none replaced (Move-Item refuses, move asks). */
export const moveCommand = (from: string, to: string): string => {
  const [fromCmd, toCmd] = [cmdQuoted(win32.join(from, '*')), cmdQuoted(to)];
  return forBothShells(
    `New-Item -ItemType Directory -Force -Path ${psQuoted(to)} | Out-Null; Get-ChildItem -LiteralPath ${psQuoted(from)} -Force | Move-Item -Destination ${psQuoted(to)}`,
    fromCmd && toCmd && `mkdir ${toCmd} 2>nul & move ${fromCmd} ${toCmd}`,
  );
};

/** An older gymctl's config folder on Windows: in use while it alone holds a config.json (how to move it); else said to be unread, so nothing is forgotten. */
export function oldConfigCheck(folder: ConfigFolder, exists: (file: string) => boolean = fs.existsSync): Outcome | undefined {
  if (folder.old === undefined) return undefined;
  const oldFile = win32.join(folder.old, 'config.json');
  if (folder.usingOld) {
    const detail = `${folder.old} is where gymctl kept its config before; it is still read and written there, until you move it to ${folder.preferred}, where Windows programs keep their settings`;
    return result('config folder', 'warn', detail, moveCommand(folder.old, folder.preferred));
  }
  if (!exists(oldFile)) return undefined;
  const fix = `copy what you still need from ${oldFile} (gymctl config set, gymctl auth login), then remove it: ${removeCommand(oldFile, 'win32')}`;
  return result('config folder', 'warn', `${oldFile}, of an older gymctl, is not read: ${win32.join(folder.preferred, 'config.json')} is in use`, fix);
}
