/**
 * What only a process shows of the config file's safety: Ctrl-C and
 * SIGTERM while waiting for its lock, and a disk that fills up while it is
 * written (a tiny tmpfs, mounted in a mount namespace of its own with
 * util-linux unshare, so nothing on the machine changes).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, signalledAfter, tempConfigDir } from '../helpers/cli.js';
import { hasTool } from '../helpers/tls.js';

let config: { dir: string; remove: () => void };
beforeEach(() => {
  config = tempConfigDir();
  mkdirSync(config.dir, { mode: 0o700 });
});
afterEach(() => config.remove());

describe('signals while waiting for the config lock', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal}: exit ${code} at once, the file intact, the other writer's lock left alone`, async () => {
      const file = path.join(config.dir, 'config.json');
      writeFileSync(file, '{"profiles":{"default":{"format":"csv"}}}\n', { mode: 0o600 });
      // A lock held by a live process (this one): gymctl waits for it.
      writeFileSync(`${file}.lock`, `${process.pid} test\n`);
      // 150 ms: a moment to start waiting for the lock, though a signal before it is handled the same way.
      // The lock is never released: only the signal can end the wait, and the exit code says it did (a wait given up
      // would be another code, with a message).
      const { exit, stderr } = await signalledAfter(['config', 'set', 'format', 'json'], cleanEnv(config.dir), signal, 150);
      expect({ exit, stderr }).toEqual({ exit: code, stderr: '' });
      expect(readFileSync(file, 'utf8')).toBe('{"profiles":{"default":{"format":"csv"}}}\n');
      expect(readFileSync(`${file}.lock`, 'utf8')).toBe(`${process.pid} test\n`);
      expect(readdirSync(config.dir).sort()).toEqual(['config.json', 'config.json.lock']);
    });
  }
});

describe('writers in processes of their own', () => {
  it('8 gymctl processes writing at once each keep their change, and leave nothing behind', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
    const file = path.join(config.dir, 'config.json');
    // The profiles exist (only auth login creates one); each writer changes its own.
    writeFileSync(file, `${JSON.stringify({ profiles: Object.fromEntries(names.map((name) => [name, {}])) })}\n`, { mode: 0o600 });
    const exits = await Promise.all(
      names.map(
        (name) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, [BIN, 'config', 'set', 'timeout', '5s', '--profile', name], { env: cleanEnv(config.dir), stdio: 'ignore' });
            child.on('close', resolve);
          }),
      ),
    );
    expect(exits).toEqual(names.map(() => 0));
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles).toEqual(Object.fromEntries(names.map((name) => [name, { timeout: 5000 }])));
    // And nothing else: only the config is written there.
    expect(readdirSync(config.dir).sort()).toEqual(['config.json']);
  });
});

describe('writers under stress, each planting a dead process’s lock after every write', () => {
  it('lose nothing: stale locks are taken over by one writer at a time, never from a live one', async () => {
    const file = path.join(config.dir, 'config.json');
    const names = Array.from({ length: 6 }, (_, w) => Array.from({ length: 8 }, (_, i) => `w${w}-${i + 1}`)).flat();
    // The profiles exist (only auth login creates one); each write changes one of them.
    writeFileSync(file, `${JSON.stringify({ profiles: Object.fromEntries(names.map((name) => [name, {}])) })}\n`, { mode: 0o600 });
    // Each worker: 8 writes of a profile of its own, each followed by a lock naming a process that has ended (made only if none is there).
    const worker = (w: number) => `
      for i in 1 2 3 4 5 6 7 8; do
        "$NODE" "$BIN" config set timeout 1s --profile "w${w}-$i" || exit 1
        true & wait; dead=$!
        (set -C; echo "$dead stale" > "${file}.lock") 2>/dev/null || true
      done`;
    let stderr = '';
    const exits = await Promise.all(
      Array.from(
        { length: 6 },
        (_, w) =>
          new Promise<number | null>((resolve) => {
            const child = spawn('bash', ['-c', worker(w)], { env: { ...cleanEnv(config.dir), NODE: process.execPath, BIN }, stdio: ['ignore', 'ignore', 'pipe'] });
            child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
            child.on('close', resolve);
          }),
      ),
    );
    expect(exits, stderr).toEqual([0, 0, 0, 0, 0, 0]);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles).toEqual(Object.fromEntries(names.map((name) => [name, { timeout: 1000 }])));
    expect(
      readdirSync(config.dir)
        .filter((name) => name !== 'config.json.lock')
        .sort(),
    ).toEqual(['config.json']);
  });
});

describe.skipIf(!hasTool('unshare', ['--version']))('a full disk', () => {
  it('a write that fails says "cannot be written (ENOSPC…)", exit 1, and leaves no lock behind', () => {
    // The config folder is a 16 KiB tmpfs, filled up but for a little room, in a mount namespace of its own.
    const script = `mount -t tmpfs -o size=16k tmpfs "$GYMCTL_CONFIG_DIR" && chmod 700 "$GYMCTL_CONFIG_DIR" \
      && head -c 12288 /dev/zero > "$GYMCTL_CONFIG_DIR/filler" \
      && "$NODE" "$BIN" config set base-url "https://$(head -c 8000 /dev/zero | tr '\\0' a).example.com"; status=$?; \
      ls -A "$GYMCTL_CONFIG_DIR" >&2; exit $status`;
    const result = spawnSync('unshare', ['-m', 'sh', '-c', script], {
      env: { ...cleanEnv(config.dir), NODE: process.execPath, BIN },
      encoding: 'utf8',
    });
    if (/unshare: unshare failed|mount: .*permission denied/i.test(result.stderr) && process.env.CI !== 'true') {
      console.warn(`skipping: mounting a tmpfs is not permitted here (${result.stderr.trim()})`);
      return;
    }
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    const [message, ...listing] = result.stderr.trimEnd().split('\n');
    expect(message).toMatch(/^gymctl: config file .*config\.json cannot be written \(ENOSPC: no space left on the device\)$/);
    expect(listing).not.toContain('config.json.lock');
  });
});
