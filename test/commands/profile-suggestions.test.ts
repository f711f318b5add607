/**
 * Every command a message names keeps the profile in use: typed as shown, it acts on that profile, whether it came
 * from --profile or GYMCTL_PROFILE; the profile a command without --profile uses (default-profile, else `default`)
 * is not named.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentProcess } from '../../src/keyring/client.js';
import type { KeyringAnswer } from '../../src/keyring/protocol.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { closedPort } from '../helpers/servers.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const gymctl = (args: string[], options: GymctlOptions = {}) => inProcess(args, { configDir: world.config.dir, ...options });

function writeConfig(file: object): void {
  mkdirSync(world.config.dir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(world.config.dir, 'config.json'), JSON.stringify(file), { mode: 0o600 });
}

interface Check {
  check: string;
  fix: string | null;
}
async function doctorFix(args: string[], env: Record<string, string | undefined> = {}, check = 'key'): Promise<string | null | undefined> {
  const result = await gymctl(['doctor', '--json', ...args], { env });
  return (JSON.parse(result.stdout) as Check[]).find((row) => row.check === check)?.fix;
}

/** The keyring agent, answering every request so (through the one seam gymctl starts a process by). */
const realSpawn = agentProcess.spawn;
afterEach(() => {
  agentProcess.spawn = realSpawn;
});
function keyringAnswers(answer: KeyringAnswer): void {
  agentProcess.spawn = (_command, _args, options) =>
    spawn(process.execPath, ['-e', `process.stdin.resume(); process.stdin.on("end", () => process.stdout.write(${JSON.stringify(JSON.stringify(answer))}))`], options);
}

describe('after auth logout --profile crlf', () => {
  async function loggedOut(): Promise<void> {
    const login = await gymctl(['auth', 'login', '--with-key', '--profile', 'crlf', '--base-url', world.sandbox.url], { stdin: `${DEMO_KEY}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect((await gymctl(['auth', 'logout', '--profile', 'crlf'])).code).toBe(0);
  }

  it('auth status and doctor name the login of that profile, from --profile or GYMCTL_PROFILE', async () => {
    await loggedOut();
    const status = await gymctl(['auth', 'status', '--profile', 'crlf']);
    expect(status.code).toBe(4);
    expect(status.stderr).toContain('no API key for profile "crlf": run `gymctl auth login --profile crlf` or set GYMCTL_API_KEY');
    // GYMCTL_PROFILE may be set for one run only: the login names the profile as well.
    const fromEnv = await gymctl(['whoami'], { env: { GYMCTL_PROFILE: 'crlf' } });
    expect(fromEnv.stderr).toContain('run `gymctl auth login --profile crlf` or');
    expect(await doctorFix(['--profile', 'crlf'])).toBe('gymctl auth login --profile crlf, or set GYMCTL_API_KEY');
  });

  it('the profile a bare command uses is not named; another one is, `default` too', async () => {
    await loggedOut();
    expect((await gymctl(['config', 'set', 'default-profile', 'crlf'])).code).toBe(0);
    expect((await gymctl(['auth', 'status'])).stderr).toContain('run `gymctl auth login` or');
    expect((await gymctl(['auth', 'status', '--profile', 'crlf'])).stderr).toContain('run `gymctl auth login` or');
    // Without --profile default, the login would store the key for crlf.
    const other = await gymctl(['whoami', '--profile', 'default'], { env: { GYMCTL_BASE_URL: world.sandbox.url } });
    expect(other.stderr).toContain('run `gymctl auth login --profile default` or');
  });
});

describe('a profile with no base URL', () => {
  it('whoami and doctor name `gymctl config set base-url URL --profile NAME`', async () => {
    writeConfig({ profiles: { crlf: { apiKey: DEMO_KEY } } });
    const whoami = await gymctl(['whoami', '--profile', 'crlf']);
    expect(whoami.code).toBe(2);
    expect(whoami.stderr).toContain('run `gymctl config set base-url URL --profile crlf`');
    expect(await doctorFix(['--profile', 'crlf'], {}, 'base URL')).toBe('pass --base-url, set GYMCTL_BASE_URL, or gymctl config set base-url URL --profile crlf');
  });
});

describe('a profile that keeps its key in the system keyring', () => {
  it('with no key there: whoami and doctor name `gymctl auth login --keyring --profile NAME`', async () => {
    writeConfig({ profiles: { crlf: { keyStore: 'keyring', baseUrl: world.sandbox.url } } });
    keyringAnswers({ ok: true, value: null });
    const whoami = await gymctl(['whoami', '--profile', 'crlf']);
    expect(whoami.code).toBe(4);
    expect(whoami.stderr).toContain('run `gymctl auth login --keyring --profile crlf` (or --no-keyring');
    expect(await doctorFix(['--profile', 'crlf'])).toBe('gymctl auth login --keyring --profile crlf');
  });

  it('with a keyring module installed that does not load: doctor says to fix that, not to install it', async () => {
    writeConfig({ profiles: { crlf: { keyStore: 'keyring', baseUrl: world.sandbox.url } } });
    keyringAnswers({ ok: false, trouble: 'missing', message: '@napi-rs/keyring is installed but could not be loaded: libsecret-1.so.0: cannot open shared object file' });
    const fix = await doctorFix(['--profile', 'crlf']);
    expect(fix).toBe('fix what stops it loading (said above), or reinstall gymctl, or gymctl auth login --no-keyring --profile crlf');
    keyringAnswers({ ok: false, trouble: 'missing', message: '@napi-rs/keyring is not installed' });
    expect(await doctorFix(['--profile', 'crlf'])).toBe(
      'install gymctl with its optional dependencies (without --omit=optional), or gymctl auth login --no-keyring --profile crlf',
    );
  });
});

describe('config set key-store', () => {
  it('with the key in the other place: the login and logout it names are the profile’s', async () => {
    writeConfig({ profiles: { crlf: { apiKey: DEMO_KEY, baseUrl: world.sandbox.url } } });
    keyringAnswers({ ok: true, value: null });
    const result = await gymctl(['config', 'set', 'key-store', 'keyring', '--profile', 'crlf']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('move it with `gymctl auth login --keyring --profile crlf`, or forget it first with `gymctl auth logout --profile crlf`');
  });
});

describe('doctor, for a profile named', () => {
  it('a refused key, and a base URL that does not answer: the commands named keep the profile', async () => {
    writeConfig({ profiles: { crlf: { apiKey: 'wrong_key_0123456789', baseUrl: world.sandbox.url } } });
    expect(await doctorFix(['--profile', 'crlf'], {}, 'API')).toBe('gymctl auth login --profile crlf with a valid key');
    const url = `http://127.0.0.1:${await closedPort()}`;
    const fix = await doctorFix(['--profile', 'crlf', '--retries', '0', '--base-url', url], {}, 'API');
    expect(fix).toContain('use the right URL: `gymctl doctor --base-url URL --profile crlf`');
    expect(fix).toMatch(/; then run `gymctl doctor --profile crlf` again$/);
    // The refusal of a read command names the status of that profile's key.
    const refused = await gymctl(['academy', '1', '--profile', 'crlf']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('from profile "crlf"; check it with `gymctl auth status --profile crlf`');
  });
});
