// The bench's "where the time goes": samples summed by source folder, bundled package and part of Node, read
// through the build's source maps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceGroup, timeByGroup, whereTimeGoes } from '../bench/profile.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

const frame = (functionName: string, url = '', lineNumber = 0, columnNumber = 0) => ({ functionName, url, lineNumber, columnNumber });

describe('where a bench case spends its time', () => {
  it('names packages, scoped packages and gymctl source folders', () => {
    expect(sourceGroup('../node_modules/undici/lib/dispatcher/client.js')).toBe('undici');
    expect(sourceGroup('../node_modules/.pnpm/x/node_modules/@inquirer/core/dist/index.js')).toBe('@inquirer/core');
    expect(sourceGroup('../src/api/transport/loop.ts')).toBe('src/api/transport');
    expect(sourceGroup('../src/cli.ts')).toBe('src/*.ts');
  });

  it('sums samples by group, giving native calls to the JavaScript that made them', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
        { id: 2, callFrame: frame('(garbage collector)') },
        { id: 3, callFrame: frame('(idle)') },
        { id: 4, callFrame: frame('emit', 'node:events'), children: [5] },
        { id: 5, callFrame: frame('writev'), children: [] },
      ],
      samples: [2, 3, 3, 4, 5, 5],
      timeDeltas: [1000, 2000, 2000, 500, 250, 250],
    };
    expect(timeByGroup(profile)).toEqual([
      ['idle: waiting for the network or the reader', 4],
      ['garbage collection', 1],
      ['Node: streams, events, buffers', 0.5],
      ['Node: streams, events, buffers (native calls)', 0.5],
    ]);
  });

  it("maps the main bundle's first line to esbuild's own wrapper: the time of loading the bundled modules", () => {
    const main = pathToFileURL(path.join(ROOT, 'dist', 'gymctl.cjs')).href;
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2] },
        { id: 2, callFrame: frame('', main, 0, 0) },
      ],
      samples: [2],
      timeDeltas: [1000],
    };
    expect(timeByGroup(profile)).toEqual([['dist/gymctl.cjs: loading bundled modules', 1]]);
  });

  it('profiles a real run and finds gymctl and its packages in it', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.NODE_EXTRA_CA_CERTS;
    const dir = mkdtempSync(path.join(tmpdir(), 'gymctl-profile-'));
    try {
      // 400 answers to validate: zod's share is then many samples, not a few a busy machine may miss.
      const ids = Array.from({ length: 100 }, () => ['1', '2', '3', '4']).flat();
      const rows = whereTimeGoes(process.execPath, [path.join(ROOT, 'bin', 'gymctl.cjs'), 'academy', ...ids, '--sandbox', '--json'], {
        env: { ...env, GYMCTL_CONFIG_DIR: path.join(dir, 'config'), XDG_CACHE_HOME: path.join(dir, 'cache') },
        top: 100,
      });
      const groups = rows.map((row) => row[0]);
      expect(groups).toContain('zod');
      expect(groups.some((group) => group?.startsWith('src/'))).toBe(true);
      expect(groups.some((group) => group?.startsWith('Node: '))).toBe(true);
      for (const [, ms, share] of rows) {
        expect(Number(ms)).toBeGreaterThanOrEqual(0);
        expect(share).toMatch(/^\d+ %$/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
