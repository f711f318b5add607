/**
 * What the single executable's sealing tests (sealed.test.ts, reproducible.test.ts) share beyond run.ts: a fresh home
 * for a run, a run to its end, a cache folder on a tmpfs of its own (read-only, or 4 MB: full), an MCP session held
 * open, and the sockets a process listens on.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BIN } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { BINARY, environment, type Folders, folders, SEA_NODE, tool } from './run.js';

const hasFile = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;

/** Both builds are there; under CI a missing one fails the run, elsewhere the tests are skipped, saying how to build them. */
export function haveBuilds(what: string): boolean {
  const missing = [
    ...(hasFile(BINARY) ? [] : [`the single executable ${BINARY}: run \`npm run build:sea\``]),
    ...(hasFile(SEA_NODE) ? [] : [`the Node it embeds, ${SEA_NODE}: run \`npm run build:sea\` (or set GYMCTL_SEA_NODE)`]),
  ];
  if (missing.length && process.env.CI === 'true') throw new Error(`${what} needs ${missing.join(' and ')}`);
  if (missing.length) console.warn(`skipping ${what}: it needs ${missing.join(' and ')}`);
  return missing.length === 0;
}

/** The build id of dist/sea/gymctl: its folder's name under gymctl-sea/. */
export const buildOf = (binaryFolder: string): string => (JSON.parse(readFileSync(path.join(binaryFolder, 'build.json'), 'utf8')) as { build: string }).build;

/** A run's places under a fresh temporary folder (its HOME, XDG folders, TMPDIR, an empty PATH), and the binary copied there, outside the clone. */
export interface Place {
  root: string;
  where: Folders;
  binary: string;
  /** This build's folder, by its real path, as gymctl names it. */
  folder: string;
  remove(): void;
}

export function place(binary = BINARY): Place {
  const root = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-sealed-'));
  const where = folders(root);
  for (const dir of [where.config, where.cache, where.tmp, where.bin]) mkdirSync(dir, { recursive: true });
  const copy = path.join(root, 'gymctl');
  copyFileSync(binary, copy);
  chmodSync(copy, 0o755);
  const folder = path.join(where.cache, 'gymctl-sea', buildOf(path.dirname(binary)));
  return { root, where, binary: copy, folder, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `argv` to its end in `where` (environment from nothing, run.ts): a run past the ceiling is killed, which the result shows. */
export function runTo(argv: readonly string[], where: Folders, options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Ran {
  const ran = spawnSync(argv[0]!, argv.slice(1), {
    env: environment(where, options.env),
    cwd: options.cwd ?? where.home,
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { status: ran.status, signal: ran.signal, stdout: ran.stdout, stderr: ran.stderr };
}

/** The npm build's command line, on the Node the binary is made of. */
export const npmBuild = (...args: string[]): string[] => [SEA_NODE, BIN, ...args];

const UNSHARE = tool('unshare');
const MOUNT = tool('mount');
const FIND = tool('find');
const SH = tool('sh');

let mountable: boolean | undefined;
/**
 * Whether a tmpfs can be mounted in a mount namespace of the test's own (root, and a system that allows it): it goes
 * with the namespace, so nothing stays mounted whatever happens. Without, the tests that need it are skipped, saying
 * so, except under CI, where CI runs as root and it fails the run.
 */
export function canMount(what: string): boolean {
  if (mountable === undefined) {
    mountable = false;
    if (process.getuid?.() === 0 && UNSHARE && MOUNT && SH) {
      const probe = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-mount-'));
      try {
        mountable = spawnSync(UNSHARE, ['-m', SH, '-c', '"$0" -t tmpfs -o size=1m gymctl-probe "$1"', MOUNT, probe], { timeout: 30_000 }).status === 0;
      } finally {
        rmSync(probe, { recursive: true, force: true });
      }
    }
  }
  const why = `${what} needs root, unshare and mount (a tmpfs in a mount namespace of its own)`;
  if (!mountable && process.env.CI === 'true') throw new Error(why);
  if (!mountable) console.warn(`skipping: ${why}`);
  return mountable;
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Runs `commands` one after the other in a mount namespace of their own, where the run's XDG_CACHE_HOME is a fresh
 * tmpfs mounted with `options` (`ro`; `size=4m`, which gymctl's files do not fit in). Returns what each printed, and
 * what the tmpfs held at the end (`path type`, find's letters). The tmpfs goes with the namespace.
 */
export function onTmpfs(options: string, commands: ReadonlyArray<{ argv: readonly string[]; stdin?: string }>, where: Folders): { outputs: Ran[]; listing: string[] } {
  const scratch = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-tmpfs-'));
  try {
    const file = (name: string) => path.join(scratch, name);
    const lines = [`${quote(MOUNT!)} -t tmpfs -o ${quote(options)} gymctl-test ${quote(where.cache)} || exit 97`];
    commands.forEach((command, i) => {
      writeFileSync(file(`in${i}`), command.stdin ?? '');
      lines.push(`${command.argv.map(quote).join(' ')} < ${quote(file(`in${i}`))} > ${quote(file(`out${i}`))} 2> ${quote(file(`err${i}`))}; echo $? > ${quote(file(`code${i}`))}`);
    });
    lines.push(`${quote(FIND!)} ${quote(where.cache)} -mindepth 1 -printf '%P %y\\n' > ${quote(file('listing'))}`);
    writeFileSync(file('script'), `${lines.join('\n')}\n`);
    const ran = spawnSync(UNSHARE!, ['-m', SH!, file('script')], { env: environment(where), cwd: where.home, timeout: 120_000, killSignal: 'SIGKILL', encoding: 'utf8' });
    if (ran.status !== 0) throw new Error(`the mount namespace's script failed (${ran.status ?? ran.signal}): ${ran.stderr}`);
    const read = (name: string) => readFileSync(file(name), 'utf8');
    const outputs = commands.map((_, i) => ({ status: Number(read(`code${i}`)), signal: null, stdout: read(`out${i}`), stderr: read(`err${i}`) }));
    return { outputs, listing: read('listing').split('\n').filter(Boolean).sort() };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** An MCP session over stdio, held open: `ask` sends a request and waits for its answer. */
export interface Session {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  ask(id: number, method: string, params?: object): Promise<{ id: number; result?: unknown; error?: unknown }>;
  end(): Promise<void>;
}

export async function mcpSession(argv: readonly string[], where: Folders, env: Record<string, string | undefined> = {}): Promise<Session> {
  const child = spawn(argv[0]!, argv.slice(1), { env: environment(where, env), cwd: where.home, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const answers = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { id: number });
  const session: Session = {
    child,
    stderr: () => stderr,
    async ask(id, method, params = {}) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      await waitFor(`gymctl mcp's answer to ${method} (stderr: ${stderr})`, () => answers().some((answer) => answer.id === id) || child.exitCode !== null);
      const answer = answers().find((found) => found.id === id);
      if (!answer) throw new Error(`gymctl mcp ended (${child.exitCode}) without answering ${method}: ${stderr}`);
      return answer;
    },
    async end() {
      if (child.exitCode === null && child.signalCode === null) {
        const ended = new Promise((resolve) => child.once('close', resolve));
        child.kill('SIGKILL');
        await ended;
      }
    },
  };
  await session.ask(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sealed', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return session;
}

/** The TCP ports `pid` listens on, from its sockets (/proc/<pid>/fd) and the kernel's tables (Linux). */
export function listeningPorts(pid: number): number[] {
  const sockets = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) sockets.add(inode);
    } catch {}
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const file = `/proc/${pid}/net/${table}`;
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // st 0A is LISTEN; the local address is hex ip:port.
      if (fields[3] === '0A' && sockets.has(fields[9]!)) ports.push(Number.parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}
