/**
 * gymctl installed without its optional keyring module (`npm install
 * --omit=optional`, as for a library user who wants no native code): the
 * library imports and works, commands that need no keyring work, and every
 * keyring path says that the keyring is not available on this install.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { emptyApp, npmInstall, packGymctl } from '../helpers/package.js';

const MISSING = 'gymctl: the system keyring is not available on this install (@napi-rs/keyring is not installed)';

let work: string;
let app: string;
let config: string;
let sandbox: Sandbox;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the app folder, asynchronously: the sandbox answers from this process meanwhile. */
function run(file: string, args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  const { GYMCTL_API_KEY: _key, GYMCTL_PROFILE: _profile, GYMCTL_BASE_URL: _url, ...env } = process.env;
  return new Promise((resolve) => {
    const child = execFile(file, args, { cwd: app, encoding: 'utf8', env: { ...env, GYMCTL_CONFIG_DIR: config, ...options.env } }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
    child.stdin!.end(options.stdin ?? '');
  });
}
const gymctl = (args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) => run(path.join(app, 'node_modules', '.bin', 'gymctl'), args, options);

/** A profile that keeps its key in the keyring, pointed at the sandbox. */
const keyringProfile = () =>
  writeFileSync(path.join(config, 'config.json'), JSON.stringify({ profiles: { default: { keyStore: 'keyring', baseUrl: sandbox.url } } }), { mode: 0o600 });

/** The failure of a keyring path: exit 4, the one message and its fix, no stack trace, nothing on stdout. */
function expectMissing(result: Ran): void {
  expect(result.code, result.stderr).toBe(4);
  expect(result.stdout).toBe('');
  expect(result.stderr.split('\n')[0]).toMatch(/^gymctl: the system keyring is not available on this install \(@napi-rs\/keyring is not installed\)/);
  expect(result.stderr).toContain('install gymctl with its optional dependencies (without --omit=optional)');
  expect(result.stderr).toContain('--no-keyring');
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toMatch(/MODULE_NOT_FOUND|Cannot find|keyring-agent/);
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'gymctl-no-keyring-'));
  const { tarball } = packGymctl(work);
  app = emptyApp(path.join(work, 'app'));
  npmInstall(['--omit=optional', tarball], app);
  sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
}, 240_000);
afterAll(async () => {
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  config = path.join(work, `config-${Math.random().toString(36).slice(2)}`);
  mkdirSync(config, { mode: 0o700 });
});

describe('gymctl installed with --omit=optional', () => {
  it('has no keyring module: neither @napi-rs/keyring nor a platform binary', () => {
    const modules = path.join(app, 'node_modules');
    expect(existsSync(path.join(modules, '@napi-rs'))).toBe(false);
    expect(readdirSync(modules).filter((name) => !name.startsWith('.'))).toEqual(expect.arrayContaining(['gymctl', 'undici', 'zod']));
  });

  it('the library imports and works against a loopback server, never asking for the keyring module', async () => {
    const script = `import { createClient, GymApiError } from 'gymctl';
const client = createClient({ baseUrl: ${JSON.stringify(sandbox.url)}, apiKey: ${JSON.stringify(DEMO_KEY)} });
console.log((await client.getAcademy(1)).name);
console.log(await client.getAcademy(999999).catch((error) => error instanceof GymApiError && error.kind));
await client.close();`;
    writeFileSync(path.join(app, 'use.mjs'), script);
    const result = await run(process.execPath, ['use.mjs']);
    expect(result).toEqual({ code: 0, stdout: 'Alfama Jiu-Jitsu\nnot_found\n', stderr: '' });
    const required = await run(process.execPath, ['-e', "const { createClient } = require('gymctl'); console.log(typeof createClient);"]);
    expect(required).toEqual({ code: 0, stdout: 'function\n', stderr: '' });
  });

  it('commands that need no keyring work: the sandbox, a key from GYMCTL_API_KEY, a login that keeps the key in the file', async () => {
    const academy = await gymctl(['academy', '1', '--sandbox', '--jq', '.name']);
    expect(academy, academy.stderr).toEqual({ code: 0, stdout: 'Alfama Jiu-Jitsu\n', stderr: '' });
    keyringProfile();
    const fromEnv = await gymctl(['whoami', '--jq', '.id'], { env: { GYMCTL_API_KEY: DEMO_KEY } });
    expect(fromEnv).toEqual({ code: 0, stdout: '101\n', stderr: '' });
    rmSync(path.join(config, 'config.json'));
    const login = await gymctl(['auth', 'login', '--with-key', '--no-keyring', '--base-url', sandbox.url], { stdin: DEMO_KEY });
    expect(login.code, login.stderr).toBe(0);
    expect((await gymctl(['whoami', '--jq', '.id'])).stdout).toBe('101\n');
  });

  it('auth login --keyring fails before the key is read, stores nothing, and says what to do', async () => {
    const result = await gymctl(['auth', 'login', '--keyring', '--with-key', '--base-url', sandbox.url], { stdin: DEMO_KEY });
    expectMissing(result);
    expect(result.stderr).toContain(`${MISSING}; the key was not asked for, and nothing was stored\n`);
    expect(result.stderr).toContain(`gymctl auth login --with-key --no-keyring --base-url ${sandbox.url}\n`);
    expect(existsSync(path.join(config, 'config.json'))).toBe(false);
  });

  it('a profile whose key is in the keyring: whoami, auth status and auth logout fail with the message; doctor says it on its key row', async () => {
    keyringProfile();
    for (const args of [['whoami'], ['auth', 'status'], ['auth', 'logout']]) {
      const result = await gymctl(args);
      expectMissing(result);
      expect(result.stderr, args.join(' ')).toContain('GYMCTL_API_KEY');
    }
    const doctor = await gymctl(['doctor', '--offline', '--json']);
    expect(doctor.code).toBe(4);
    const rows = JSON.parse(doctor.stdout) as Array<{ check: string; status: string; detail: string; fix: string | null }>;
    expect(rows.find((row) => row.check === 'key')).toEqual({
      check: 'key',
      status: 'fail',
      detail: MISSING.slice('gymctl: '.length),
      fix: 'install gymctl with its optional dependencies (without --omit=optional), or gymctl auth login --no-keyring',
    });
  });

  it('config set key-store keyring is refused with the message; a profile set to the keyring can be set back, its key left where it is', async () => {
    const refused = await gymctl(['config', 'set', 'key-store', 'keyring']);
    expectMissing(refused);
    expect(existsSync(path.join(config, 'config.json'))).toBe(false);
    keyringProfile();
    const back = await gymctl(['config', 'unset', 'key-store']);
    expect({ code: back.code, stdout: back.stdout }).toEqual({ code: 0, stdout: '' });
    expect(back.stderr).toBe(`${MISSING}: a key of profile "default" kept in the system keyring stays there, unused\n`);
    expect((await gymctl(['config', 'get', 'key-store'])).stdout).toBe('config\n');
  });
});
