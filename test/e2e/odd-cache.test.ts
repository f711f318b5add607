/**
 * Odd places for the response cache, with the built CLI: procfs, sysfs, a
 * file, a read-only bind mount and a read-only tmpfs. Each gives the answer
 * and one warning naming the real error, and the process ends by itself:
 * Node's recursive mkdir never returned on procfs (spinning, deaf to
 * SIGTERM, since the loop is synchronous) and named ENOENT for a read-only
 * file system. A process is needed to see that it ends.
 *
 * The V8 code cache lives beside the response cache, so it meets the same
 * places: its folder is made the same way, and a run without --cache ends
 * too (it used to print its answer, then spin for ever making the code
 * cache's folder in /proc).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempConfigDir } from '../helpers/cli.js';
import { hasTool } from '../helpers/tls.js';

let config: { dir: string; remove: () => void };
let base: string;
beforeEach(() => {
  config = tempConfigDir();
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-odd-cache-'));
});
afterEach(() => {
  config.remove();
  rmSync(base, { recursive: true, force: true });
});

const ARGS = ['whoami', '--sandbox', '--cache', '1m', '--json'];
const env = (cacheHome: string) => ({ XDG_CACHE_HOME: cacheHome });

/** The answer on stdout, exit 0, and exactly one line on stderr: the warning. */
function expectAnswerAndWarning(result: { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }): string {
  expect(result.signal, result.stderr).toBeNull();
  expect(result.code, result.stderr).toBe(0);
  expect(JSON.parse(result.stdout).id).toBe(101);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0]!;
}

describe.runIf(process.platform === 'linux')('procfs and sysfs', () => {
  it('XDG_CACHE_HOME=/proc: the answer, a warning, and the process ends (it used to spin, deaf to SIGTERM)', async () => {
    const result = await runCli(ARGS, config.dir, { env: env('/proc') });
    expect(expectAnswerAndWarning(result)).toBe("gymctl: warning: the answer could not be cached in /proc/gymctl: ENOENT: /proc takes no new folders, mkdir '/proc/gymctl'");
  });

  it('XDG_CACHE_HOME=/proc without --cache: the answer, nothing on stderr, and the process ends (the code cache has its folder there too)', async () => {
    const result = await runCli(['whoami', '--sandbox', '--json'], config.dir, { env: env('/proc') });
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(101);
    expect(result.stderr).toBe('');
  });

  it('XDG_CACHE_HOME=/sys: the answer and a warning naming why the folder cannot be made', async () => {
    const result = await runCli(ARGS, config.dir, { env: env('/sys') });
    expect(expectAnswerAndWarning(result)).toMatch(/^gymctl: warning: the answer could not be cached in \/sys\/gymctl: (EPERM|EACCES|EROFS): .*mkdir '\/sys\/gymctl'$/);
  });
});

it('XDG_CACHE_HOME is a file: the answer and a warning that it is not a folder', async () => {
  const file = path.join(base, 'a-file');
  writeFileSync(file, '');
  const result = await runCli(ARGS, config.dir, { env: env(file) });
  expect(expectAnswerAndWarning(result)).toBe(
    `gymctl: warning: the cache cannot be used, so the answer comes from the server: gymctl will not use the cache folder ${file}/gymctl: ${file} is not a folder; set XDG_CACHE_HOME to a folder of your own`,
  );
});

describe.skipIf(!hasTool('unshare', ['--version']))('read-only mounts, each in a mount namespace of its own', () => {
  /** Runs gymctl after `mount`, in a new mount namespace (the mount goes with it); undefined when mounting is not permitted here. */
  function afterMount(mount: string, mountAt: string, cacheHome = mountAt, args = ARGS) {
    const result = spawnSync('unshare', ['-m', 'sh', '-c', `${mount} && exec "$NODE" "$BIN" ${args.join(' ')}`], {
      env: { ...cleanEnv(config.dir, env(cacheHome)), NODE: process.execPath, BIN, MOUNT_AT: mountAt, SOURCE: path.join(base, 'source') },
      encoding: 'utf8',
      timeout: 120_000,
      killSignal: 'SIGKILL',
    });
    if (/unshare: unshare failed|mount: .*(permission denied|not permitted)/i.test(result.stderr) && process.env.CI !== 'true') {
      console.warn(`skipping: mounting is not permitted here (${result.stderr.trim()})`);
      return undefined;
    }
    return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
  }

  it('a read-only tmpfs: the warning names EROFS, not ENOENT', () => {
    const cacheHome = path.join(base, 'ro-tmpfs');
    mkdirSync(cacheHome);
    const result = afterMount('mount -t tmpfs -o ro,size=64k tmpfs "$MOUNT_AT"', cacheHome);
    if (!result) return;
    expect(expectAnswerAndWarning(result)).toBe(
      `gymctl: warning: the answer could not be cached in ${cacheHome}/gymctl: EROFS: read-only file system, mkdir '${cacheHome}/gymctl'`,
    );
  });

  it('a read-only bind mount, with a folder to make below it: EROFS', () => {
    const cacheHome = path.join(base, 'ro-bind');
    mkdirSync(cacheHome);
    mkdirSync(path.join(base, 'source'));
    const result = afterMount('mount --bind "$SOURCE" "$MOUNT_AT" && mount -o remount,ro,bind "$MOUNT_AT"', cacheHome, path.join(cacheHome, 'deeper'));
    if (!result) return;
    expect(expectAnswerAndWarning(result)).toBe(
      `gymctl: warning: the answer could not be cached in ${cacheHome}/deeper/gymctl: EROFS: read-only file system, mkdir '${cacheHome}/deeper'`,
    );
  });

  it('cache clear on a read-only mount: exit 1 and a message naming the folder and EROFS, not an unexpected error or a handle’s path', () => {
    const cacheHome = path.join(base, 'ro-clear');
    mkdirSync(path.join(base, 'source', 'gymctl', 'k'), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(base, 'source', 'gymctl', 'k', 'a.json'), '{}');
    mkdirSync(cacheHome);
    const result = afterMount('mount --bind "$SOURCE" "$MOUNT_AT" && mount -o remount,ro,bind "$MOUNT_AT"', cacheHome, cacheHome, ['cache', 'clear']);
    if (!result) return;
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    // Node 20 and 22 say `EROFS: read-only file system, rm`; Node 24's rmSync gives no code, only `Read-only file system`.
    expect(result.stderr).toMatch(new RegExp(`^gymctl: the cache folder ${cacheHome}/gymctl could not be cleared: (EROFS: )?read-only file system(, \\w+)?( '[^']*')?\n$`, 'i'));
    expect(result.stderr).not.toContain('/proc/self/fd/');
  });
});
