/**
 * What doctor says on Windows, where mode bits mean nothing (Node makes
 * them up: every folder 0777) and no chmod exists. What keeps others out
 * of gymctl's files there is the access list of the user's profile folder
 * (`C:\Users\<name>`), which only the user, SYSTEM and administrators may
 * open, and which every folder below it inherits: %APPDATA% and
 * %LOCALAPPDATA% are in it. So a file or folder of gymctl's passes when it
 * is inside the profile, and is a warning, with the command that shows who
 * may open it, when it is not (GYMCTL_CONFIG_DIR or XDG_* pointing at
 * another drive or a shared folder). Each command pastes as it is into
 * PowerShell and into cmd.exe (forBothShells): one line where the same
 * text reads the same in both, else a form for each, labelled.
 */
import type { ConfigFolder } from '../../files/folders.js';
import { HomeFolderError, homeDir } from '../../files/system.js';
import { type Outcome, result } from './outcome.js';

const fs = process.getBuiltinModule('node:fs');
const win32 = process.getBuiltinModule('node:path').win32;

/**
 * A path as PowerShell reads it back whole and as it is: in single quotes, inside which nothing is expanded
 * ($share, `$(…)`, backticks), each quote doubled. PowerShell also takes ‘ ’ ‚ ‛ (U+2018 to U+201B) for a single
 * quote, so those are doubled too.
 */
export const psQuoted = (text: string): string => `'${text.replace(/['\u2018-\u201b]/g, '$&$&')}'`;

/**
 * A path as cmd.exe reads it back: in double quotes (no `"` can be in a Windows name), inside which & | < > ^ ( )
 * and spaces are plain characters. Undefined when it holds a %: cmd expands %NAME% even there, and has no escape
 * for it inside quotes. (So does !NAME! where delayed expansion is on, which it is not by default.)
 */
export const cmdQuoted = (text: string): string | undefined => (text.includes('%') ? undefined : `"${text}"`);

/**
 * Whether a path in double quotes reads the same in both shells: nothing PowerShell expands or escapes there ($ and
 * the backtick), nothing it takes for a double quote (“ ” „, U+201C to U+201E), nothing cmd expands (%).
 */
const samePlainInBoth = (text: string): boolean => !/[$`%\u201c-\u201e]/.test(text);

/**
 * A command that pastes as it is: `both` when it reads the same in PowerShell and cmd.exe, else PowerShell's form
 * and cmd's, each labelled; cmd's is left out when it cannot be written (a % in a path).
 */
export function forBothShells(forms: { both?: string | undefined; powershell: string; cmd: string | undefined }): string {
  if (forms.both !== undefined) return forms.both;
  if (forms.cmd === undefined) return `in PowerShell: ${forms.powershell} (not in cmd, which would expand the % in the path)`;
  return `in PowerShell: ${forms.powershell}; in cmd: ${forms.cmd}`;
}

/** `verb "path"` in both shells where it reads the same (`plainAlso`: what else the path may not hold for PowerShell's form), else each shell's. */
function onePath(file: string, powershell: (quoted: string) => string, cmd: (quoted: string) => string, plainAlso: RegExp = /(?!)/): string {
  const inCmd = cmdQuoted(file);
  const same = samePlainInBoth(file) && !plainAlso.test(file);
  return forBothShells({ both: same ? cmd(`"${file}"`) : undefined, powershell: powershell(psQuoted(file)), cmd: inCmd && cmd(inCmd) });
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
  return result(
    check,
    'warn',
    `${target}${suffix} is outside your user profile (${profile}), so who can open it is up to its folder`,
    `see who can with: ${onePath(
      folder,
      (p) => `icacls ${p}`,
      (p) => `icacls ${p}`,
    )}`,
  );
}

/**
 * The command that removes what is at `file` (a file, or a link), as the
 * system's shell has it. On Windows, a file: `del "…"` in both shells
 * while the path reads the same there (PowerShell's del is Remove-Item,
 * which takes [ ] as a pattern), else Remove-Item -LiteralPath. A link to
 * a folder (or a junction): cmd's rmdir, and in PowerShell .NET's
 * Directory.Delete, which, as rmdir, removes the link and leaves what it
 * points to alone (Remove-Item may ask to empty the folder it leads to).
 */
export function removeCommand(file: string, platform: NodeJS.Platform = process.platform): string {
  if (platform !== 'win32') return `rm ${file}`;
  let folder = false;
  try {
    folder = fs.statSync(file).isDirectory();
  } catch {
    // A link to nothing, or nothing: del says what is there.
  }
  if (folder) return forBothShells({ powershell: `[IO.Directory]::Delete(${psQuoted(file)})`, cmd: cmdQuoted(file) && `rmdir ${cmdQuoted(file)}` });
  return onePath(
    file,
    (p) => `Remove-Item -LiteralPath ${p}`,
    (p) => `del ${p}`,
    /[[\]]/,
  );
}

/**
 * How to move the old Windows config folder's files into the new one, as a command for each shell: the folder made
 * if it is not there, then each file moved, hidden ones too; a file of the same name already there is not
 * replaced (PowerShell's Move-Item refuses, cmd's move asks).
 */
export const moveCommand = (from: string, to: string): string => {
  const [fromCmd, toCmd] = [cmdQuoted(win32.join(from, '*')), cmdQuoted(to)];
  return forBothShells({
    powershell: `New-Item -ItemType Directory -Force -Path ${psQuoted(to)} | Out-Null; Get-ChildItem -LiteralPath ${psQuoted(from)} -Force | Move-Item -Destination ${psQuoted(to)}`,
    cmd: fromCmd && toCmd && `mkdir ${toCmd} 2>nul & move ${fromCmd} ${toCmd}`,
  });
};

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
    `copy what you still need from ${oldFile} (gymctl config set, gymctl auth login), then remove it: ${removeCommand(oldFile, 'win32')}`,
  );
}
