/**
 * The keyring's native module is optional: what the keyring agent answers
 * when it cannot load it (not installed, or no binary for the platform),
 * from the mapping itself and from the built agent run without it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyringRoots, loadEntry, missingReason, NativeModuleMissing } from '../../src/keyring/native.js';
import { ROOT } from '../helpers/cli.js';

const notFound = (message: string, code = 'MODULE_NOT_FOUND') => Object.assign(new Error(message), { code });

describe('why the native keyring module did not load', () => {
  it('the package absent (--omit=optional), required or imported', () => {
    expect(missingReason(notFound("Cannot find module '@napi-rs/keyring'\nRequire stack:\n- /x/keyring-agent.cjs"))).toBe('@napi-rs/keyring is not installed');
    expect(missingReason(notFound("Cannot find package '@napi-rs/keyring' imported from /x/a.js", 'ERR_MODULE_NOT_FOUND'))).toBe('@napi-rs/keyring is not installed');
  });

  it("the package there, its platform's binary not: napi-rs's own words become the platform's name", () => {
    const napi = new Error('Cannot find native binding. npm has a bug related to optional dependencies (https://github.com/npm/cli/issues/4828).');
    expect(missingReason(napi, 'linux-riscv64')).toBe('@napi-rs/keyring has no native binary installed for linux-riscv64');
    expect(missingReason(new Error('Failed to load native binding'), 'sunos-x64')).toBe('@napi-rs/keyring has no native binary installed for sunos-x64');
  });

  it('anything else that stops it loading (a binary that does not load) is said in its first line, never as a stack', () => {
    const dlopen = Object.assign(new Error('libc.musl-x86_64.so.1: cannot open shared object file\n    at Module._extensions..node'), { code: 'ERR_DLOPEN_FAILED' });
    expect(missingReason(dlopen)).toBe('@napi-rs/keyring could not be loaded: libc.musl-x86_64.so.1: cannot open shared object file');
    // A module not found that is some other module is not "not installed".
    expect(missingReason(notFound("Cannot find module './keyring.linux-x64-gnu.node'"))).toMatch(/^@napi-rs\/keyring could not be loaded: /);
  });

  it('loadEntry hands back the Entry class, or throws NativeModuleMissing with the reason', () => {
    class Entry {}
    expect(loadEntry((id) => (id === '@napi-rs/keyring' ? { Entry } : undefined))).toBe(Entry);
    const missing = (() => {
      try {
        loadEntry(() => {
          throw notFound("Cannot find module '@napi-rs/keyring'");
        });
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(NativeModuleMissing);
    expect((missing as Error).message).toBe('@napi-rs/keyring is not installed');
    expect(() => loadEntry(() => ({}))).toThrow('@napi-rs/keyring could not be loaded: it has no Entry class');
  });
});

describe('the built keyring agent, without the module', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** dist/keyring-agent.cjs alone in a temporary folder, with `packages` from node_modules beside it. */
  const agentIn = (packages: string[]) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gymctl-agent-'));
    dirs.push(dir);
    cpSync(path.join(ROOT, 'dist', 'keyring-agent.cjs'), path.join(dir, 'keyring-agent.cjs'));
    for (const name of packages) cpSync(path.join(ROOT, 'node_modules', name), path.join(dir, 'node_modules', name), { recursive: true });
    const result = spawnSync(process.execPath, [path.join(dir, 'keyring-agent.cjs')], { input: JSON.stringify({ op: 'get', account: 'default' }), encoding: 'utf8' });
    return { ...result, answer: JSON.parse(result.stdout) as unknown };
  };

  it('answers "missing" with no module at all, and with the module but no binary for the platform; nothing on stderr', () => {
    const none = agentIn([]);
    expect(none.answer).toEqual({ ok: false, trouble: 'missing', message: '@napi-rs/keyring is not installed' });
    expect(none.stderr).toBe('');
    const noBinary = agentIn(['@napi-rs/keyring']);
    expect(noBinary.answer).toEqual({ ok: false, trouble: 'missing', message: `@napi-rs/keyring has no native binary installed for ${process.platform}-${process.arch}` });
    expect(noBinary.stderr).toBe('');
  });
});

describe('where the agent takes the module from', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("the package's own node_modules: the outermost above it, else the ones beside the agent and its folder", () => {
    const posix = path.posix;
    expect(keyringRoots('/p/node_modules/gymctl/dist/keyring-agent.cjs', posix)).toEqual(['/p/node_modules']);
    // pnpm's store is inside the project's node_modules too.
    expect(keyringRoots('/p/node_modules/.pnpm/gymctl@1/node_modules/gymctl/dist/keyring-agent.cjs', posix)).toEqual(['/p/node_modules']);
    expect(keyringRoots('/home/u/gymctl/dist/keyring-agent.cjs', posix)).toEqual(['/home/u/gymctl/dist/node_modules', '/home/u/gymctl/node_modules']);
    expect(keyringRoots('C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules\\gymctl\\dist\\keyring-agent.cjs', path.win32)).toEqual([
      'C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules',
    ]);
  });

  it('never a module planted further up (C:\\node_modules, a parent folder), which does not even run: "not installed"', () => {
    const top = mkdtempSync(path.join(tmpdir(), 'gymctl-agent-'));
    dirs.push(top);
    const marker = path.join(top, 'ran');
    // What Node's own search would find, two folders above the agent: a keyring module, and a platform package.
    const plant = (name: string) => {
      const dir = path.join(top, 'node_modules', ...name.split('/'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, main: 'index.js' }));
      const fake = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '');class Entry{getPassword(){return 'planted'}};module.exports={Entry};`;
      writeFileSync(path.join(dir, 'index.js'), fake);
    };
    plant('@napi-rs/keyring');
    const agent = path.join(top, 'a', 'b', 'keyring-agent.cjs');
    mkdirSync(path.dirname(agent), { recursive: true });
    cpSync(path.join(ROOT, 'dist', 'keyring-agent.cjs'), agent);
    const run = () => JSON.parse(spawnSync(process.execPath, [agent], { input: JSON.stringify({ op: 'get', account: 'default' }), encoding: 'utf8' }).stdout) as unknown;
    expect(run()).toEqual({ ok: false, trouble: 'missing', message: '@napi-rs/keyring is not installed' });
    // The real package beside the agent, its platform binary only planted above: "no binary", and the plant never runs.
    cpSync(path.join(ROOT, 'node_modules', '@napi-rs', 'keyring'), path.join(top, 'a', 'b', 'node_modules', '@napi-rs', 'keyring'), { recursive: true });
    const triples = readdirSync(path.join(ROOT, 'node_modules', '@napi-rs')).filter((name) => name.startsWith('keyring-'));
    for (const triple of triples) plant(`@napi-rs/${triple}`);
    expect(triples.length).toBeGreaterThan(0);
    expect(run()).toEqual({ ok: false, trouble: 'missing', message: `@napi-rs/keyring has no native binary installed for ${process.platform}-${process.arch}` });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the lock file holds the module's builds for every platform it ships", () => {
  // `npm ci` on Windows installs only what the lock lists: the Credential Manager needs the win32 builds recorded, whatever
  // platform the lock was written on.
  it('win32-x64-msvc and win32-arm64-msvc, for Windows only, at the version of @napi-rs/keyring', () => {
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string; optional?: boolean; os?: string[]; cpu?: string[]; optionalDependencies?: Record<string, string> }>;
    };
    const keyring = lock.packages['node_modules/@napi-rs/keyring']!;
    for (const [name, cpu] of [
      ['@napi-rs/keyring-win32-x64-msvc', 'x64'],
      ['@napi-rs/keyring-win32-arm64-msvc', 'arm64'],
      ['@napi-rs/keyring-darwin-arm64', 'arm64'],
      ['@napi-rs/keyring-linux-x64-gnu', 'x64'],
    ] as const) {
      expect(keyring.optionalDependencies?.[name]).toBe(keyring.version);
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ version: keyring.version, optional: true, cpu: [cpu] });
    }
    expect(lock.packages['node_modules/@napi-rs/keyring-win32-x64-msvc']!.os).toEqual(['win32']);
    expect(lock.packages['node_modules/@napi-rs/keyring-win32-arm64-msvc']!.os).toEqual(['win32']);
  });
});
