/**
 * How the build scripts call npm (scripts/npm.mjs), so that `npm run
 * build:sea` from a clone in a folder with a space in its name keeps its
 * `--prefix` whole. On Windows npm is npm.cmd, run by cmd.exe (`cmd /d /s
 * /c "…"`), which hands the line on to node.exe as %*: the line is checked
 * here with the Microsoft C rules node.exe reads it by (cmd.exe itself
 * runs under Wine, test/wine/windows-desk.test.ts). On Linux a stand-in
 * npm on PATH, in a folder with a space, records the arguments it got.
 */
import type { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const npm = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'npm.mjs')).href)) as {
  cmdArgument(arg: string): string;
  npmCommand(args: string[], platform?: NodeJS.Platform): { command: string; args: string[]; shell: boolean };
  runNpm(args: string[], options?: Parameters<typeof spawnSync>[2]): ReturnType<typeof spawnSync>;
};

/**
 * The arguments a Windows program reads from its command line (the Microsoft C runtime's rules, as
 * CommandLineToArgvW): spaces split outside quotes; 2n backslashes before a quote are n and the quote opens or
 * closes; 2n+1 are n and a quote; other backslashes are themselves.
 */
function windowsArgv(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let inQuotes = false;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\') {
      let n = 0;
      while (line[i] === '\\') {
        n++;
        i++;
      }
      if (line[i] === '"') {
        current += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) current += '"';
        else inQuotes = !inQuotes;
      } else {
        current += '\\'.repeat(n);
        i--;
      }
      started = true;
    } else if (c === '"') {
      inQuotes = !inQuotes;
      started = true;
    } else if ((c === ' ' || c === '\t') && !inQuotes) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) out.push(current);
  return out;
}

/** What cmd.exe itself would read as an operator or expand on the line, outside double quotes. */
const cmdSpecialsOutsideQuotes = (line: string) => line.replace(/"[^"]*"/g, '').match(/[&|<>^()%!]/g) ?? [];

describe('npm on Windows, through cmd.exe', () => {
  it('quotes what needs it, and reads back as the very arguments: a prefix with spaces, & and ( ), a trailing backslash', () => {
    for (const prefix of ['C:\\Users\\Rita Silva\\gymctl\\.sea-node', 'D:\\R&D (2026)\\gym ctl\\.sea-node', 'C:\\a b\\', 'C:\\plain\\.sea-node']) {
      const args = ['install', '--no-save', '--no-package-lock', '--prefix', prefix, 'node@26'];
      const { command, args: rest, shell } = npm.npmCommand(args, 'win32');
      expect({ rest, shell }).toEqual({ rest: [], shell: true });
      expect(windowsArgv(command), prefix).toEqual(['npm.cmd', ...args]);
      expect(cmdSpecialsOutsideQuotes(command), prefix).toEqual([]);
    }
    expect(npm.npmCommand(['install', '--prefix', 'C:\\Users\\Rita Silva\\.sea-node'], 'win32').command).toBe('npm.cmd install --prefix "C:\\Users\\Rita Silva\\.sea-node"');
  });

  it('refuses what cmd.exe would change inside quotes (a %) or cannot carry (a ")', () => {
    expect(() => npm.cmdArgument('C:\\100%\\x')).toThrow('cannot pass "C:\\\\100%\\\\x" to npm.cmd through cmd.exe: it holds a %, a " or a line break');
    expect(() => npm.cmdArgument('a"b')).toThrow('cannot pass');
  });

  it('elsewhere, npm with its arguments as they are, no shell', () => {
    expect(npm.npmCommand(['install', '--prefix', '/home/rita/my gym/.sea-node'], 'linux')).toEqual({
      command: 'npm',
      args: ['install', '--prefix', '/home/rita/my gym/.sea-node'],
      shell: false,
    });
  });
});

describe('npm on this system, from a folder with a space in its name', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'gymctl npm '));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it.runIf(process.platform !== 'win32')('a stand-in npm on PATH gets the very arguments', () => {
    const bin = path.join(folder, 'stand-in bin');
    mkdirSync(bin);
    const recorded = path.join(folder, 'args.json');
    writeFileSync(path.join(bin, 'npm'), `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(recorded)}, JSON.stringify(process.argv.slice(2)));\n`);
    chmodSync(path.join(bin, 'npm'), 0o755);
    const args = ['install', '--no-save', '--no-package-lock', '--prefix', path.join(folder, 'my clone', '.sea-node'), 'node@26'];
    const done = npm.runNpm(args, { cwd: folder, env: { PATH: `${bin}${path.delimiter}${process.env.PATH}` }, encoding: 'utf8' });
    expect(done.status, String(done.stderr)).toBe(0);
    expect(JSON.parse(readFileSync(recorded, 'utf8'))).toEqual(args);
  });
});
