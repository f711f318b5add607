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
import type { FailureWithFix } from '../../src/failures.js';
import { keyringError } from '../../src/keyring/client.js';
import { keyringRoots, loadEntry, missingReason, NativeModuleMissing } from '../../src/keyring/native.js';
import { KEYRING_INSTALL, KEYRING_MISSING } from '../../src/keyring/protocol.js';
import { ROOT } from '../helpers/cli.js';

const notFound = (message: string, code = 'MODULE_NOT_FOUND') => Object.assign(new Error(message), { code });
/** What Windows says of a DLL that a binary needs and that is not there, with the binary's path on its second line. */
const windowsDll = 'The specified module could not be found.\r\n\\\\?\\C:\\gymctl\\node_modules\\@napi-rs\\keyring-win32-x64-msvc\\keyring.win32-x64-msvc.node';

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
    expect(missingReason(dlopen, 'linux-x64')).toBe('@napi-rs/keyring is installed but could not be loaded: libc.musl-x86_64.so.1: cannot open shared object file');
    // A module not found that is some other module is not "not installed".
    expect(missingReason(notFound("Cannot find module './keyring.linux-x64-gnu.node'"))).toMatch(/^@napi-rs\/keyring is installed but could not be loaded: /);
  });

  /** What napi-rs throws once every place it looked failed: each one's message, chained, the last place outermost. */
  const napiError = (...tried: string[]) => {
    const chain = tried.reduce<Error | undefined>((previous, message) => Object.assign(new Error(message), { cause: previous }), undefined);
    return Object.assign(new Error('Cannot find native binding. npm has a bug related to optional dependencies.'), { cause: chain });
  };
  const caught = (error: unknown) => {
    try {
      loadEntry(() => {
        throw error;
      });
    } catch (thrown) {
      expect(thrown).toBeInstanceOf(NativeModuleMissing);
      return (thrown as Error).message;
    }
    throw new Error('loadEntry did not throw');
  };

  it("installed but failing to load is told apart from not installed, naming napi-rs's cause", () => {
    // Every place napi-rs looked had nothing: the platform's binary is not installed.
    expect(missingReason(napiError("Cannot find module './keyring.win32-x64-msvc.node'", "Cannot find module '@napi-rs/keyring-win32-x64-msvc'"), 'win32-x64')).toBe(
      '@napi-rs/keyring has no native binary installed for win32-x64',
    );
    // The binary is there and Windows could not load a DLL it needs: the cause, and the Visual C++ Redistributable.
    const dll = caught(napiError("Cannot find module './keyring.win32-x64-msvc.node'", windowsDll));
    expect(dll).toBe(
      '@napi-rs/keyring is installed but could not be loaded: The specified module could not be found. (a DLL it needs is missing: install the Microsoft Visual C++ Redistributable)',
    );
    // Another cause is named as it is, with no word of a DLL.
    const other = caught(napiError("Cannot find module './keyring.win32-x64-msvc.node'", '%1 is not a valid Win32 application.\r\n\\\\?\\C:\\x.node'));
    expect(other).toBe('@napi-rs/keyring is installed but could not be loaded: %1 is not a valid Win32 application.');
    // Thrown by Node itself, without napi-rs's chain: ERR_DLOPEN_FAILED on Windows is a DLL, elsewhere it is said as it is.
    const dlopen = Object.assign(new Error('The operating system cannot run %1.'), { code: 'ERR_DLOPEN_FAILED' });
    expect(missingReason(dlopen, 'win32-arm64')).toContain('Visual C++ Redistributable');
    expect(missingReason(dlopen, 'linux-x64')).not.toContain('Visual C++');
  });

  it('the message and its ways on: installing again for a module not installed, fixing the cause for one that does not load', () => {
    const wayOn = (reason: string) => {
      const failure = keyringError('missing', reason, { op: 'get', account: 'default' }, 'win32') as FailureWithFix;
      return { message: failure.message, fix: failure.fix.join('\n') };
    };
    const absent = wayOn(caught(notFound("Cannot find module '@napi-rs/keyring'")));
    expect(absent.message).toBe(`${KEYRING_MISSING} (@napi-rs/keyring is not installed)`);
    expect(absent.fix).toContain(KEYRING_INSTALL);
    const broken = wayOn(caught(napiError(windowsDll)));
    expect(broken.message).toContain('is installed but could not be loaded: The specified module could not be found.');
    expect(broken.message).toContain('Visual C++ Redistributable');
    expect(broken.fix).toContain('fix what stops it loading');
    expect(broken.fix).not.toContain(KEYRING_INSTALL);
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
    expect(() => loadEntry(() => ({}))).toThrow('@napi-rs/keyring is installed but could not be loaded: it has no Entry class');
  });
});

describe('the built keyring agent, without the module', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** dist/keyring-agent.cjs alone in a temporary folder, with `packages` from node_modules beside it, and made-up packages whose main is `made`'s source. */
  const agentIn = (packages: string[], made: Record<string, string> = {}) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gymctl-agent-'));
    dirs.push(dir);
    cpSync(path.join(ROOT, 'dist', 'keyring-agent.cjs'), path.join(dir, 'keyring-agent.cjs'));
    for (const name of packages) cpSync(path.join(ROOT, 'node_modules', name), path.join(dir, 'node_modules', name), { recursive: true });
    for (const [name, source] of Object.entries(made)) {
      const folder = path.join(dir, 'node_modules', ...name.split('/'));
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name, version: '0.0.0', main: 'index.js' }));
      writeFileSync(path.join(folder, 'index.js'), source);
    }
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

  it("with the platform's binary installed but failing to load (Windows' missing DLL, injected): napi-rs's cause, never \"not installed\"", () => {
    const triple = readdirSync(path.join(ROOT, 'node_modules', '@napi-rs')).find((name) => name.startsWith('keyring-'))!;
    const failing = `throw Object.assign(new Error(${JSON.stringify(windowsDll)}), { code: 'ERR_DLOPEN_FAILED' });`;
    const broken = agentIn(['@napi-rs/keyring'], { [`@napi-rs/${triple}`]: failing });
    expect(broken.answer).toEqual({
      ok: false,
      trouble: 'missing',
      message:
        '@napi-rs/keyring is installed but could not be loaded: The specified module could not be found. (a DLL it needs is missing: install the Microsoft Visual C++ Redistributable)',
    });
    expect(broken.stderr).toBe('');
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
