/**
 * Runs one command of the matrix the way a user would, at a pipe or at a
 * terminal, in a home folder of its own, and says what it wrote and what it
 * left behind. The single executable (dist/sea/gymctl) and the npm build
 * (`node bin/gymctl.cjs`, run by the Node the executable embeds) go through
 * the same code, so that nothing but the build differs between the two.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, ROOT } from '../helpers/cli.js';

export type Build = 'binary' | 'npm';
export type Mode = 'pipe' | 'terminal';

/** The single executable `npm run build:sea` writes. */
export const BINARY = path.join(ROOT, 'dist', 'sea', process.platform === 'win32' ? 'gymctl.exe' : 'gymctl');
/** The Node the executable is made of: GYMCTL_SEA_NODE, as build:sea takes it, else the one build:sea installs. */
export const SEA_NODE = process.env.GYMCTL_SEA_NODE
  ? path.resolve(process.env.GYMCTL_SEA_NODE)
  : path.join(ROOT, '.sea-node', 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');

/** The terminal's size: set with stty inside the terminal `script` opens, which starts with none. */
export const COLUMNS = 100;
export const ROWS = 40;

/** One command: its arguments, what stdin holds, and variables on top of the run's own. */
export interface Command {
  args: readonly string[];
  stdin?: string;
  /** Variables on top of the run's own; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** The exit code both builds are expected to give: the case tests what it says it tests. */
  code: number;
}

/** What one command wrote and how it ended. At a terminal stdout and stderr are the same device: all of it is in stdout. */
export interface Output {
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** A run's folders: HOME with the two XDG folders inside it, a TMPDIR beside it, and an empty folder as the whole PATH. */
export interface Folders {
  home: string;
  config: string;
  cache: string;
  tmp: string;
  bin: string;
}

export function folders(root: string): Folders {
  const home = path.join(root, 'home');
  return { home, config: path.join(home, '.config'), cache: path.join(home, '.cache'), tmp: path.join(root, 'tmp'), bin: path.join(root, 'bin') };
}

/** A tool's full path, found on the test's own PATH (a run's PATH has nothing on it). */
export function tool(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, name);
    if (dir && existsSync(file)) return file;
  }
  return undefined;
}
const SCRIPT = tool('script') ?? 'script';
const STTY = tool('stty') ?? 'stty';

/**
 * The whole environment of a run, built from nothing: none of the caller's
 * variables (NODE_EXTRA_CA_CERTS, CI, GYMCTL_*, colour settings, Node's
 * compile cache) reaches either build, and PATH is an empty folder: no `node`
 * to fall back on, so the binary runs alone (the npm build is started by the
 * Node's full path).
 */
export function environment(where: Folders, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: where.bin,
    HOME: where.home,
    XDG_CONFIG_HOME: where.config,
    XDG_CACHE_HOME: where.cache,
    TMPDIR: where.tmp,
    TERM: 'xterm-256color',
    SHELL: '/bin/sh',
    LANG: 'C.UTF-8',
  };
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * The copy of the executable the runs start: in a folder of its own outside
 * the clone, so that nothing of the clone's (its node_modules above dist/sea,
 * where a require from the executable's folder would find @napi-rs/keyring)
 * can stand in for what the file itself must hold.
 */
let alone: string | undefined;

/** Copies the executable into `folder` (the test's, removed after): every run from then on starts that copy. */
export function placeBinary(folder: string): void {
  alone = path.join(folder, path.basename(BINARY));
  copyFileSync(BINARY, alone);
  chmodSync(alone, 0o755);
}

export function commandLine(build: Build): string[] {
  if (build === 'npm') return [SEA_NODE, BIN];
  if (!alone) throw new Error('placeBinary() first: the executable runs from a copy outside the clone');
  return [alone];
}

/** A word for sh -c, quoted. */
const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Runs `command` with the build, in `where`, at a pipe (stdin, stdout and
 * stderr pipes) or at a terminal: `script` gives the command a pseudo-terminal
 * as stdin, stdout and stderr and copies what reaches it, byte for byte
 * (with the terminal's \r\n), to its own stdout; stdin then comes from a file
 * when the command has any.
 */
export function runOnce(build: Build, mode: Mode, command: Command, where: Folders, input: string, extra: Record<string, string> = {}): Promise<Output> {
  const env = environment(where, { ...extra, ...command.env });
  const argv = [...commandLine(build), ...command.args];
  let file: string;
  let args: string[];
  if (mode === 'pipe') {
    [file, args] = [argv[0]!, argv.slice(1)];
  } else {
    if (command.stdin !== undefined) writeFileSync(input, command.stdin);
    const redirect = command.stdin !== undefined ? ` < ${quote(input)}` : '';
    // -e: script exits with the command's code; the typescript goes to /dev/null, the copy to script's stdout.
    [file, args] = [SCRIPT, ['-qec', `${quote(STTY)} cols ${COLUMNS} rows ${ROWS} && exec ${argv.map(quote).join(' ')}${redirect}`, '/dev/null']];
  }
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, cwd: where.home, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.stdin.on('error', () => {});
    // At a pipe stdin is the command's; at a terminal it is script's, held open until the command ends, so that
    // script never passes an end of input on to the terminal.
    if (mode === 'pipe') child.stdin.end(command.stdin ?? '');
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) });
    });
  });
}

/**
 * Every path under `folder`, relative, with its type, its mode and whether the
 * user owns it: what a run left is the difference of two of these.
 */
export function listing(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const stat = lstatSync(full);
      const type = stat.isDirectory() ? 'dir' : stat.isSymbolicLink() ? 'link' : 'file';
      const owner = stat.uid === process.getuid?.() ? 'mine' : `uid ${stat.uid}`;
      found.push(`${path.relative(folder, full)} ${type} ${(stat.mode & 0o7777).toString(8)} ${owner}`);
      if (stat.isDirectory()) walk(full);
    }
  };
  walk(folder);
  return found;
}

export interface Run {
  outputs: Output[];
  /** Paths that appeared in HOME outside the two XDG folders, or changed there. */
  outsideXdg: string[];
  /** What was left in TMPDIR. */
  leftInTmp: string[];
  /** What the run wrote in the XDG folders that is not a folder (700) or a file (600) of the user's own. */
  notPrivate: string[];
}

/**
 * Runs the commands one after another in fresh folders under `root` (made
 * here, removed before this returns): a new HOME holding empty XDG_CONFIG_HOME
 * and XDG_CACHE_HOME, and an empty TMPDIR. `extra`: variables for every
 * command (a D-Bus address).
 */
export async function runAll(build: Build, mode: Mode, commands: readonly Command[], root: string, extra: Record<string, string> = {}): Promise<Run> {
  const where = folders(root);
  mkdirSync(where.config, { recursive: true });
  mkdirSync(where.cache, { recursive: true });
  mkdirSync(where.tmp);
  mkdirSync(where.bin);
  try {
    const before = new Set(listing(where.home));
    const outputs: Output[] = [];
    for (const command of commands) outputs.push(await runOnce(build, mode, command, where, path.join(root, 'stdin'), extra));
    const inXdg = (entry: string) => /^\.(config|cache)[/ ]/.test(entry);
    const outsideXdg = listing(where.home).filter((entry) => !before.has(entry) && !inXdg(entry));
    const written = listing(where.home).filter((entry) => !before.has(entry) && inXdg(entry));
    const notPrivate = written.filter((entry) => !/ (dir 700|file 600) mine$/.test(entry));
    return { outputs, outsideXdg, leftInTmp: listing(where.tmp), notPrivate };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
