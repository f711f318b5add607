/**
 * conf writes through atomically, which brings when-exit: a module that
 * hooks SIGINT, SIGTERM and more on the first write, and on a signal sends
 * it again to the process. gymctl's handler then took the echo for a second
 * Ctrl-C and exited at once, skipping its orderly shutdown. After a write,
 * Ctrl-C and SIGTERM are gymctl's alone.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, tempConfigDir } from '../helpers/cli.js';

let config: { dir: string; remove: () => void };
beforeEach(() => {
  config = tempConfigDir();
  mkdirSync(config.dir, { mode: 0o700 });
});
afterEach(() => config.remove());

describe('a signal after a config write', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal}: gymctl's orderly shutdown runs (the sandbox says it stopped), exit ${code}`, async () => {
      const child = spawn(process.execPath, ['--require', path.join(ROOT, 'test', 'helpers', 'conf-written.cjs'), BIN, 'sandbox', '--port', '0'], {
        env: cleanEnv(config.dir),
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      let fd3 = '';
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      const written = new Promise<void>((resolve) =>
        child.stdio[3]!.on('data', (chunk: Buffer) => {
          fd3 += chunk.toString();
          if (fd3.includes('ready\n')) resolve();
        }),
      );
      const listening = new Promise<void>((resolve) =>
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('Press Ctrl-C to stop.')) resolve();
        }),
      );
      // Whatever happens, the process is not left running.
      try {
        await Promise.race([Promise.all([written, listening]), closed.then(() => Promise.reject(new Error(`gymctl ended before it listened: ${stderr}`)))]);
        child.kill(signal);
        expect(await closed).toBe(code);
      } finally {
        child.kill('SIGKILL');
      }
      expect(stderr).toContain('Sandbox stopped.');
      // One signal sent, one handled; and no handler but gymctl's, which would send it again (gymctl would take that for a second Ctrl-C and end at once).
      expect(fd3).toBe('ready\nsignals 1, left 0 0\n');
    });
  }
});
