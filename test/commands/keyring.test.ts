/**
 * The system keyring, for real: gnome-keyring's Secret Service on a D-Bus
 * session bus of its own (dbus-run-session), in a throwaway HOME; then no
 * D-Bus at all, a locked keyring, and a bus that never answers. gymctl
 * runs in-process; its keyring agent is a real process, as for users.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentProcess } from '../../src/keyring/client.js';
import type { KeyringAnswer, KeyringRequest } from '../../src/keyring/protocol.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { hasSecretService, hungBus, removeHome, startSecretService, type SecretService } from '../helpers/keyring.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const configFile = () => path.join(world.config.dir, 'config.json');
const readConfig = () => readFileSync(configFile(), 'utf8');

describe.skipIf(!hasSecretService())('the system keyring (gnome-keyring on D-Bus)', () => {
  let service: SecretService;
  const homes: string[] = [];
  /** `bus`: the D-Bus address, null for none at all. */
  const gymctl = (args: string[], options: GymctlOptions = {}, bus: string | null = service.address) =>
    inProcess(args, {
      configDir: world.config.dir,
      ...options,
      env: { HOME: service.home, DBUS_SESSION_BUS_ADDRESS: bus ?? undefined, DISPLAY: undefined, WAYLAND_DISPLAY: undefined, ...options.env },
    });
  const login = (...flags: string[]) => gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url, ...flags], { stdin: DEMO_KEY });

  beforeAll(async () => {
    service = await startSecretService({ unlock: true });
    homes.push(service.home);
  });
  afterEach(async () => {
    // Each test starts with an unlocked keyring of its own.
    await service.stop();
    service = await startSecretService({ unlock: true });
    homes.push(service.home);
  });
  afterAll(async () => {
    await service.stop();
    for (const home of homes) removeHome(home);
  });

  it('auth login --keyring keeps the key there: the config file records where, and holds no key', async () => {
    const result = await login('--keyring');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Saved to the system keyring (service "gymctl", account "default")');
    expect(readConfig()).not.toContain(DEMO_KEY);
    expect(JSON.parse(readConfig()).profiles.default).toEqual({ keyStore: 'keyring', baseUrl: world.sandbox.url });
    const whoami = await gymctl(['whoami', '--jq', '.id']);
    expect(whoami.stdout).toBe('101\n');
    const status = await gymctl(['auth', 'status']);
    expect(status.stdout).toMatch(/^Key: +\*{4}mies from the system keyring$/m);
    expect(JSON.parse((await gymctl(['auth', 'status', '--json'])).stdout).keySource).toBe('keyring');
    expect((await gymctl(['auth', 'status', '--all'])).stdout).toMatch(/^true\tdefault\thttp:\S+\t\*{4}mies\tkeyring\tok: /m);
  });

  it('is the Secret Service, which keeps the key across a restart of the daemon (the kernel keyring would not)', async () => {
    expect((await login('--keyring')).code).toBe(0);
    await service.stop();
    service = await startSecretService({ unlock: true, home: service.home });
    expect((await gymctl(['whoami', '--jq', '.id'])).stdout).toBe('101\n');
  });

  it('later logins keep the keyring; --no-keyring moves the key to the file and out of the keyring', async () => {
    expect((await login('--keyring')).code).toBe(0);
    expect((await login()).code).toBe(0);
    expect(readConfig()).not.toContain(DEMO_KEY);
    const moved = await login('--no-keyring');
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain('Removed the key from the system keyring.');
    expect(JSON.parse(readConfig()).profiles.default.apiKey).toBe(DEMO_KEY);
    expect(JSON.parse(readConfig()).profiles.default.keyStore).toBeUndefined();
    // The keyring no longer holds it: a profile said to keep it there finds none.
    writeFileSync(configFile(), JSON.stringify({ profiles: { default: { keyStore: 'keyring', baseUrl: world.sandbox.url } } }), { mode: 0o600 });
    const missing = await gymctl(['whoami']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no API key in the system keyring for profile "default"');
  });

  it('auth logout removes the key from the keyring, and the profile keeps the keyring for its next key', async () => {
    expect((await login('--keyring')).code).toBe(0);
    const logout = await gymctl(['auth', 'logout']);
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain('Removed the API key of profile "default" from the system keyring.');
    expect(JSON.parse(readConfig()).profiles.default.keyStore).toBe('keyring');
    const after = await gymctl(['whoami']);
    expect(after.code).toBe(4);
    expect(after.stdout).toBe('');
    expect(after.stderr).toContain('no API key in the system keyring');
  });

  it('config set key-store: chosen before the first login, and never changed under a key kept in the other place', async () => {
    expect((await gymctl(['config', 'set', 'key-store', 'keyring'])).code).toBe(0);
    expect((await gymctl(['config', 'get', 'key-store'])).stdout).toBe('keyring\n');
    expect((await login()).code).toBe(0);
    expect(readConfig()).not.toContain(DEMO_KEY);
    expect((await gymctl(['whoami', '--jq', '.id'])).stdout).toBe('101\n');
    const refused = await gymctl(['config', 'set', 'key-store', 'config']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('keeps its key in the system keyring: move it with `gymctl auth login --no-keyring`');
    expect((await gymctl(['config', 'unset', 'key-store'])).code).toBe(2);
    expect((await login('--no-keyring')).code).toBe(0);
    expect((await gymctl(['config', 'set', 'key-store', 'keyring'])).stderr).toContain('keeps its key in the config file: move it with `gymctl auth login --keyring`');
    expect((await gymctl(['config', 'set', 'key-store', 'vault'])).code).toBe(2);
    expect((await gymctl(['__complete', '--', 'config', 'set', 'key-store', ''])).stdout).toBe('config\nkeyring\n:none\n');
  });

  it('with no D-Bus at all: login --keyring fails with its own message and leaves the config as it was', async () => {
    expect((await login()).code).toBe(0);
    const before = readConfig();
    const result = await gymctl(['auth', 'login', '--keyring', '--with-key', '--base-url', world.sandbox.url], { stdin: DEMO_KEY }, null);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('keyring unavailable: no D-Bus session bus');
    expect(result.stderr).toContain('the key was not asked for, and nothing was stored');
    // The fix is the login's: nothing is kept in the keyring yet, and --no-keyring is the same command otherwise.
    expect(result.stderr).not.toContain('keeps its key in the system keyring');
    expect(result.stderr).toContain(
      `- log in with --no-keyring, to keep the key in the config file (readable by you alone): gymctl auth login --with-key --no-keyring --base-url ${world.sandbox.url}\n`,
    );
    expect(readConfig()).toBe(before);
  });

  it('with no D-Bus at all: config set key-store keyring is refused, which could not be undone there (nothing could read the keyring)', async () => {
    expect((await login()).code).toBe(0);
    expect((await gymctl(['auth', 'logout'])).code).toBe(0);
    const before = readConfig();
    const result = await gymctl(['config', 'set', 'key-store', 'keyring'], {}, null);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^gymctl: keyring unavailable: no D-Bus session bus /);
    expect(readConfig()).toBe(before);
    expect((await gymctl(['auth', 'logout'], {}, null)).code).toBe(0);
  });

  it('a key piped in without --with-key is a usage error (exit 2) before the keyring is asked anything', async () => {
    const result = await gymctl(['auth', 'login', '--keyring', '--base-url', world.sandbox.url], { stdin: DEMO_KEY }, null);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `gymctl: stdin is not a terminal, so there is no prompt: add --with-key to read the key from stdin (\`gymctl auth login --with-key --keyring --base-url ${world.sandbox.url} < keyfile\`)\n`,
    );
  });

  it('on a terminal, login --keyring finds the keyring unavailable before the key is pasted', async () => {
    const result = await gymctl(['auth', 'login', '--keyring', '--base-url', world.sandbox.url], { stdinTTY: true }, null);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('keyring unavailable');
    expect(result.stderr).not.toContain('Paste your API key');
  });

  it('with no D-Bus at all: a keyring profile says "keyring unavailable", never "no key"; other profiles never ask it', async () => {
    expect((await login('--keyring')).code).toBe(0);
    const result = await gymctl(['whoami'], {}, null);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    // A short line of what is wrong, then the ways out, a line each: never one line of hundreds of characters.
    const [first, ...fix] = result.stderr.trimEnd().split('\n');
    expect(first).toMatch(/^gymctl: keyring unavailable: no D-Bus session bus /);
    expect(fix.join('\n')).toMatch(/keeps its key in the system keyring[\s\S]*gymctl auth login --no-keyring[\s\S]*GYMCTL_API_KEY/);
    expect(fix.length).toBeGreaterThanOrEqual(3);
    for (const line of [first!, ...fix]) expect(line.length, line).toBeLessThanOrEqual(120);
    for (const line of fix) expect(line).toMatch(/^ {2}\S/);
    expect(result.stderr).not.toContain('no API key for');
    // GYMCTL_API_KEY stands in, and the keyring is not asked.
    expect((await gymctl(['whoami', '--jq', '.id'], { env: { GYMCTL_API_KEY: DEMO_KEY } }, null)).stdout).toBe('101\n');
  });

  it('a locked keyring: commands say "keyring locked", and logout leaves everything as it was', async () => {
    expect((await login('--keyring')).code).toBe(0);
    await service.stop();
    service = await startSecretService({ unlock: false, home: service.home });
    const result = await gymctl(['whoami']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('keyring locked');
    const before = readConfig();
    const logout = await gymctl(['auth', 'logout']);
    expect(logout.code).toBe(4);
    expect(logout.stderr).toContain('keyring locked');
    expect(readConfig()).toBe(before);
  });

  it('a hung daemon fails within seconds with a clear message; a profile with its key in the file never touches the bus', async () => {
    expect((await login('--keyring')).code).toBe(0);
    const hung = await hungBus();
    try {
      const result = await gymctl(['whoami'], {}, hung.address);
      expect(result.code).toBe(4);
      // The message names the limit that ended the wait: gymctl's own 5 s, not the minute it gives a keyring prompt, nor
      // D-Bus's default 25 s (which would end in D-Bus's own error): only the agent killed at gymctl's limit says this.
      expect(result.stderr).toContain('keyring unavailable: the keyring did not answer within 5 s');
      expect(hung.connections()).toBeGreaterThan(0);
      const seen = hung.connections();
      writeFileSync(configFile(), JSON.stringify({ profiles: { file: { apiKey: DEMO_KEY, baseUrl: world.sandbox.url } } }), { mode: 0o600 });
      expect((await gymctl(['whoami', '--profile', 'file', '--jq', '.id'], {}, hung.address)).stdout).toBe('101\n');
      expect(hung.connections()).toBe(seen);
    } finally {
      hung.close();
    }
  });
});

describe('auth logout of a profile that keeps its key in the keyring (the agent a stand-in)', () => {
  const realSpawn = agentProcess.spawn;
  afterEach(() => {
    agentProcess.spawn = realSpawn;
  });
  /** The agent answers each operation so, from a process of its own. */
  function agentAnswers(answers: Record<KeyringRequest['op'], KeyringAnswer>): void {
    agentProcess.spawn = (_command, _args, options) =>
      spawn(
        process.execPath,
        [
          '-e',
          `let i = ''; process.stdin.on('data', (c) => (i += c)); process.stdin.on('end', () => process.stdout.write(JSON.stringify(${JSON.stringify(answers)}[JSON.parse(i).op])))`,
        ],
        options,
      );
  }
  const logout = () => {
    mkdirSync(world.config.dir, { recursive: true, mode: 0o700 });
    writeFileSync(configFile(), JSON.stringify({ profiles: { default: { keyStore: 'keyring', baseUrl: world.sandbox.url } } }), { mode: 0o600 });
    return inProcess(['auth', 'logout'], { configDir: world.config.dir });
  };

  it('does not say it removed a key the keyring never held', async () => {
    agentAnswers({ get: { ok: true, value: null }, delete: { ok: true, value: null }, set: { ok: true, value: null } });
    const result = await logout();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('No API key is stored for profile "default" in the system keyring.');
    expect(result.stderr).not.toContain('Removed');
  });

  it('says it removed the key the keyring held', async () => {
    agentAnswers({ get: { ok: true, value: DEMO_KEY }, delete: { ok: true, value: 'deleted' }, set: { ok: true, value: null } });
    const result = await logout();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Removed the API key of profile "default" from the system keyring.');
  });
});
