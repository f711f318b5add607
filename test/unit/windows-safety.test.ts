/**
 * What protects gymctl's files on Windows, and what doctor says there:
 * no mode is checked or set and no chmod is ever advised (Node makes the
 * modes up: every folder 0777), the user's profile folder is named as what
 * keeps others out, and a link at a folder gymctl opens is refused by
 * lstat, since open() has no O_NOFOLLOW there. Windows is faked with a
 * `platform` parameter, or with process.platform itself for the code that
 * reads it; the paths walked are Windows' (path.win32).
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enableCompileCache } from '../../src/startup/boot.js';
import { openCache } from '../../src/cache/store.js';
import { cacheCheck, cacheSecretCheck, codeCacheCheck, configCheck } from '../../src/commands/doctor/checks-local.js';
import { cmdQuoted, inProfile, moveCommand, oldConfigCheck, onWindows, psQuoted, removeCommand } from '../../src/commands/doctor/windows.js';
import { ConfigStore } from '../../src/config/store.js';
import { modesApply, NO_FOLLOW, openFolder, refuseLink } from '../../src/files/system.js';
import { makeFolders, untrustedPart } from '../../src/files/trusted-path.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gymctl-windows-safety-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Runs `body` with process.platform saying win32, as the code that reads it at run time sees Windows. */
async function asWindows<T>(body: () => T | Promise<T>): Promise<T> {
  const real = Object.getOwnPropertyDescriptor(process, 'platform')!;
  Object.defineProperty(process, 'platform', { ...real, value: 'win32' });
  try {
    return await body();
  } finally {
    Object.defineProperty(process, 'platform', real);
  }
}

/** A config folder with a config.json others could read, and cache folders others could open, all under `root` as the profile. */
function looseFiles() {
  const config = path.join(root, 'AppData', 'Roaming', 'gymctl');
  mkdirSync(config, { recursive: true, mode: 0o755 });
  writeFileSync(path.join(config, 'config.json'), '{}\n', { mode: 0o644 });
  chmodSync(path.join(config, 'config.json'), 0o644);
  const cache = path.join(root, 'AppData', 'Local');
  for (const name of ['gymctl', 'gymctl-code-cache']) {
    mkdirSync(path.join(cache, name), { recursive: true });
    chmodSync(path.join(cache, name), 0o755);
  }
  const env = { HOME: root, USERPROFILE: root, XDG_CACHE_HOME: cache };
  return { config, env, f: { config: () => new ConfigStore(config), env } };
}

describe('doctor on Windows', () => {
  it('checks no mode and advises no chmod: the profile folder is what protects the files', async () => {
    const { f, env, config } = looseFiles();
    const rows = [...configCheck(f, 'win32'), await cacheCheck(env, 'win32'), await codeCacheCheck(env, 'win32'), await cacheSecretCheck(env, 'win32')];
    for (const row of rows) {
      expect(row.status, row.check).toBe('pass');
      expect(JSON.stringify(row), row.check).not.toMatch(/chmod|mode \d/);
    }
    expect(rows[0]!.detail).toBe(`${path.join(config, 'config.json')} (in your user profile, which only you and administrators can open)`);
    // The same files on Linux are what the mode checks are for.
    const linux = [...configCheck(f, 'linux'), await cacheCheck(env, 'linux'), await codeCacheCheck(env, 'linux')];
    expect(linux.map((row) => [row.status, row.fix?.split(' ')[0]])).toEqual([
      ['warn', 'chmod'],
      ['warn', 'chmod'],
      ['warn', 'chmod'],
    ]);
  });

  it('warns of a file outside the profile, with the command that shows who can open it', () => {
    expect(onWindows('config file', 'D:\\shared\\gymctl\\config.json', { USERPROFILE: 'C:\\Users\\rita' })).toEqual({
      check: 'config file',
      status: 'warn',
      detail: 'D:\\shared\\gymctl\\config.json is outside your user profile (C:\\Users\\rita), so who can open it is up to its folder',
      fix: 'see who can with: icacls "D:\\shared\\gymctl"',
    });
    expect(onWindows('cache folder', 'c:\\users\\RITA\\AppData\\Local\\gymctl', { USERPROFILE: 'C:\\Users\\rita' }).status).toBe('pass');
    expect(inProfile('C:\\Users\\rita2\\AppData', 'C:\\Users\\rita')).toBe(false);
    expect(inProfile('C:\\Users\\rita\\..\\bob\\AppData', 'C:\\Users\\rita')).toBe(false);
  });

  it('removes with del, or a link to a folder with rmdir and .NET’s Directory.Delete (which leave its target alone); rm elsewhere', () => {
    writeFileSync(path.join(root, 'file'), '');
    symlinkSync(root, path.join(root, 'link'));
    expect(removeCommand(path.join(root, 'file'), 'win32')).toBe(`del "${path.join(root, 'file')}"`);
    expect(removeCommand(path.join(root, 'link'), 'win32')).toBe(`in PowerShell: [IO.Directory]::Delete('${path.join(root, 'link')}'); in cmd: rmdir "${path.join(root, 'link')}"`);
    expect(removeCommand(path.join(root, 'file'), 'linux')).toBe(`rm ${path.join(root, 'file')}`);
    // PowerShell's del is Remove-Item, which reads [ ] as a pattern: there, the literal path.
    expect(removeCommand('C:\\Users\\rita\\AppData\\Roaming\\gymctl [2]\\cache-secret', 'win32')).toBe(
      'in PowerShell: Remove-Item -LiteralPath \'C:\\Users\\rita\\AppData\\Roaming\\gymctl [2]\\cache-secret\'; in cmd: del "C:\\Users\\rita\\AppData\\Roaming\\gymctl [2]\\cache-secret"',
    );
  });

  it('says an older config folder in use can be moved, and how; and that one left behind is not read', () => {
    const folder = { dir: 'C:\\Users\\rita\\.config\\gymctl', preferred: 'C:\\Users\\rita\\AppData\\Roaming\\gymctl', old: 'C:\\Users\\rita\\.config\\gymctl' };
    expect(oldConfigCheck({ ...folder, usingOld: true })).toEqual({
      check: 'config folder',
      status: 'warn',
      detail:
        'C:\\Users\\rita\\.config\\gymctl is where gymctl kept its config before; it is still read and written there, until you move it to C:\\Users\\rita\\AppData\\Roaming\\gymctl, where Windows programs keep their settings',
      fix:
        "in PowerShell: New-Item -ItemType Directory -Force -Path 'C:\\Users\\rita\\AppData\\Roaming\\gymctl' | Out-Null; Get-ChildItem -LiteralPath 'C:\\Users\\rita\\.config\\gymctl' -Force | Move-Item -Destination 'C:\\Users\\rita\\AppData\\Roaming\\gymctl'; " +
        'in cmd: mkdir "C:\\Users\\rita\\AppData\\Roaming\\gymctl" 2>nul & move "C:\\Users\\rita\\.config\\gymctl\\*" "C:\\Users\\rita\\AppData\\Roaming\\gymctl"',
    });
    const left = oldConfigCheck({ ...folder, dir: folder.preferred, usingOld: false }, (file) => file === 'C:\\Users\\rita\\.config\\gymctl\\config.json');
    expect(left).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('is not read: C:\\Users\\rita\\AppData\\Roaming\\gymctl\\config.json is in use'),
      fix: 'copy what you still need from C:\\Users\\rita\\.config\\gymctl\\config.json (gymctl config set, gymctl auth login), then remove it: del "C:\\Users\\rita\\.config\\gymctl\\config.json"',
    });
    expect(oldConfigCheck({ ...folder, dir: folder.preferred, usingOld: false }, () => false)).toBeUndefined();
    expect(oldConfigCheck({ dir: '/home/rita/.config/gymctl', preferred: '/home/rita/.config/gymctl', usingOld: false })).toBeUndefined();
  });
});

/**
 * PowerShell's reading of the single-quoted literal `text` starts with, as its tokenizer has it (ScanStringLiteral):
 * any of ' ‘ ’ ‚ ‛ opens and closes it; two of them in a row are one, the second. Its value, and what follows.
 */
function readPowerShellSingleQuoted(text: string): { value: string; rest: string } {
  const quote = (c: string | undefined) => c !== undefined && /['\u2018-\u201b]/.test(c);
  if (!quote(text[0])) throw new Error(`not a single-quoted literal: ${text}`);
  let value = '';
  for (let i = 1; i < text.length; i++) {
    if (quote(text[i])) {
      if (!quote(text[i + 1])) return { value, rest: text.slice(i + 1) };
      i++;
    }
    value += text[i];
  }
  throw new Error(`a literal never closed: ${text}`);
}

/**
 * cmd.exe's reading of the double-quoted argument `text` starts with: to the next ", every character as it is, but
 * %NAME% (and, with delayed expansion, !NAME!), which cmd expands even there: a form holding a % is no form.
 */
function readCmdDoubleQuoted(text: string): { value: string; rest: string } {
  const end = text.indexOf('"', 1);
  if (text[0] !== '"' || end < 0) throw new Error(`not a double-quoted argument: ${text}`);
  const value = text.slice(1, end);
  if (value.includes('%')) throw new Error(`cmd would expand the % in ${value}`);
  return { value, rest: text.slice(end + 1) };
}

/** The command of doctor's `see who can with: …` fix for `folder`, in PowerShell and in cmd (undefined where the fix gives none). */
function icaclsForms(fix: string): { powershell?: string; cmd?: string } {
  const command = fix.replace(/^see who can with: /, '');
  const labelled = /^in PowerShell: (icacls .*?)(?:; in cmd: (icacls .*)| \(not in cmd, which would expand the % in the path\))$/.exec(command);
  return labelled ? { powershell: labelled[1], cmd: labelled[2] } : { powershell: command, cmd: command };
}

describe('doctor’s Windows advice, as it pastes into PowerShell and cmd', () => {
  const outside = (folder: string) => onWindows('cache folder', folder, { USERPROFILE: 'C:\\Users\\rita' }).fix!;

  it('a folder with a $ and a space: single quotes for PowerShell (which expands $share in double quotes), double for cmd', () => {
    const folder = 'D:\\team$share\\gymctl conf';
    expect(outside(folder)).toBe(`see who can with: in PowerShell: icacls 'D:\\team$share\\gymctl conf'; in cmd: icacls "D:\\team$share\\gymctl conf"`);
    const { powershell, cmd } = icaclsForms(outside(folder));
    expect(readPowerShellSingleQuoted(powershell!.slice('icacls '.length))).toEqual({ value: folder, rest: '' });
    expect(readCmdDoubleQuoted(cmd!.slice('icacls '.length))).toEqual({ value: folder, rest: '' });
  });

  it('every folder reads back whole and as it is in each form given: quotes, $( ), backticks, & and ^, % left to PowerShell', () => {
    for (const folder of [
      'D:\\shared\\gymctl',
      "D:\\o'brien's\\gymctl",
      'D:\\o\u2019brien\u2018s \u201a\u201b\\gymctl',
      'D:\\$(Remove-Item C:\\)\\`n\\gymctl',
      'D:\\\u201cquoted\u201d \u201e\\gymctl',
      'D:\\R&D ^ (2024) | <x>\\gymctl',
      'D:\\100%USERNAME%\\gymctl',
      '\\\\server\\share$\\gymctl',
    ]) {
      const { powershell, cmd } = icaclsForms(outside(folder));
      const arg = (command: string) => command.slice('icacls '.length);
      // One form for both shells only where double quotes read the same in both: no $, `, %, nor “ ” „ (PowerShell's double quotes too).
      if (powershell === cmd) expect(folder, folder).not.toMatch(/[$`%\u201c-\u201e]/);
      else expect(readPowerShellSingleQuoted(arg(powershell!)), folder).toEqual({ value: folder, rest: '' });
      if (cmd === undefined) expect(folder).toContain('%');
      else expect(readCmdDoubleQuoted(arg(cmd)), folder).toEqual({ value: folder, rest: '' });
    }
    expect(outside('D:\\shared\\gymctl')).toBe('see who can with: icacls "D:\\shared\\gymctl"');
    expect(outside('D:\\100%USERNAME%\\gymctl')).toBe("see who can with: in PowerShell: icacls 'D:\\100%USERNAME%\\gymctl' (not in cmd, which would expand the % in the path)");
  });

  it('doubles every quote PowerShell reads as one, as PowerShell’s own escaping does, and nothing else', () => {
    expect(psQuoted("it's")).toBe("'it''s'");
    expect(psQuoted('\u2018\u2019\u201a\u201b')).toBe("'\u2018\u2018\u2019\u2019\u201a\u201a\u201b\u201b'");
    expect(psQuoted('$x `y "z" \u201cw\u201d')).toBe('\'$x `y "z" \u201cw\u201d\'');
    expect(cmdQuoted('D:\\a b')).toBe('"D:\\a b"');
    expect(cmdQuoted('D:\\50%')).toBeUndefined();
  });

  it('the move of an old config folder is a command in each shell, its paths read back as they are', () => {
    const [from, to] = ["C:\\Users\\o'brien $x\\.config\\gymctl", "C:\\Users\\o'brien $x\\AppData\\Roaming\\gymctl"];
    const fix = moveCommand(from, to);
    const labelled = /^in PowerShell: (.*); in cmd: (.*)$/.exec(fix)!;
    expect(labelled).not.toBeNull();
    const [powershell, cmd] = [labelled[1]!, labelled[2]!];
    // PowerShell: New-Item -ItemType Directory -Force -Path 'to' | Out-Null; Get-ChildItem -LiteralPath 'from' -Force | Move-Item -Destination 'to'
    const made = readPowerShellSingleQuoted(powershell.slice('New-Item -ItemType Directory -Force -Path '.length));
    expect(made.value).toBe(to);
    const listed = readPowerShellSingleQuoted(made.rest.slice(' | Out-Null; Get-ChildItem -LiteralPath '.length));
    expect(listed.value).toBe(from);
    const moved = readPowerShellSingleQuoted(listed.rest.slice(' -Force | Move-Item -Destination '.length));
    expect({ ...moved, listed: listed.rest.startsWith(' -Force | Move-Item -Destination ') }).toEqual({ value: to, rest: '', listed: true });
    // cmd: mkdir "to" 2>nul & move "from\*" "to"
    const mkdir = readCmdDoubleQuoted(cmd.slice('mkdir '.length));
    expect(mkdir.value).toBe(to);
    const source = readCmdDoubleQuoted(mkdir.rest.slice(' 2>nul & move '.length));
    expect(source.value).toBe(`${from}\\*`);
    expect(readCmdDoubleQuoted(source.rest.slice(1))).toEqual({ value: to, rest: '' });
    expect(moveCommand('C:\\Users\\a%b%\\.config\\gymctl', 'C:\\Users\\a%b%\\AppData\\Roaming\\gymctl')).toMatch(
      /^in PowerShell: .* \(not in cmd, which would expand the % in the path\)$/,
    );
  });
});

describe('the folders’ checks on Windows', () => {
  it('does not walk the path for owners (Windows has no uids) and makes the folders one at a time under a drive or a share', () => {
    const asked: string[] = [];
    const lstat = (file: string) => {
      asked.push(file);
      throw Object.assign(new Error('no'), { code: 'EIO' });
    };
    expect(untrustedPart('C:\\Users\\rita\\AppData\\Local\\gymctl', { uid: undefined, platform: 'win32', lstat })).toBeUndefined();
    expect(asked).toEqual([]);

    for (const [there, target] of [
      ['C:\\Users\\rita\\AppData', 'C:\\Users\\rita\\AppData\\Local\\gymctl'],
      ['\\\\server\\share\\', '\\\\server\\share\\rita\\gymctl'],
    ] as const) {
      const made: string[] = [];
      const dirs = new Set([there, 'C:\\', 'C:\\Users', 'C:\\Users\\rita']);
      makeFolders(target, 0o700, {
        platform: 'win32',
        lstat: (file) => {
          if (!dirs.has(file)) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
          return { uid: 0, mode: 0o40777, isDirectory: () => true, isSymbolicLink: () => false };
        },
        mkdir: (dir) => {
          made.push(dir);
          dirs.add(dir);
        },
      });
      expect(made).toEqual(there.startsWith('C:') ? ['C:\\Users\\rita\\AppData\\Local', target] : ['\\\\server\\share\\rita', target]);
    }
  });

  it('refuses a link (or junction) at a folder by lstat where open() cannot (no O_NOFOLLOW), and a file where it has no O_DIRECTORY', () => {
    mkdirSync(path.join(root, 'real'));
    symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    expect(() => refuseLink(path.join(root, 'link'), 0)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(() => refuseLink(path.join(root, 'real'), 0)).not.toThrow();
    expect(() => refuseLink(path.join(root, 'missing'), 0)).not.toThrow();
    // Where open() has O_NOFOLLOW it refuses the link itself, and nothing is looked at first.
    expect(NO_FOLLOW).not.toBe(0);
    expect(() => refuseLink(path.join(root, 'link'))).not.toThrow();
    // Linux says ENOTDIR for a link opened with O_DIRECTORY and O_NOFOLLOW; its callers take either as "a link, or a file".
    expect(() => openFolder(path.join(root, 'link'))).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(ELOOP|ENOTDIR)$/) }));
    writeFileSync(path.join(root, 'file'), '');
    expect(() => openFolder(path.join(root, 'file'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  it('says modes apply everywhere but on Windows', () => {
    expect([modesApply('linux'), modesApply('darwin'), modesApply('win32')]).toEqual([true, true, false]);
  });

  it('uses the compile cache in a folder whose made-up mode says others could open it, and tightens no folder', async () => {
    const env = { XDG_CACHE_HOME: path.join(root, 'cache') };
    const dir = path.join(root, 'cache', 'gymctl-code-cache');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o777);
    const enabled: string[] = [];
    // On Linux such a folder is not used.
    expect(enableCompileCache(env, (folder) => enabled.push(folder))).toBeUndefined();
    await asWindows(() => {
      expect(enableCompileCache(env, (folder) => enabled.push(folder))).toBe(dir);
    });
    expect(enabled).toEqual([dir]);
    expect(statSync(dir).mode & 0o777).toBe(0o777);
  });

  it('keeps answers in a cache folder whose made-up mode says others could open it, without tightening it', async () => {
    const cache = path.join(root, 'Local');
    mkdirSync(path.join(cache, 'gymctl'), { recursive: true });
    chmodSync(path.join(cache, 'gymctl'), 0o777);
    const warnings: string[] = [];
    const options = {
      env: { XDG_CACHE_HOME: cache },
      baseUrl: 'https://api.gym.test',
      apiKey: 'rita_key_0123456789',
      lifetimeMs: 60_000,
      warn: (message: string) => void warnings.push(message),
    };
    await asWindows(() => {
      const store = openCache(options);
      store.write('/me', '{"data":1}');
      expect(store.read('/me')).toMatchObject({ body: '{"data":1}' });
    });
    expect(warnings).toEqual([]);
    // Kept where XDG_CACHE_HOME says (the secret, and one folder for the key), and the folder left as it was.
    expect(readdirSync(path.join(cache, 'gymctl'))).toHaveLength(2);
    expect(statSync(path.join(cache, 'gymctl')).mode & 0o777).toBe(0o777);
    // On Linux the same folder is tightened when it is opened.
    openCache(options).read('/me');
    expect(statSync(path.join(cache, 'gymctl')).mode & 0o777).toBe(0o700);
  });

  it('writes the config into a folder without tightening it', async () => {
    const dir = path.join(root, 'config');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    await asWindows(() => new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' })));
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    await new ConfigStore(dir).updateProfile('default', () => ({ format: 'csv' }));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});
