/**
 * The Windows half of issue 43 under Wine (test/wine/wine.ts): the Windows
 * build of Node runs the npm build from cmd.exe, stdin and stdout in files,
 * as a Windows user's `gymctl … > file` and `gymctl … < file` are.
 * `--format csv --bom` writes EF BB BF and then the CSV that Linux writes
 * without it; an ids file in UTF-16LE with its byte-order mark, as Windows
 * PowerShell 5.1's `>` writes one, gives the same output as its UTF-8 copy.
 * `npm run test:wine` runs this file with smoke.test.ts, in a prefix of its
 * own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, type ExpectStatic, expect as globalExpect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { inProfile, makePrefix, NODES, type Prefix, probe, profileVariables, removePrefix, runWin, type WinRun, wineReady } from './wine.js';

const ready = wineReady();
const prefix: Prefix | undefined = ready ? makePrefix() : undefined;
afterAll(() => {
  if (prefix) removePrefix(prefix);
});

/** Each node.exe and what it said when started with `-p process.version`. */
const builds = prefix ? NODES.map((node) => ({ node, started: probe(prefix, node) })) : [];

/** A stack trace, or Node's own crash report, where only gymctl's one-line messages belong. */
const STACK = /^\s+at .+[(:]\d+|node:internal|\bError: .*\n\s+at |Unhandled exception|Fatal process/m;

/** Exit code, and stderr free of stack traces, in one assertion whose failure shows the whole run. */
function expectRun(run: WinRun, code: number, expect: ExpectStatic): void {
  expect({ code: run.code, stackInStderr: STACK.test(run.stderr) }, JSON.stringify(run, null, 1)).toEqual({ code, stackInStderr: false });
}

/** The same command with this machine's Node on Linux. */
function onLinux(args: readonly string[], stdin: string | Uint8Array = ''): { code: number | null; stdout: string } {
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

/** An ids file as a Windows user has one: CRLF line ends, a comment with an accent, an id twice. */
const IDS = '1\r\n2\r\n# Rua dos Remédios\r\n4\r\n1\r\n';
const UTF16LE_BOM = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(IDS, 'utf16le')]);

describe.skipIf(!ready)('CSV with --bom, and UTF-16 ids, with the Windows build of Node under Wine', () => {
  for (const { node, started } of builds) {
    const label = `Node ${(JSON.parse(readFileSync(path.join(path.dirname(node), '..', 'package.json'), 'utf8')) as { version: string }).version}`;
    // As in smoke.test.ts: a build that does not start under this Wine is reported once, and its cases are not run.
    if (started.code !== 0 || !/^v\d+\.\d+\.\d+$/.test(started.stdout)) {
      it(`${label} starts`, () => {
        globalExpect({ code: started.code, stdout: started.stdout }, started.stderr).toEqual({ code: 0, stdout: globalExpect.stringMatching(/^v\d+\.\d+\.\d+$/) });
      });
      continue;
    }

    describe(label, () => {
      it.concurrent('--format csv --bom writes EF BB BF, then the CSV Linux writes without it', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const variables = profileVariables(profile);
          for (const args of [
            ['academies', '--sandbox', '--format', 'csv'],
            ['academy', '1', '2', '999', '3', '--sandbox', '--format', 'csv'],
          ]) {
            const run = await runWin(prefix!, node, profile.folder, [...args, '--bom'], { variables });
            const linux = onLinux(args);
            expectRun(run, linux.code ?? -1, expect);
            // The file holds the mark's bytes, EF BB BF, which read as UTF-8 are U+FEFF: once, first.
            expect(run.stdout.startsWith('\ufeff'), args.join(' ')).toBe(true);
            expect(run.stdout.slice(1), args.join(' ')).toBe(linux.stdout);
            expect(run.stdout.slice(1)).not.toContain('\ufeff');
            expect(run.stdout).toContain('Rua dos Remédios 12');
          }
          // A failure writes nothing to the file, no lone mark.
          const failed = await runWin(prefix!, node, profile.folder, ['academy', '999', '--sandbox', '--format', 'csv', '--bom'], { variables });
          expectRun(failed, 3, expect);
          expect(failed.stdout).toBe('');
        });
      });

      it.concurrent('an ids file in UTF-16LE with its byte-order mark gives the same output as its UTF-8 copy', async ({ expect }) => {
        await inProfile(prefix!, async (profile) => {
          const variables = profileVariables(profile);
          for (const format of ['csv', 'ndjson']) {
            const args = ['academy', '-', '--sandbox', '--format', format];
            const copy = await runWin(prefix!, node, profile.folder, args, { variables, stdin: IDS });
            expectRun(copy, 0, expect);
            const utf16 = await runWin(prefix!, node, profile.folder, args, { variables, stdin: UTF16LE_BOM });
            expectRun(utf16, 0, expect);
            expect(utf16.stdout, format).toBe(copy.stdout);
            expect(utf16.stdout, format).toBe(onLinux(args, IDS).stdout);
          }
        });
      });
    });
  }
});
