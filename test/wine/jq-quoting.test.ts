/**
 * --jq as docs/windows.md tells a cmd.exe user to quote it, under Wine with the Windows build of Node: typed in a batch
 * file, through npm's gymctl.cmd (test/wine/wine.ts: npmShim), with `call` so that the lines after it run. The filter in double
 * quotes, jq's own strings as \"…\", and a | inside the quotes that cmd.exe must not take for a pipe. PowerShell is not run
 * here (see docs/windows.md), nor exit codes: under Wine's cmd.exe, `call` of a batch file that exits with any code but 0
 * gives 1 (smoke.test.ts checks them without a batch file between). `npm run test:wine` runs this file; `npm test` does not.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { inProfile, makePrefix, NODES, npmShim, type Prefix, probe, profileVariables, removePrefix, runBatch, wineReady, windowsPath } from './wine.js';

const ready = wineReady();
const prefix: Prefix | undefined = ready ? makePrefix() : undefined;
afterAll(() => {
  if (prefix) removePrefix(prefix);
});

/** The node.exe files that start under this Wine (test/wine/smoke.test.ts checks that each does). */
const nodes = prefix ? NODES.filter((node) => probe(prefix, node).code === 0) : [];

/** What this machine's Node prints for `args` on Linux: what the Windows build must print too. */
function onLinux(args: readonly string[]): string {
  const home = path.join(prefix!.root, `linux-${Math.random().toString(36).slice(2)}`);
  mkdirSync(home);
  try {
    return spawnSync(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, 'c'), XDG_CACHE_HOME: path.join(home, 'k') },
      encoding: 'utf8',
    }).stdout;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe.skipIf(!ready)('--jq quoted as in cmd.exe, under Wine', () => {
  for (const node of nodes) {
    const label = `Node ${(JSON.parse(readFileSync(path.join(path.dirname(node), '..', 'package.json'), 'utf8')) as { version: string }).version}`;

    it.concurrent(`${label}: the cmd.exe forms of docs/windows.md, with call gymctl in a batch file`, async ({ expect }) => {
      await inProfile(prefix!, async (profile) => {
        // npm's global folder (%APPDATA%\npm) with its gymctl.cmd, and node.exe's folder, on PATH, as Node's installer leaves them.
        const npmFolder = path.join(profile.appData, 'npm');
        mkdirSync(npmFolder);
        npmShim(npmFolder, BIN);
        const out = (name: string) => path.join(profile.folder, name);
        const to = (name: string) => `> "${windowsPath(out(`${name}.out`))}" 2> "${windowsPath(out(`${name}.err`))}"`;
        const run = await runBatch(prefix!, profile.folder, [
          ...Object.entries(profileVariables(profile)).map(([name, value]) => `set "${name}=${value}"`),
          `set "PATH=${windowsPath(npmFolder)};${windowsPath(path.dirname(node))};%PATH%"`,
          `call gymctl academy 1 --sandbox --jq ".name" ${to('name')}`,
          `call gymctl academies --sandbox --jq "select(.address.city == \\"Lisboa\\") | .name" ${to('select')}`,
          // Without call, the batch file hands over to gymctl.cmd and never comes back.
          `gymctl academy 2 --sandbox --jq ".name" ${to('nocall')}`,
          `echo reached> "${windowsPath(out('after.txt'))}"`,
        ]);
        const read = (name: string) => (existsSync(out(name)) ? readFileSync(out(name), 'utf8') : undefined);
        const seen = JSON.stringify({ run, name: [read('name.out'), read('name.err')], select: [read('select.out'), read('select.err')] }, null, 1);
        expect(read('name.out'), seen).toBe(onLinux(['academy', '1', '--sandbox', '--jq', '.name']));
        expect(read('name.out'), seen).toBe('Alfama Jiu-Jitsu\n');
        expect(read('name.err'), seen).toBe('');
        expect(read('select.out'), seen).toBe(onLinux(['academies', '--sandbox', '--jq', 'select(.address.city == "Lisboa") | .name']));
        expect(read('select.out'), seen).toBe('Alfama Jiu-Jitsu\n');
        expect(read('select.err'), seen).toBe('');
        expect(read('nocall.out'), seen).toBe('Eastside Grappling Club\n');
        expect(read('after.txt'), seen).toBeUndefined();
      });
    });
  }
});
