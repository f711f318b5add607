/**
 * Windows desks (issue 43), under Wine with the Windows build of Node, from
 * cmd.exe (test/wine/wine.ts): doctor's advice for a folder whose name
 * holds a $ and a space, in single quotes for PowerShell; build:sea's npm
 * call (scripts/npm.mjs) through cmd.exe to a stand-in npm.cmd, from a
 * folder with spaces in its name; and the home folder: a USERPROFILE of
 * 330 characters, one that is no absolute path, and a HOME of Git Bash's
 * beside them. `npm run test:wine` runs this file; `npm test` does not.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, type ExpectStatic, expect as globalExpect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { sandboxHandler } from '../../src/sandbox/server.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { httpServer } from '../helpers/servers.js';
import { filesUnder, inProfile, makePrefix, NODES, type Prefix, probe, profileVariables, removePrefix, runWin, type WinRun, wineReady, windowsPath } from './wine.js';

const ready = wineReady();
const prefix: Prefix | undefined = ready ? makePrefix() : undefined;
afterAll(() => {
  if (prefix) removePrefix(prefix);
});

/** The node.exe files that start under this Wine (test/wine/smoke.test.ts checks that each does). */
const nodes = prefix ? NODES.filter((node) => probe(prefix, node).code === 0) : [];

/** A stack trace, or Node's own crash report, where only gymctl's one-line messages belong. */
const STACK = /^\s+at .+[(:]\d+|node:internal|\bError: .*\n\s+at |Unhandled exception|Fatal process|SystemError/m;

/** Exit code, and stderr free of stack traces, in one assertion whose failure shows the whole run. */
function expectRun(run: WinRun, code: number, expect: ExpectStatic = globalExpect): void {
  expect({ code: run.code, stackInStderr: STACK.test(run.stderr) }, JSON.stringify(run, null, 1)).toEqual({ code, stackInStderr: false });
}

const baseUrl = prefix ? await httpServer(sandboxHandler()) : '';

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

describe.skipIf(!ready)('Windows desks under Wine', () => {
  for (const node of nodes) {
    const label = `Node ${(JSON.parse(readFileSync(path.join(path.dirname(node), '..', 'package.json'), 'utf8')) as { version: string }).version}`;

    describe(label, () => {
      it.concurrent("doctor's advice for a folder with a $ and a space is in single quotes for PowerShell, double for cmd", async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          // A config folder outside the profile, as GYMCTL_CONFIG_DIR on a team's share would be: doctor says how to see who can open it.
          const folder = path.join(profile.folder, 'team$share', 'gymctl conf');
          const variables = { ...profileVariables(profile), GYMCTL_CONFIG_DIR: windowsPath(folder) };
          const login = await runWin(prefix!, node, profile.folder, ['auth', 'login', '--with-key', '--base-url', baseUrl], { variables, stdin: DEMO_KEY });
          expectRun(login, 0, expect);
          const doctor = await runWin(prefix!, node, profile.folder, ['doctor', '--offline', '--json'], { variables });
          expectRun(doctor, 0, expect);
          const rows = JSON.parse(doctor.stdout) as Array<{ check: string; status: string; fix: string | null }>;
          const where = windowsPath(folder);
          expect(rows.find((row) => row.check === 'config file')).toMatchObject({
            status: 'warn',
            fix: `see who can with: in PowerShell: icacls '${where}'; in cmd: icacls "${where}"`,
          });
          expect(where).toMatch(/\$share\\gymctl conf$/);
        });
      });

      it.concurrent("build:sea's npm call keeps a --prefix with spaces whole, through cmd.exe to npm.cmd", async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          // A stand-in npm.cmd, in a folder with a space, that records the arguments node.exe reads from what cmd.exe passed on.
          const bin = path.join(profile.folder, 'npm bin');
          mkdirSync(bin);
          const record = path.join(profile.folder, 'recorded.json');
          writeFileSync(path.join(bin, 'record.cjs'), "require('node:fs').writeFileSync(process.env.GYMCTL_NPM_RECORD, JSON.stringify(process.argv.slice(2)));\n");
          writeFileSync(path.join(bin, 'npm.cmd'), `@"${windowsPath(node)}" "${windowsPath(path.join(bin, 'record.cjs'))}" %*\r\n`);
          // scripts/npm.mjs as build-sea.mjs calls it, for a clone in a folder with spaces and brackets in its name.
          const driver = path.join(profile.folder, 'call-npm.mjs');
          writeFileSync(
            driver,
            [
              `import { runNpm } from ${JSON.stringify(new URL(`file:///Z:${path.join(ROOT, 'scripts', 'npm.mjs')}`).href)};`,
              "const done = runNpm(['install', '--no-save', '--no-package-lock', '--prefix', process.env.GYMCTL_SEA_PREFIX, 'node@26'], { encoding: 'utf8' });",
              'process.stdout.write(JSON.stringify({ status: done.status, error: done.error?.message ?? null }));',
              '',
            ].join('\n'),
          );
          const seaPrefix = `${windowsPath(path.join(profile.folder, 'my gym clone (2026)'))}\\.sea-node`;
          const run = await runWin(prefix!, node, profile.folder, [], {
            script: driver,
            variables: {
              ...profileVariables(profile),
              PATH: `${windowsPath(bin)};C:\\windows\\system32;C:\\windows`,
              GYMCTL_NPM_RECORD: windowsPath(record),
              GYMCTL_SEA_PREFIX: seaPrefix,
            },
          });
          expectRun(run, 0, expect);
          expect(JSON.parse(run.stdout)).toEqual({ status: 0, error: null });
          expect(JSON.parse(readFileSync(record, 'utf8'))).toEqual(['install', '--no-save', '--no-package-lock', '--prefix', seaPrefix, 'node@26']);
        });
      });

      it.concurrent('a USERPROFILE of 330 characters is the home folder: the folders are made in it and every command answers, no stack', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          // Node's own os.homedir() refuses it (ENOBUFS from 260 characters): gymctl reads USERPROFILE as Windows programs do.
          const start = windowsPath(profile.folder).length;
          const parts = ['x'.repeat(120), 'y'.repeat(120)];
          parts.push('z'.repeat(330 - start - parts.join('\\').length - 2));
          const long = path.join(profile.folder, ...parts);
          mkdirSync(long, { recursive: true });
          expect(windowsPath(long)).toHaveLength(330);
          // No APPDATA nor LOCALAPPDATA: the folders are the profile's AppData\Roaming and AppData\Local.
          const variables = { ...profileVariables(profile), USERPROFILE: windowsPath(long), APPDATA: '', LOCALAPPDATA: '' };
          const where = await runWin(prefix!, node, profile.folder, ['config', 'path'], { variables });
          expectRun(where, 0, expect);
          expect(where.stdout).toBe(`${windowsPath(long)}\\AppData\\Roaming\\gymctl\\config.json\n`);
          // A write too: conf, which writes the config file, is loaded for it.
          const set = await runWin(prefix!, node, profile.folder, ['config', 'set', 'format', 'json'], { variables });
          expectRun(set, 0, expect);
          expect(readFileSync(path.join(long, 'AppData', 'Roaming', 'gymctl', 'config.json'), 'utf8')).toContain('"format": "json"');
          const args = ['academy', '1', '--sandbox', '--json', '--cache', '1m'];
          const read = await runWin(prefix!, node, profile.folder, args, { variables });
          expectRun(read, 0, expect);
          expect(read.stdout).toBe(onLinux(args));
          expect(filesUnder(path.join(long, 'AppData', 'Local', 'gymctl')).length).toBeGreaterThan(0);
          expect(existsSync(path.join(profile.userProfile, 'AppData', 'Local', 'gymctl'))).toBe(false);
        });
      });

      it.concurrent('a USERPROFILE that is no absolute path is one line and exit 1; a HOME of Git Bash is not read', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const variables = profileVariables(profile);
          const relative = await runWin(prefix!, node, profile.folder, ['academy', '1', '--sandbox'], { variables: { ...variables, USERPROFILE: 'jose' } });
          expectRun(relative, 1, expect);
          expect(relative).toMatchObject({
            stdout: '',
            stderr: 'gymctl: USERPROFILE is "jose", not an absolute path such as C:\\Users\\you: set it to your profile folder, or set GYMCTL_CONFIG_DIR and LOCALAPPDATA\n',
          });
          // Git Bash's or Cygwin's HOME, with no APPDATA: the config is in the profile still, never in a drive-relative \home\jose.
          const gitBash = await runWin(prefix!, node, profile.folder, ['config', 'path'], { variables: { ...variables, HOME: '/home/jose', APPDATA: '' } });
          expectRun(gitBash, 0, expect);
          expect(gitBash.stdout).toBe(`${variables.USERPROFILE}\\AppData\\Roaming\\gymctl\\config.json\n`);
        });
      });
    });
  }
});
