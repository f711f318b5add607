/**
 * What a newcomer meets first: each message says what went wrong and the
 * next step (where a setting came from, the command to run), and a mistyped
 * name is said to be one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const gymctl = (args: string[], options: GymctlOptions = {}) => inProcess(args, { configDir: world.config.dir, ...options });

/** A failure: nothing on stdout, the message on stderr, no stack trace. */
function expectFailure(result: { code: number; stdout: string; stderr: string }, code: number, message: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('messages that name the next step', () => {
  it('a refused key names where it came from and `gymctl auth status`, for a batch as for whoami', async () => {
    const env = { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: 'wrong_key_0123456789' };
    for (const args of [['whoami'], ['academy', '1'], ['academy', '1', '2']]) {
      const result = await gymctl(args, { env });
      expect(result.code, args.join(' ')).toBe(4);
      const [refused, ...more] = result.stderr.trimEnd().split('\n');
      expect(refused, args.join(' ')).toMatch(/the server refused the API key from GYMCTL_API_KEY; check it with `gymctl auth status` \(HTTP 401/);
      // A batch stops at the refusal, and says so on one more line.
      expect(more, args.join(' ')).toEqual(args.length === 3 ? [expect.stringMatching(/^gymctl: the batch stopped there: 1 of 2 ids were not tried$/)] : []);
    }
  });

  it('a refused connection says where the base URL came from', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const fromEnv = await gymctl(['academy', '1', '--retries', '0'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY } });
    expectFailure(fromEnv, 5, /could not connect to 127\.0\.0\.1:\d+ \(connection refused\).*; the base URL came from GYMCTL_BASE_URL\n$/);
    const fromFlag = await gymctl(['whoami', '--retries', '0', '--base-url', url], { env: { GYMCTL_API_KEY: DEMO_KEY } });
    expectFailure(fromFlag, 5, /\(connection refused\).*; the base URL came from --base-url\n$/);
  });
});

describe('typed arguments that are nearly right', () => {
  const env = () => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });

  it('an id above 2^63−1 is said to be too large, however many digits it has', async () => {
    for (const id of ['9223372036854775808', '99999999999999999999', '123456789012345678901234567890']) {
      expectFailure(await gymctl(['academy', id], { env: env() }), 2, /^gymctl: academy id "\d+…?" is too large \(expected a whole number no larger than 9223372036854775807\)\n$/);
    }
    expect(world.requests).toEqual([]);
  });

  it('an empty place in a comma-separated list is said to be one, and where', async () => {
    expectFailure(
      await gymctl(['academy', '1,,2'], { env: env() }),
      2,
      /^gymctl: invalid academy id list "1,,2": an empty academy id between two commas \(write several as 1,2,3\)\n$/,
    );
    expectFailure(await gymctl(['academy', '1,2,'], { env: env() }), 2, /an empty academy id after the last comma/);
    expectFailure(await gymctl(['academy', ',1'], { env: env() }), 2, /an empty academy id before the first comma/);
    expect(world.requests).toEqual([]);
  });

  it('a base URL with no scheme suggests one: http:// on loopback, https:// elsewhere', async () => {
    const key = { GYMCTL_API_KEY: DEMO_KEY };
    expectFailure(
      await gymctl(['whoami', '--base-url', 'localhost:4010'], { env: key }),
      2,
      /^gymctl: invalid base URL "localhost:4010" \(from --base-url\): it has no scheme; did you mean http:\/\/localhost:4010\?\n$/,
    );
    expectFailure(await gymctl(['whoami', '--base-url', '127.0.0.1:4010/api'], { env: key }), 2, /did you mean http:\/\/127\.0\.0\.1:4010\/api\?/);
    expectFailure(
      await gymctl(['whoami'], { env: { ...key, GYMCTL_BASE_URL: 'api.example.com' } }),
      2,
      /\(from GYMCTL_BASE_URL\): it has no scheme; did you mean https:\/\/api\.example\.com\?/,
    );
    expectFailure(await gymctl(['config', 'set', 'base-url', 'localhost:4010']), 2, /did you mean http:\/\/localhost:4010\?/);
  });

  it('gymctl -v suggests --version', async () => {
    expectFailure(await gymctl(['-v']), 2, /^gymctl: unknown option '-v' \(Did you mean --version\?\)\n$/);
  });
});

describe('a profile that does not exist', () => {
  /** Profiles default and work, as `auth login` leaves them. */
  async function twoProfiles() {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const path = await import('node:path');
    mkdirSync(world.config.dir, { recursive: true, mode: 0o700 });
    const profiles = { default: { apiKey: DEMO_KEY, baseUrl: world.sandbox.url }, work: { apiKey: DEMO_KEY, baseUrl: world.sandbox.url, format: 'json' } };
    writeFileSync(path.join(world.config.dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  }
  const noWrok =
    /^gymctl: there is no profile "wrok" \(from --profile\): the profiles are default, work \(Did you mean work\?\); create one with `gymctl auth login --profile wrok`\n$/;

  it('is said to be missing, with the profiles and the nearest, by every command that reads it', async () => {
    await twoProfiles();
    const { readFileSync } = await import('node:fs');
    const before = readFileSync(`${world.config.dir}/config.json`, 'utf8');
    for (const args of [
      ['whoami'],
      ['academy', '1'],
      ['auth', 'status'],
      ['auth', 'logout'],
      ['config', 'get', 'base-url'],
      ['config', 'list'],
      ['config', 'set', 'format', 'json'],
      ['config', 'unset', 'format'],
      // The sandbox's key and base URL stand in for the profile's, but its other settings still apply.
      ['whoami', '--sandbox'],
    ]) {
      expectFailure(await gymctl([...args, '--profile', 'wrok']), 2, noWrok);
    }
    // Nothing was created or changed, and nothing was sent.
    expect(readFileSync(`${world.config.dir}/config.json`, 'utf8')).toBe(before);
    expect(world.requests).toEqual([]);
  });

  it('from GYMCTL_PROFILE or default-profile, says so', async () => {
    await twoProfiles();
    expectFailure(await gymctl(['whoami'], { env: { GYMCTL_PROFILE: 'wrok' } }), 2, /there is no profile "wrok" \(from GYMCTL_PROFILE\): the profiles are default, work/);
    // A default-profile that names none (the file edited by hand) is refused, and can still be unset.
    const { readFileSync, writeFileSync } = await import('node:fs');
    const file = `${world.config.dir}/config.json`;
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), defaultProfile: 'gone' }));
    expectFailure(await gymctl(['config', 'get', 'format']), 2, /there is no profile "gone" \(from default-profile\)/);
    expect(await gymctl(['config', 'get', 'default-profile'])).toMatchObject({ code: 0, stdout: 'gone\n' });
    expect(await gymctl(['config', 'unset', 'default-profile'])).toMatchObject({ code: 0, stderr: '' });
    expect(await gymctl(['config', 'get', 'format'])).toMatchObject({ code: 0, stdout: 'table\n' });
  });

  it('a profile that exists, and default with no config at all, work as before', async () => {
    expect((await gymctl(['whoami', '--json'], { env: { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: world.sandbox.url } })).code).toBe(0);
    expect((await gymctl(['whoami', '--json', '--profile', 'default'], { env: { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: world.sandbox.url } })).code).toBe(0);
    expect(await gymctl(['config', 'set', 'timeout', '5s'])).toMatchObject({ code: 0, stderr: '' });
    await twoProfiles();
    expect(await gymctl(['config', 'get', 'format', '--profile', 'work'])).toMatchObject({ code: 0, stdout: 'json\n' });
    expect((await gymctl(['whoami', '--profile', 'work'])).code).toBe(0);
  });

  it('only auth login creates one', async () => {
    await twoProfiles();
    const login = await gymctl(['auth', 'login', '--with-key', '--profile', 'wrok', '--base-url', world.sandbox.url], { stdin: DEMO_KEY });
    expect(login.code, login.stderr).toBe(0);
    expect(await gymctl(['config', 'get', 'base-url', '--profile', 'wrok'])).toMatchObject({ code: 0, stdout: `${world.sandbox.url}\n` });
  });
});

describe('auth login', () => {
  it('a key piped in without --with-key: add --with-key, the other flags kept as given', async () => {
    const result = await gymctl(['auth', 'login', '--profile', 'work', '--base-url', `${world.sandbox.url}/`, '--no-keyring'], { stdin: DEMO_KEY });
    expectFailure(result, 2, /^gymctl: stdin is not a terminal, so there is no prompt: add --with-key to read the key from stdin/);
    expect(result.stderr).toContain(`(\`gymctl auth login --with-key --no-keyring --profile work --base-url ${world.sandbox.url}/ < keyfile\`)`);
    expect(result.stderr).not.toContain(DEMO_KEY);
    // Run as suggested, it logs in.
    const again = await gymctl(['auth', 'login', '--with-key', '--no-keyring', '--profile', 'work', '--base-url', `${world.sandbox.url}/`], { stdin: DEMO_KEY });
    expect(again.code, again.stderr).toBe(0);
    // A value the shell would split is quoted.
    const odd = await gymctl(['auth', 'login', '--base-url', 'https://api.example.com/a b'], { stdin: DEMO_KEY });
    expect(odd.stderr).toContain("--base-url 'https://api.example.com/a b' < keyfile");
  });

  it('--with-key at a terminal reads the key hidden, as the prompt does', async () => {
    let typed: Promise<void> = Promise.resolve();
    const result = await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], {
      stdinTTY: true,
      started: (streams) => {
        typed = (async () => {
          await waitFor('a question on stderr', () => streams.stderr() !== '');
          // Echo is off before anything can be pasted.
          expect(streams.stderr()).toBe('Paste your API key (input is hidden): ');
          expect(streams.terminal!.rawModes).toEqual([true]);
          streams.terminal!.write(`${DEMO_KEY}\r`);
        })();
        typed.catch(() => streams.terminal!.end());
      },
    });
    await typed;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain(DEMO_KEY);
    expect(result.stderr).toContain('Logged in to');
  });

  it('with GYMCTL_NO_INPUT at a terminal, asks nothing (neither the key nor whether to replace one): pipe the key in', async () => {
    const env = { GYMCTL_NO_INPUT: '1' };
    expect((await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: DEMO_KEY, env })).code).toBe(0);
    for (const args of [[], ['--with-key']]) {
      const result = await gymctl(['auth', 'login', ...args], { stdinTTY: true, env });
      expectFailure(result, 2, /^gymctl: GYMCTL_NO_INPUT is set, so there is no prompt: pipe the key in \(`gymctl auth login --with-key < keyfile`\)\n$/);
    }
  });
});

describe('timeouts', () => {
  it('a bare --timeout is seconds, as curl --max-time takes it: --timeout 1 waits a second, not a millisecond', async () => {
    // A server that never answers: the timeout ends each wait, and the message says how long it was.
    const server = http.createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const env = { GYMCTL_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, GYMCTL_API_KEY: DEMO_KEY };
      expectFailure(await gymctl(['whoami', '--timeout', '1', '--retries', '0'], { env }), 5, /timed out after 1000 ms/);
      expectFailure(await gymctl(['whoami', '--timeout', '0.1', '--retries', '0'], { env }), 5, /timed out after 100 ms/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('config set timeout takes seconds too, and config get shows what it reads back', async () => {
    expect(await gymctl(['config', 'set', 'timeout', '10'])).toMatchObject({ code: 0, stderr: '' });
    expect(await gymctl(['config', 'get', 'timeout'])).toMatchObject({ code: 0, stdout: '10s\n' });
    expect(JSON.parse((await gymctl(['config', 'list', '--json'])).stdout).timeout).toBe(10_000);
    expect(await gymctl(['config', 'set', 'timeout', '1500ms'])).toMatchObject({ code: 0 });
    expect((await gymctl(['config', 'list'])).stdout).toContain('\ntimeout=1500ms\n');
    // What get prints, set reads back as the same value.
    const printed = (await gymctl(['config', 'get', 'timeout'])).stdout.trim();
    expect(await gymctl(['config', 'set', 'timeout', printed])).toMatchObject({ code: 0 });
    expect(JSON.parse((await gymctl(['config', 'list', '--json'])).stdout).timeout).toBe(1500);
    expectFailure(await gymctl(['config', 'set', 'timeout', '0']), 2, /invalid timeout "0" \(from timeout\): expected seconds/);
  });
});
