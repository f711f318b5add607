/** Runs the built CLI as a user would: a child process with its own config folder. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'gymctl.cjs');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
}

/** An environment with nothing of the caller's gymctl settings, colour or TTY forcing. */
export function cleanEnv(configDir: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(GYMCTL_|NO_COLOR$|FORCE_COLOR$|XDG_CONFIG_HOME$|XDG_CACHE_HOME$)/.test(key)) continue;
    env[key] = value;
  }
  env.GYMCTL_CONFIG_DIR = configDir;
  // No test writes to the real ~/.cache: answers --cache keeps go beside the test's config folder.
  env.XDG_CACHE_HOME = path.join(configDir, '..', `${path.basename(configDir)}-cache`);
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export function runCli(args: string[], configDir: string, options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: cleanEnv(configDir, options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // No timer of its own: a run that hangs is ended with its test (test/helpers/processes.ts), whose limit is the ceiling.
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

/** A fresh, empty config folder; removed by the returned function. */
export function tempConfigDir(): { dir: string; remove: () => void } {
  const base = mkdtempSync(path.join(tmpdir(), 'gymctl-test-'));
  const dir = path.join(base, 'config');
  return { dir, remove: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * Spawns the built gymctl so that `ready` resolves once it listens for
 * SIGINT and SIGTERM (signals-ready.cjs, preloaded, says so on fd 3): a
 * signal sent then is gymctl's to handle.
 */
export function spawnWatched(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcessWithoutNullStreams; ready: Promise<void> } {
  const child = spawn(process.execPath, ['--require', path.join(ROOT, 'test', 'helpers', 'signals-ready.cjs'), BIN, ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  }) as unknown as ChildProcessWithoutNullStreams;
  const ready = new Promise<void>((resolve, reject) => {
    (child.stdio[3] as NodeJS.ReadableStream).once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`gymctl exited (${code}) before it listened for signals`)));
  });
  return { child, ready };
}

/**
 * Spawns gymctl (spawnWatched), sends `signal` `afterMs` after it listens
 * for signals, and waits for it to end: its exit code and what it wrote.
 */
export async function signalledAfter(
  args: string[],
  env: NodeJS.ProcessEnv,
  signal: NodeJS.Signals,
  afterMs: number,
): Promise<{ exit: number | null; stdout: string; stderr: string }> {
  const { child, ready } = spawnWatched(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  await ready;
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  child.kill(signal);
  const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { exit, stdout, stderr };
}
