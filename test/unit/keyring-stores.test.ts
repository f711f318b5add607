/**
 * The keyring's advice names the platform's own store: the Credential
 * Manager on Windows, the login keychain on macOS, the Secret Service on
 * Linux; in the keyring's errors and in doctor's key row, each platform
 * faked. Never another platform's tool (no gnome-keyring on Windows).
 */
import { describe, expect, it } from 'vitest';
import { FailureWithFix } from '../../src/failures.js';
import { explain, keyringError } from '../../src/keyring/client.js';
import { KEYRING_MISSING } from '../../src/keyring/protocol.js';
import { keyringStore } from '../../src/keyring/stores.js';
import { profileAndKeyChecks } from '../../src/commands/doctor/checks-local.js';

const PLATFORMS = [
  {
    platform: 'win32',
    name: 'the Windows Credential Manager',
    own: ['Credential Manager', 'cmdkey /list', 'Windows sign-in'],
    foreign: ['gnome-keyring', 'D-Bus', 'keychain', 'Secret Service'],
  },
  {
    platform: 'darwin',
    name: 'the login keychain',
    own: ['login keychain', 'Keychain Access', 'security unlock-keychain'],
    foreign: ['gnome-keyring', 'D-Bus', 'Credential Manager', 'Secret Service'],
  },
  { platform: 'linux', name: 'the Secret Service', own: ['Secret Service', 'gnome-keyring', 'KeePassXC', 'D-Bus'], foreign: ['Credential Manager', 'cmdkey', 'keychain'] },
] as const;

const textOf = (error: unknown) => {
  expect(error).toBeInstanceOf(FailureWithFix);
  const failure = error as FailureWithFix;
  return [failure.message, ...failure.fix].join('\n');
};

describe.each(PLATFORMS)('the keyring on $platform', ({ platform, name, own, foreign }) => {
  const get = { op: 'get', account: 'work' } as const;
  const set = { op: 'set', account: 'work' } as const;

  it(`is ${name}`, () => {
    expect(keyringStore(platform).name).toBe(name);
  });

  it('a keyring that cannot be reached names the store and where it is, and no other platform', () => {
    for (const request of [get, set]) {
      const text = textOf(keyringError('unavailable', 'cannot reach it', request, platform));
      expect(text).toMatch(/^keyring unavailable: cannot reach it/);
      const named = request.op === 'get' ? [name, ...own] : own.slice(0, 1);
      for (const word of named) expect(text).toContain(word);
      for (const word of foreign) expect(text).not.toContain(word);
    }
  });

  it('every line of advice fits a terminal: at most 120 columns, as gymctl prints it', () => {
    for (const trouble of ['unavailable', 'locked', 'missing'] as const) {
      for (const request of [get, set]) {
        const failure = keyringError(trouble, 'a reason', request, platform) as FailureWithFix;
        for (const line of [`gymctl: ${failure.message}`, ...failure.fix.map((fix) => `  ${fix}`)]) expect(line.length, line).toBeLessThanOrEqual(120);
      }
    }
    expect(`  fix: ${keyringStore(platform).fix}, or gymctl auth login --no-keyring`.length).toBeLessThanOrEqual(120);
  });

  it('the login each fix names is for the failing profile, as it works when typed', () => {
    for (const trouble of ['unavailable', 'missing'] as const) {
      expect(textOf(keyringError(trouble, 'a reason', get, platform))).toContain('gymctl auth login --no-keyring --profile work, or');
      const fix = textOf(keyringError(trouble, 'a reason', { op: 'get', account: 'default' }, platform));
      expect(fix).toContain('gymctl auth login --no-keyring, or');
      expect(fix).not.toContain('--profile');
    }
  });

  it('a locked keyring says how to unlock this one', () => {
    const text = textOf(keyringError('locked', 'the collection is locked', get, platform));
    expect(text).toContain(keyringStore(platform).unlock);
    expect(text).toContain('GYMCTL_API_KEY');
    for (const word of foreign) expect(text).not.toContain(word);
  });

  it('no module: the same "not available on this install" wording, naming the store it would have used', () => {
    const reason = `@napi-rs/keyring has no native binary installed for ${platform}-x64`;
    const failure = keyringError('missing', reason, get, platform) as FailureWithFix;
    expect(failure.message).toBe(`${KEYRING_MISSING} (${reason})`);
    expect(failure.kind).toBe('unauthorized');
    expect(failure.fix[0]).toBe(`Profile "work" keeps its key in the system keyring, ${name}.`);
    expect(failure.fix.join('\n')).toContain('without --omit=optional');
    for (const word of foreign) expect(failure.fix.join('\n')).not.toContain(word);
  });

  it("doctor's key row names the store when it answers, and its fix when it does not", async () => {
    const deps = (read: () => Promise<undefined | { value: string }>) => ({
      config: () => ({ read: () => ({ profiles: { default: { keyStore: 'keyring' } } }), profile: () => ({ keyStore: 'keyring' }) }),
      keyring: { read },
      profileName: () => ({ value: 'default', source: 'default' }),
      settings: async () => ({}),
    });
    const pass = await profileAndKeyChecks(deps(async () => ({ value: 'k', source: 'keyring' })) as never, platform);
    expect(pass.at(-1)).toMatchObject({ check: 'key', status: 'pass', detail: `from the system keyring (${name}), which answered` });
    const down = await profileAndKeyChecks(
      deps(async () => {
        throw keyringError('unavailable', 'cannot reach it', get, platform);
      }) as never,
      platform,
    );
    expect(down.at(-1)).toMatchObject({ check: 'key', status: 'fail', detail: 'keyring unavailable: cannot reach it', kind: 'unauthorized' });
    expect(down.at(-1)!.fix).toBe(`${keyringStore(platform).fix}, or gymctl auth login --no-keyring`);
    for (const word of foreign) expect(down.at(-1)!.fix).not.toContain(word);
    const missing = await profileAndKeyChecks(
      deps(async () => {
        throw keyringError('missing', '@napi-rs/keyring is not installed', get, platform);
      }) as never,
      platform,
    );
    expect(missing.at(-1)!.fix).toBe('install gymctl with its optional dependencies (without --omit=optional), or gymctl auth login --no-keyring');
  });
});

describe("the native library's reasons, per platform", () => {
  it('Windows: a sign-in with no credential store (SSH with a key, a service) is said as such', () => {
    const native = "Couldn't access platform storage: A specified logon session does not exist. It may already have been terminated. (os error 1312)";
    expect(explain(native, {}, 'win32')).toBe('the Credential Manager has no store for this sign-in (as over SSH signed in with a key, or for a service)');
    // Elsewhere the words are only unwrapped.
    expect(explain(native, {}, 'linux')).toBe('A specified logon session does not exist. It may already have been terminated. (os error 1312)');
  });

  it('no D-Bus session bus is a Linux reason only', () => {
    expect(explain('failed to connect to dbus', {}, 'linux')).toMatch(/^no D-Bus session bus/);
    expect(explain('failed to connect to dbus', {}, 'win32')).toBe('failed to connect to dbus');
    expect(explain('failed to connect to dbus', { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, 'linux')).toBe('failed to connect to dbus');
  });
});
