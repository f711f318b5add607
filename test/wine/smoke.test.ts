/**
 * The Windows build of Node runs gymctl (issue 34): the npm build
 * (bin\gymctl.cjs) under Wine, from cmd.exe with stdin, stdout and stderr in
 * files, against the built-in sandbox and a loopback server, in a Windows
 * profile of its own per case (USERPROFILE, APPDATA, LOCALAPPDATA, TEMP), and
 * once in Wine's own profile to see the default folders. `npm run test:wine`
 * installs the Windows builds and runs this file (the `wine` project of vitest.config.ts);
 * `npm test` does not include it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, type ExpectStatic, expect as globalExpect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { sandboxHandler } from '../../src/sandbox/server.js';
import { BIN } from '../helpers/cli.js';
import { httpServer } from '../helpers/servers.js';
import {
  filesUnder,
  inProfile,
  makePrefix,
  makeProfile,
  NODES,
  PROFILE,
  type Prefix,
  probe,
  profileVariables,
  removePrefix,
  runWin,
  type WinRun,
  wineReady,
  windowsPath,
} from './wine.js';

const ready = wineReady();
const prefix: Prefix | undefined = ready ? makePrefix() : undefined;
afterAll(() => {
  if (prefix) removePrefix(prefix);
});

/** Each node.exe and what it said when started with `-p process.version`. */
const builds = prefix ? NODES.map((node) => ({ node, started: probe(prefix, node) })) : [];

/** A stack trace, or Node's own crash report, where only gymctl's one-line messages belong. */
const STACK = /^\s+at .+[(:]\d+|node:internal|\bError: .*\n\s+at |Unhandled exception|Fatal process/m;

/** What onLinux printed for each command, run once for every Windows build. */
const linuxRuns = new Map<string, { code: number | null; stdout: string }>();

/** The same command with this machine's Node on Linux: what the Windows build must print too. */
function onLinux(args: readonly string[], stdin = ''): { code: number | null; stdout: string } {
  const key = JSON.stringify([args, stdin]);
  const known = linuxRuns.get(key);
  if (known) return known;
  const done = runOnLinux(args, stdin);
  linuxRuns.set(key, done);
  return done;
}

function runOnLinux(args: readonly string[], stdin: string): { code: number | null; stdout: string } {
  const home = path.join(prefix!.root, `linux-${Math.random().toString(36).slice(2)}`);
  mkdirSync(home);
  try {
    const done = spawnSync(process.execPath, [BIN, ...args], {
      input: stdin,
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, 'c'), XDG_CACHE_HOME: path.join(home, 'k'), LANG: 'C.UTF-8' },
      encoding: 'utf8',
    });
    return { code: done.status, stdout: done.stdout };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Exit code, and stderr free of stack traces, in one assertion whose failure shows the whole run (with the case's own expect). */
function expectRun(run: WinRun, code: number, expect: ExpectStatic = globalExpect): void {
  expect({ code: run.code, stackInStderr: STACK.test(run.stderr) }, JSON.stringify(run, null, 1)).toEqual({ code, stackInStderr: false });
}

/** A loopback server serving the sandbox's data, and the paths it was asked for. */
async function loopback(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const handler = sandboxHandler();
  const url = await httpServer((request, response) => {
    seen.push(request.url ?? '');
    handler(request, response);
  });
  return { url, seen };
}
const baseUrl = prefix ? (await loopback()).url : '';

/** A 300-id batch, ids 1 to 4 over and over, with Windows line ends. */
const BATCH = Array.from({ length: 300 }, (_, i) => `${(i % 4) + 1}\r\n`).join('');

describe.skipIf(!ready)('the Windows build of Node under Wine', () => {
  for (const { node, started } of builds) {
    const label = `Node ${(JSON.parse(readFileSync(path.join(path.dirname(node), '..', 'package.json'), 'utf8')) as { version: string }).version}`;
    // Only builds that run under this Wine are installed (scripts/test-wine.sh: 20 and 22). Those of Node 24 and later
    // do not, under Debian's Wine 8: most starts stop with V8's "Fatal process out of memory: SegmentedTable::
    // InitializeTable", and some exit 0 having printed nothing, at random; they are left out, and CONTRIBUTING.md says so.
    if (started.code !== 0 || !/^v\d+\.\d+\.\d+$/.test(started.stdout)) {
      it(`${label} starts`, () => {
        globalExpect({ code: started.code, stdout: started.stdout }, started.stderr).toEqual({ code: 0, stdout: globalExpect.stringMatching(/^v\d+\.\d+\.\d+$/) });
      });
      continue;
    }

    describe(label, () => {
      const win = (folder: string, args: readonly string[], options: Parameters<typeof runWin>[4] = {}) => runWin(prefix!, node, folder, args, options);

      // The sandbox's reads in every format, two commands a case: each case has the time of a few Wine starts, with
      // room for a loaded machine (under four cases at once, seven starts in one case came near the limit).
      for (const [formats, commands] of [
        [
          'tab-separated and JSON',
          [
            ['academy', '1', '2', '--sandbox'],
            ['academy', '1', '2', '--sandbox', '--json'],
          ],
        ],
        [
          'ndjson and CSV',
          [
            ['academies', '--sandbox', '--format', 'ndjson'],
            ['academies', '--sandbox', '--format', 'csv'],
          ],
        ],
        [
          'a list and a record without an id',
          [
            ['family', '501', '--sandbox'],
            ['whoami', '--sandbox'],
          ],
        ],
      ] as const) {
        it.concurrent(`reads the sandbox as on Linux: ${formats}`, async ({ expect }) => {
          await inProfile(prefix!, async (profile) => {
            const variables = profileVariables(profile);
            for (const args of commands) {
              const run = await win(profile.folder, args, { variables });
              expectRun(run, 0, expect);
              expect(run.stdout, args.join(' ')).toBe(onLinux(args).stdout);
              // Off a terminal the table is tab-separated, one row a line.
              if (args.join(' ') === 'academy 1 2 --sandbox')
                expect(run.stdout.split('\n').map((line) => line.split('\t').slice(0, 2).join('|'))).toEqual(['id|name', '1|Alfama Jiu-Jitsu', expect.stringMatching(/^2\|/), '']);
            }
          });
        });
      }

      it.concurrent('keeps the config in %APPDATA%\\gymctl, the cache in %LOCALAPPDATA%\\gymctl, and nothing else in the profile', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const variables = profileVariables(profile);
          const where = await win(profile.folder, ['config', 'path'], { variables });
          expectRun(where, 0, expect);
          expect.soft(where.stdout).toBe(`${variables.APPDATA}\\gymctl\\config.json\n`);

          const login = await win(profile.folder, ['auth', 'login', '--with-key', '--base-url', baseUrl], { variables, stdin: `${DEMO_KEY}\r\n` });
          expectRun(login, 0, expect);
          const status = await win(profile.folder, ['auth', 'status'], { variables });
          expectRun(status, 0, expect);
          expect(status.stdout).toContain(baseUrl);
          for (const run of [login, status]) expect(run.stdout + run.stderr).not.toContain(DEMO_KEY);

          // A server of the case's own, to count what reaches it.
          const counted = await loopback();
          const atCounted = { ...variables, GYMCTL_BASE_URL: counted.url };
          for (const time of [1, 2]) {
            const before = counted.seen.length;
            const whoami = await win(profile.folder, ['whoami', '--json', '--cache', '1m'], { variables: atCounted });
            expectRun(whoami, 0, expect);
            expect(JSON.parse(whoami.stdout)).toEqual(JSON.parse(onLinux(['whoami', '--sandbox', '--json']).stdout));
            // The first asks the server; the second answers from the cache.
            expect(counted.seen, `run ${time}`).toHaveLength(before + (time === 1 ? 1 : 0));
          }

          const doctor = await win(profile.folder, ['doctor', '--offline'], { variables });
          expectRun(doctor, 0, expect);
          expect.soft(doctor.stdout).toContain(`${variables.APPDATA}\\gymctl\\config.json`);
          expect.soft(doctor.stdout).toContain(`${variables.LOCALAPPDATA}\\gymctl`);
          expect.soft(doctor.stdout + doctor.stderr).not.toMatch(/chmod|\bmode [0-7]{3,4}\b/);

          // Everything gymctl wrote is in its folders: the config's, the cache's and, beside it, the code cache's (Node's
          // compile cache, from Node 22.1 on; in the user's profile, which keeps others out). TEMP is left empty.
          const written = filesUnder(profile.userProfile).filter((file) => !/^AppData\/(Roaming\/gymctl|Local\/gymctl|Local\/gymctl-code-cache)\//.test(file));
          expect.soft(written).toEqual([]);
          expect.soft(filesUnder(path.join(profile.appData, 'gymctl'))).toContain('config.json');
          expect.soft(filesUnder(path.join(profile.localAppData, 'gymctl')).length).toBeGreaterThan(0);
          expect.soft(filesUnder(path.join(profile.localAppData, 'gymctl-code-cache')).length > 0, 'a compile cache').toBe(Number(started.stdout.slice(1).split('.')[0]) >= 22);
          expect(filesUnder(profile.temp)).toEqual([]);
        });
      });

      it.concurrent('uses the folders GYMCTL_CONFIG_DIR and XDG_CONFIG_HOME name over the Windows ones', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const variables = profileVariables(profile);
          const own = windowsPath(path.join(profile.folder, 'own'));
          const xdg = windowsPath(path.join(profile.folder, 'xdg'));
          const named = await win(profile.folder, ['config', 'path'], { variables: { ...variables, GYMCTL_CONFIG_DIR: own, XDG_CONFIG_HOME: xdg } });
          expectRun(named, 0, expect);
          expect(named.stdout).toBe(`${own}\\config.json\n`);
          const byXdg = await win(profile.folder, ['config', 'path'], { variables: { ...variables, XDG_CONFIG_HOME: xdg } });
          expectRun(byXdg, 0, expect);
          expect(byXdg.stdout).toBe(`${xdg}\\gymctl\\config.json\n`);
        });
      });

      it.concurrent('still reads a config an earlier gymctl left in ~\\.config\\gymctl', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const variables = profileVariables(profile);
          const legacy = path.join(profile.userProfile, '.config', 'gymctl');
          mkdirSync(legacy, { recursive: true });
          const login = await win(profile.folder, ['auth', 'login', '--with-key', '--base-url', baseUrl], {
            variables: { ...variables, GYMCTL_CONFIG_DIR: windowsPath(legacy) },
            stdin: DEMO_KEY,
          });
          expectRun(login, 0, expect);
          expect(existsSync(path.join(legacy, 'config.json'))).toBe(true);
          const status = await win(profile.folder, ['auth', 'status'], { variables });
          expectRun(status, 0, expect);
          expect(status.stdout).toContain(baseUrl);
          const whoami = await win(profile.folder, ['whoami', '--json'], { variables });
          expectRun(whoami, 0, expect);
          expect(JSON.parse(whoami.stdout)).toEqual(JSON.parse(onLinux(['whoami', '--sandbox', '--json']).stdout));
        });
      });

      it.concurrent('reads 300 ids with CRLF line ends from stdin', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const args = ['academy', '-', '--sandbox', '--format', 'ndjson'];
          const run = await win(profile.folder, args, { variables: profileVariables(profile), stdin: BATCH });
          expectRun(run, 0, expect);
          const ids = run.stdout
            .trimEnd()
            .split('\n')
            .map((line) => (JSON.parse(line) as { id: number }).id);
          expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => (i % 4) + 1));
          expect(run.stdout).toBe(onLinux(args, BATCH.replaceAll('\r\n', '\n')).stdout);
        });
      });

      // The clone's node_modules holds the keyring's binary for Linux alone, as an install on Windows with
      // --omit=optional holds none. (The Windows binary itself needs bcryptprimitives.dll, which Wine 8 lacks.)
      it.concurrent('says the keyring is missing in Windows terms, and stores nothing', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const variables = profileVariables(profile);
          const login = await win(profile.folder, ['auth', 'login', '--keyring', '--with-key', '--base-url', baseUrl], { variables, stdin: DEMO_KEY });
          expectRun(login, 4, expect);
          expect(login.stdout).toBe('');
          expect(login.stderr).toMatch(/^gymctl: the system keyring is not available/);
          expect(login.stderr).not.toContain(DEMO_KEY);
          expect(login.stderr).not.toMatch(/gnome-keyring|D-Bus|Secret Service|chmod/);
          expect.soft(login.stderr).toContain('Credential Manager');
          expect(filesUnder(profile.userProfile).filter((file) => file.endsWith('config.json'))).toEqual([]);
        });
      });

      it.concurrent('ends a 404 with exit 3 and one line on stderr', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          for (const args of [
            ['academy', '999', '--sandbox'],
            ['academy', '999'],
          ]) {
            const variables = { ...profileVariables(profile), ...(args.length === 2 ? { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: baseUrl } : {}) };
            const run = await win(profile.folder, args, { variables });
            expectRun(run, 3, expect);
            expect(run.stdout).toBe('');
            expect(run.stderr).toMatch(/^gymctl: academy 999: Resource not found \(HTTP 404, correlation ID [0-9a-f-]{36}\)\r?\n$/);
          }
        });
      });
    });
  }

  // Wine's own profile (C:\users\<user>), with nothing set: the folders a Windows user gets by default. One case
  // only, and on the first build, since every run in the prefix shares that profile.
  it('puts the config and cache under the default %APPDATA% and %LOCALAPPDATA%', async ({ expect }) => {
    const first = builds.find((build) => build.started.code === 0);
    expect(first, 'no Windows build of Node starts under this Wine').toBeDefined();
    const folder = makeProfile(prefix!).folder;
    try {
      const where = await runWin(prefix!, first!.node, folder, ['config', 'path']);
      expectRun(where, 0, expect);
      expect.soft(where.stdout).toBe(`${PROFILE}\\AppData\\Roaming\\gymctl\\config.json\n`);
      const login = await runWin(prefix!, first!.node, folder, ['auth', 'login', '--with-key', '--base-url', baseUrl], { stdin: DEMO_KEY });
      expectRun(login, 0, expect);
      const config = path.join(prefix!.profile, 'AppData', 'Roaming', 'gymctl', 'config.json');
      expect.soft(existsSync(config)).toBe(true);
      if (existsSync(config)) expect(readFileSync(config, 'utf8')).toContain(baseUrl);
      const whoami = await runWin(prefix!, first!.node, folder, ['whoami', '--cache', '1m']);
      expectRun(whoami, 0, expect);
      expect.soft(filesUnder(path.join(prefix!.profile, 'AppData', 'Local', 'gymctl')).length).toBeGreaterThan(0);
      expect.soft(filesUnder(path.join(prefix!.profile, '.config'))).toEqual([]);
      expect.soft(filesUnder(path.join(prefix!.profile, '.cache'))).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
      for (const left of ['AppData/Roaming/gymctl', 'AppData/Local/gymctl', '.config', '.cache']) rmSync(path.join(prefix!.profile, left), { recursive: true, force: true });
    }
  });
});
