/**
 * gymctl as npm users get it, for the package tests: `npm pack` of the
 * build, and `npm install` of the tarball into an empty folder, bounded.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './cli.js';

/** The longest an install may take: spawnSync blocks the test's own time limit, so the child is bounded itself. */
export const INSTALL_MS = 150_000;

/** Packs the build that `npm test` just made (--ignore-scripts keeps pack from making it again) into `dir`. */
export function packGymctl(dir: string): { tarball: string; packed: string[] } {
  const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
  expect(pack.status, pack.stderr).toBe(0);
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: path.join(dir, info!.filename), packed: info!.files.map((file) => file.path) };
}

/** An empty ES module project at `dir`, to install gymctl into. */
export function emptyApp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', private: true }));
  return dir;
}

/**
 * `npm install` of the packed tarball, bounded for real (spawnSync's own
 * timeout, and npm's fetches cut short), failing with what it needs.
 * Returns npm's stderr.
 */
export function npmInstall(args: string[], cwd: string): string {
  const install = spawnSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--fetch-timeout=20000',
      '--fetch-retries=1',
      '--fetch-retry-mintimeout=2000',
      '--fetch-retry-maxtimeout=5000',
      ...args,
    ],
    { cwd, encoding: 'utf8', timeout: INSTALL_MS },
  );
  if (install.status !== 0) {
    const why = install.error?.message.includes('ETIMEDOUT') || install.signal ? `did not finish within ${INSTALL_MS / 1000} s` : `exited ${install.status}`;
    throw new Error(
      `npm install of the packed gymctl ${why}: it needs the npm registry, or npm's cache holding gymctl's dependencies (zod, undici, @napi-rs/keyring). npm said: ${install.stderr.slice(-2000)}`,
    );
  }
  return install.stderr;
}
