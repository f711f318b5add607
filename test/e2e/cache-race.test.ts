/**
 * The cache under a local attacker, for real and bounded in time: another
 * process flips the cache folder between a folder of entries, nothing, and
 * a link to a folder of the victim's, as fast as it can, while gymctl
 * clears the cache and writes answers into it. Nothing of the victim's may
 * be removed, and nothing written there.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearCache, openCache } from '../../src/cache/store.js';
import { waitFor } from '../helpers/wait.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-race-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/**
 * The flipper: until killed (by the test, or with it), the cache folder is a folder of entries, then nothing, then
 * a link to the victim's folder. It says "flipping" on stdout once it has gone round once.
 */
const FLIPPER = `
const fs = require('node:fs');
const [gym, victim] = process.argv.slice(1);
let rounds = 0;
for (;;) {
  try {
    fs.mkdirSync(gym + '/k', { recursive: true });
    fs.writeFileSync(gym + '/k/a.json', '{}');
    fs.rmSync(gym, { recursive: true, force: true });
    fs.symlinkSync(victim, gym);
    fs.unlinkSync(gym);
  } catch {}
  if (++rounds === 1) fs.writeSync(1, 'flipping\\n');
}
`;

describe('cache clear and cache writes against a folder swapped for a link', () => {
  it('remove nothing and write nothing outside the cache', async () => {
    const victim = path.join(base, 'victim');
    mkdirSync(path.join(victim, 'k'), { recursive: true, mode: 0o700 });
    const planted = Array.from({ length: 20 }, (_, i) => `secret-${i}.json`);
    for (const name of planted) {
      writeFileSync(path.join(victim, name), 'precious');
      writeFileSync(path.join(victim, 'k', name), 'precious');
    }
    const cacheHome = path.join(base, 'cache');
    mkdirSync(cacheHome, { mode: 0o700 });
    const env = { XDG_CACHE_HOME: cacheHome, HOME: base };
    const flipper = spawn(process.execPath, ['-e', FLIPPER, path.join(cacheHome, 'gymctl'), victim], { stdio: ['ignore', 'pipe', 'ignore'] });
    let said = '';
    flipper.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
    let clears = 0;
    let writes = 0;
    try {
      // The race starts once the flipper flips, however long a loaded machine takes to start it.
      await waitFor('the flipper flipping', () => said.includes('flipping'));
      // Rounds of the race, not a time: 300 tries of each, and until 10 of them have done their work, so that the race
      // was run however the flipper and this process were scheduled.
      for (let tries = 0; tries < 300 || clears + writes <= 10; tries++) {
        try {
          clearCache(env);
          clears++;
        } catch {
          // A link or a half-made folder in its place is refused: what must not happen is following it.
        }
        try {
          openCache({ env, baseUrl: 'https://api.example.com', apiKey: 'k_0123456789abcdef', lifetimeMs: 1000, warn: () => {} }).write(`/academies/${writes}`, '{"data":{}}');
          writes++;
        } catch {
          // As above.
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      flipper.kill('SIGKILL');
      await new Promise((resolve) => flipper.on('close', resolve));
    }
    expect(readdirSync(victim).sort()).toEqual([...planted, 'k'].sort());
    expect(readdirSync(path.join(victim, 'k')).sort()).toEqual([...planted].sort());
  });
});
