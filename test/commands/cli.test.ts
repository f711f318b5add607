/**
 * The commands in-process, as a user runs them, against the sandbox over
 * loopback, each test with its own empty config folder. Nothing here is
 * spawned: what only a real process shows (a pseudo-terminal, signals,
 * exit statuses) is in test/e2e.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY, DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { useSandboxAndConfig } from '../helpers/world.js';
import { BIN, type CliResult, type RunOptions } from '../helpers/cli.js';
import { gymctl as inProcess } from '../helpers/harness.js';

const world = useSandboxAndConfig();

const apiEnv = (key = DEMO_KEY) => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: key });
const gymctl = (args: string[], options: RunOptions = {}) =>
  inProcess(args, { configDir: world.config.dir, ...(options.env ? { env: options.env } : {}), ...(options.stdin !== undefined ? { stdin: options.stdin } : {}) });
const configFile = () => path.join(world.config.dir, 'config.json');
const academy1 = DEMO_DATA.academies[0]!;

/** A failure: nothing on stdout, one line on stderr, no stack trace. */
function expectFailure(result: Pick<CliResult, 'code' | 'stdout' | 'stderr'>, code: number, message: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

const ERROR_LINE = /^gymctl: .+\n$/;
const WITH_STATUS = (status: number) => new RegExp(`\\(HTTP ${status}, correlation ID [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\\)\\n$`);

describe('basics', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(path.join(path.dirname(BIN), '..', 'package.json'), 'utf8'));
    const result = await gymctl(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it("version --licenses says where the bundled packages' notices are, and how many packages they cover (the build writes them)", async () => {
    const result = await gymctl(['version', '--licenses']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const file = lines.at(-1)!;
    expect(file).toBe(path.join(path.dirname(BIN), '..', 'dist', 'licenses', 'THIRD-PARTY-NOTICES'));
    const notices = readFileSync(file, 'utf8');
    const packages = /\((\d+) packages,/.exec(notices)![1];
    expect(lines[0]).toBe(`gymctl bundles ${packages} third-party packages, and 2 works compiled into jq.wasm (jq, Oniguruma).`);
    expect(Number(packages)).toBeGreaterThan(30);
  });

  it('what gh users type: `version` as gh version, -q for --jq, and --timeout as a duration', async () => {
    const { VERSION } = await import('../../src/version.js');
    const { noticesPath } = await import('../../src/commands/version/run.js');
    expect(await gymctl(['version'])).toMatchObject({ code: 0, stdout: `gymctl version ${VERSION}\nThird-party licence notices: ${noticesPath()}\n`, stderr: '' });
    expect(existsSync(noticesPath())).toBe(true);
    const long = await gymctl(['academy', '1', '--jq', '.name'], { env: apiEnv() });
    expect(long.code).toBe(0);
    expect(await gymctl(['academy', '1', '-q', '.name'], { env: apiEnv() })).toMatchObject({ code: 0, stdout: long.stdout });
    for (const timeout of ['5s', '500ms', '30']) expect((await gymctl(['whoami', '--json', '--timeout', timeout], { env: apiEnv() })).code, timeout).toBe(0);
    expect(await gymctl(['config', 'set', 'timeout', '2m'])).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default.timeout).toBe(120_000);
  });

  it('messages a newcomer meets first are short and say what to do', async () => {
    // An id that is not one: one line that fits a terminal, the limit only when it is what went wrong.
    const abc = await gymctl(['academy', 'abc'], { env: apiEnv() });
    expect(abc).toMatchObject({ code: 2, stdout: '', stderr: 'gymctl: invalid academy id "abc" (expected a positive whole number)\n' });
    expect((await gymctl(['academy', '9223372036854775808'], { env: apiEnv() })).stderr).toContain('(expected a whole number no larger than 9223372036854775807)');
    // No stray ".;" before the usage line.
    const extra = await gymctl(['whoami', 'extra'], { env: apiEnv() });
    expect(extra.code).toBe(2);
    expect(extra.stderr).not.toContain('.;');
    expect(extra.stderr).toContain('; usage: gymctl whoami');
    // gh's --json FIELDS, answered the gymctl way, before anything is sent.
    world.requests.length = 0;
    const fields = await gymctl(['academies', '--json', 'id,name,address.city'], { env: apiEnv() });
    expect(fields).toMatchObject({ code: 2, stdout: '' });
    // With --json given, the error is JSON too, as every error is then.
    const { message } = JSON.parse(fields.stderr).error as { message: string };
    expect(message).toContain(`--jq '{id, name, "address.city": .address.city}'`);
    expect(message).toContain('--columns id,name,address.city');
    expect(world.requests).toEqual([]);
    // A refused key: where it came from.
    const refused = await gymctl(['whoami'], { env: apiEnv('wrong_key_0123456789') });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/the server refused the API key from GYMCTL_API_KEY; check it with `gymctl auth status` \(HTTP 401, correlation ID [^)]+\)\n$/);
  });

  it('no arguments prints help on stdout', async () => {
    const result = await gymctl([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: gymctl');
    for (const command of ['whoami', 'academy', 'family', 'auth', 'config', 'sandbox']) expect(result.stdout).toContain(command);
  });

  it('an unknown command is a usage error that suggests the closest one', async () => {
    expectFailure(await gymctl(['whoam']), 2, /^gymctl: unknown command 'whoam' \(Did you mean whoami\?\)\n$/);
  });

  it('an unknown option is a usage error', async () => {
    expectFailure(await gymctl(['whoami', '--frobnicate']), 2, /unknown option '--frobnicate'/);
  });
});

describe('--sandbox: trying it with no key and no network', () => {
  it('academy 1 --sandbox prints the academy', async () => {
    const result = await gymctl(['academy', '1', '--sandbox']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Alfama Jiu-Jitsu');
  });

  it('whoami --sandbox --json prints the demo key', async () => {
    const result = await gymctl(['whoami', '--sandbox', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(DEMO_DATA.keys[0]!.key);
  });

  it('--sandbox does not read or need a stored key', async () => {
    const result = await gymctl(['family', '501', '--sandbox', '--json'], { env: { GYMCTL_API_KEY: 'not-a-demo-key-xyz' } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).map((m: { id: number }) => m.id)).toEqual([502, 503]);
  });
});

describe('whoami, academy, family against the sandbox', () => {
  it('whoami --json prints data exactly as received', async () => {
    const result = await gymctl(['whoami', '--json'], { env: apiEnv() });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`${JSON.stringify(DEMO_DATA.keys[0]!.key, null, 2)}\n`);
  });

  it('academy --json prints data exactly as received, nulls included', async () => {
    const result = await gymctl(['academy', '1', '--json'], { env: apiEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(academy1, null, 2)}\n`);
    expect(result.stdout).toContain('"line2": null');
  });

  it('family --json prints the other members, and [] for an empty family', async () => {
    const family = await gymctl(['family', '501', '--json'], { env: apiEnv() });
    const members = DEMO_DATA.members.filter((m) => m.id === 502 || m.id === 503);
    expect(family.stdout).toBe(`${JSON.stringify(members, null, 2)}\n`);
    const empty = await gymctl(['family', '520', '--json'], { env: apiEnv() });
    expect(empty).toMatchObject({ code: 0, stdout: '[]\n' });
  });

  it('tables in a pipe are tab-separated lines under one header row, with no colour', async () => {
    const whoami = await gymctl(['whoami'], { env: apiEnv() });
    expect(whoami.stdout).toBe(
      'id\tname\tacademyIds\tuser.id\tuser.name\tuser.email\n101\tFront desk (demo)\t1,2,3,4\t9001\tRita Moreira\trita.moreira@example.com\n'.replace('1,2,3,4', '1;2;3;4'),
    );
    const family = await gymctl(['family', '530'], { env: apiEnv() });
    const lines = family.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('familyOf\tid\tacademyId\tfirstName\tlastName\tphotoUrl.thumbnail\tphotoUrl.large\tprimaryFamilyMember');
    expect(lines.slice(1).map((l) => l.split('\t').slice(0, 2))).toEqual(['531', '532', '533', '534'].map((id) => ['530', id]));
    const academy = await gymctl(['academy', '3'], { env: apiEnv() });
    expect(academy.stdout.split('\n')[1]).toContain('3\tShoreditch Martial Arts\tGBP');
    for (const r of [whoami, family, academy]) expect(r.stdout).not.toMatch(/\u001b/);
  });

  it('an empty family in a pipe is just the header row', async () => {
    const result = await gymctl(['family', '520'], { env: apiEnv() });
    expect(result).toMatchObject({ code: 0, stdout: 'familyOf\tid\tacademyId\tfirstName\tlastName\tphotoUrl.thumbnail\tphotoUrl.large\tprimaryFamilyMember\n' });
  });

  it('on a terminal, tables are drawn, with colour unless it is turned off', async () => {
    const tty = { ...apiEnv(), GYMCTL_FORCE_TTY: '1' };
    const coloured = await gymctl(['family', '501'], { env: tty });
    expect(coloured.stdout).toMatch(/┌.*┐/);
    expect(coloured.stdout).toContain('\u001b[1m');
    expect(coloured.stdout).toContain('Bruno');
    for (const off of [['--no-color'], []]) {
      const plain = await gymctl(['family', '501', ...off], { env: off.length ? tty : { ...tty, NO_COLOR: '1' } });
      expect(plain.stdout).toMatch(/┌.*┐/);
      expect(plain.stdout).not.toContain('\u001b');
    }
    const card = await gymctl(['academy', '4', '--no-color'], { env: tty });
    expect(card.stdout).toMatch(/^Name\s+Shibuya Judo Dojo\s*$/m);
    const empty = await gymctl(['family', '520'], { env: tty });
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: 'No family members are linked to member 520.\n' });
  });

  it('--base-url beats GYMCTL_BASE_URL', async () => {
    const result = await gymctl(['whoami', '--json', '--base-url', world.sandbox.url], {
      env: { ...apiEnv(), GYMCTL_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('errors and exit codes', () => {
  it('not found: exit 3, the server message, status and correlation ID on stderr', async () => {
    const result = await gymctl(['academy', '999'], { env: apiEnv() });
    expectFailure(result, 3, /^gymctl: academy 999: Resource not found /);
    expect(result.stderr).toMatch(WITH_STATUS(404));
    const family = await gymctl(['family', '9999'], { env: apiEnv() });
    expectFailure(family, 3, /^gymctl: member 9999: Resource not found .*HTTP 404/);
  });

  it('an academy outside the key scope is not found', async () => {
    expectFailure(await gymctl(['academy', '5'], { env: apiEnv() }), 3, /academy 5: Resource not found/);
    expectFailure(await gymctl(['academy', '1'], { env: apiEnv(DEMO_KEY_NO_ACADEMIES) }), 3, /academy 1/);
  });

  it('a refused key: exit 4', async () => {
    const result = await gymctl(['whoami'], { env: apiEnv('wrong_key_12345678') });
    expectFailure(result, 4, /^gymctl: Unauthorized: the server refused the API key /);
    expect(result.stderr).toMatch(WITH_STATUS(401));
    expect(result.stderr).not.toContain('wrong_key_12345678');
  });

  it("with --json, the error is one JSON line on stderr, its message the server's as sent (the subject is in id)", async () => {
    const result = await gymctl(['academy', '999', '--json'], { env: apiEnv() });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    const line = JSON.parse(result.stderr);
    expect(line).toEqual({
      error: {
        message: 'Resource not found',
        correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 404,
        kind: 'not_found',
        id: 999,
      },
    });
  });

  it('no key anywhere: exit 4 with guidance, and no request is sent', async () => {
    const result = await gymctl(['whoami'], { env: { GYMCTL_BASE_URL: world.sandbox.url } });
    expectFailure(result, 4, /^gymctl: no API key for profile "default": run `gymctl auth login` or set GYMCTL_API_KEY/);
    expect(world.requests).toEqual([]);
  });

  it('no base URL: exit 2 with guidance', async () => {
    expectFailure(await gymctl(['whoami'], { env: { GYMCTL_API_KEY: DEMO_KEY } }), 2, /no API base URL.*--base-url/);
  });

  for (const bad of ['abc', '-1', '1.5', '0x10', '1e3', '', '../me', '12345678901234567890', '0', '9223372036854775808']) {
    it(`id ${JSON.stringify(bad)} exits 2 before any request`, async () => {
      for (const command of ['academy', 'family']) {
        const result = await gymctl([command, bad], { env: apiEnv() });
        expectFailure(result, 2, ERROR_LINE);
      }
      expect(world.requests).toEqual([]);
    });
  }

  it('a missing id is a usage error', async () => {
    expectFailure(await gymctl(['academy'], { env: apiEnv() }), 2, /missing required argument 'academyId'/);
  });

  it('a server that cannot be reached: exit 5', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const result = await gymctl(['whoami'], { env: { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: `http://127.0.0.1:${port}` } });
    expectFailure(result, 5, /could not connect to 127\.0\.0\.1:\d+ \(connection refused\)/);
  });

  it('an invalid --timeout or base URL is a usage error', async () => {
    expectFailure(await gymctl(['whoami', '--timeout', 'soon'], { env: apiEnv() }), 2, /invalid timeout "soon"/);
    expectFailure(await gymctl(['whoami', '--base-url', 'ftp://x'], { env: apiEnv() }), 2, /scheme must be https: or http:/);
    expectFailure(await gymctl(['whoami', '--base-url', 'https://u:p@x'], { env: apiEnv() }), 2, /credentials/);
    expect(world.requests).toEqual([]);
  });

  it('a key with a control character is refused without being shown', async () => {
    const result = await gymctl(['whoami'], { env: apiEnv('secret\u0007value') });
    expectFailure(result, 2, /API key from GYMCTL_API_KEY contains characters an API key cannot have/);
    expect(result.stderr).not.toContain('secret');
  });
});

describe('a server that does not keep to the spec', () => {
  let server: http.Server;
  let url: string;
  let reply: { status: number; body: string; type?: string };
  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      response.writeHead(reply.status, { 'content-type': reply.type ?? 'application/json' });
      response.end(reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const env = () => ({ GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY });

  it('a schema mismatch: exit 6 naming the field', async () => {
    reply = { status: 200, body: JSON.stringify({ data: { ...academy1, id: 'one' } }) };
    expectFailure(await gymctl(['academy', '1'], { env: env() }), 6, /unexpected response: data\.id: expected integer, got string \(HTTP 200\)/);
  });

  it('a 2xx that is not JSON: exit 6; a 5xx HTML page: exit 5, not dumped', async () => {
    reply = { status: 200, body: '<html>oops</html>', type: 'text/html' };
    expectFailure(await gymctl(['whoami'], { env: env() }), 6, /the response is not JSON: the server sent an HTML page \(HTTP 200/);
    reply = { status: 503, body: '<html>maintenance page</html>', type: 'text/html' };
    const result = await gymctl(['whoami'], { env: env() });
    expectFailure(result, 5, /HTTP 503/);
    expect(result.stderr).not.toContain('maintenance page');
  });

  it('numbers and key order reach --json exactly as sent', async () => {
    const body = '{"data":{"id":7,"name":"Exact","coordinates":{"lat":38.70,"lng":-9.10e0},"franchiseId":12,"9":"nine"}}';
    reply = { status: 200, body };
    const result = await gymctl(['academy', '7', '--json'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{\n  "id": 7,\n  "name": "Exact",\n  "coordinates": {\n    "lat": 38.70,\n    "lng": -9.10e0\n  },\n  "franchiseId": 12,\n  "9": "nine"\n}\n');
  });

  it('escape sequences from the server are shown visibly, not sent to the terminal', async () => {
    reply = { status: 200, body: JSON.stringify({ data: { ...academy1, name: 'Evil\u001b[2J\u001b]0;pwned\u0007Gym' } }) };
    const table = await gymctl(['academy', '1'], { env: { ...env(), GYMCTL_FORCE_TTY: '1' } });
    expect(table.stdout).toContain('Evil^[[2J^[]0;pwned^GGym');
    expect(table.stdout).not.toContain('\u001b[2J');
    reply = { status: 404, body: JSON.stringify({ message: 'gone\u001b[31m', correlationId: 'c\u009b1' }) };
    const error = await gymctl(['academy', '1'], { env: env() });
    expect(error.stderr).toBe('gymctl: academy 1: gone^[[31m (HTTP 404, correlation ID c^[[1)\n');
  });
});

describe('auth: login, status, logout', () => {
  it('login --with-key checks the key, stores it 0600 with the base URL, and says whose it is', async () => {
    const login = await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: `${DEMO_KEY}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toContain('as Rita Moreira <rita.moreira@example.com>');
    expect(login.stderr).toContain('sees academies 1, 2, 3, 4');
    expect(login.stderr).not.toContain(DEMO_KEY);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(world.config.dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({
      profiles: { default: { apiKey: DEMO_KEY, baseUrl: world.sandbox.url } },
    });

    // The stored key and base URL are used from now on.
    const whoami = await gymctl(['whoami', '--json']);
    expect(JSON.parse(whoami.stdout).id).toBe(101);

    const status = await gymctl(['auth', 'status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('Profile: default\n');
    expect(status.stdout).toContain(`Base URL: ${world.sandbox.url} (from ${configFile()})`);
    expect(status.stdout).toContain(`Key: ****${DEMO_KEY.slice(-4)} from ${configFile()}`);
    expect(status.stdout).toContain('Owner: Rita Moreira <rita.moreira@example.com>');
    expect(status.stdout).not.toContain(DEMO_KEY);

    const json = await gymctl(['auth', 'status', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ profile: 'default', keySource: 'config', key: `****${DEMO_KEY.slice(-4)}`, keyId: 101 });

    const logout = await gymctl(['auth', 'logout']);
    expect(logout.code).toBe(0);
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({ profiles: { default: { baseUrl: world.sandbox.url } } });

    expectFailure(await gymctl(['auth', 'status']), 4, /no API key for profile "default": run `gymctl auth login`/);
    expectFailure(await gymctl(['whoami']), 4, /no API key/);
  });

  it('status says where the key comes from, and the environment beats the file', async () => {
    await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: DEMO_KEY_NO_ACADEMIES });
    const status = await gymctl(['auth', 'status'], { env: { GYMCTL_API_KEY: DEMO_KEY } });
    expect(status.stdout).toContain(`Key: ****${DEMO_KEY.slice(-4)} from GYMCTL_API_KEY`);
    expect(status.stdout).toContain('Academies: 1, 2, 3, 4');
  });

  it('status with a refused key: exit 4, the key masked, with the profile, base URL and key source that help find it', async () => {
    const result = await gymctl(['auth', 'status'], { env: apiEnv('revoked_key_abcdef') });
    expect(result).toMatchObject({ code: 4, stdout: '' });
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['Profile: default', `Base URL: ${world.sandbox.url} (from GYMCTL_BASE_URL)`, 'Key: ****cdef from GYMCTL_API_KEY']);
    expect(lines[3]).toMatch(/^gymctl: the server refused the API key \*\*\*\*cdef from GYMCTL_API_KEY/);
    expect(result.stderr).not.toContain('revoked_key');
  });

  it('a refused key is not saved', async () => {
    const result = await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: 'bad_key_0000000000' });
    expectFailure(result, 4, /refused the API key/);
    expect(() => statSync(configFile())).toThrow();
  });

  it('login never prompts when stdin is not a terminal: a usage error (exit 2) with guidance', async () => {
    const result = await gymctl(['auth', 'login', '--base-url', world.sandbox.url]);
    expectFailure(result, 2, /--with-key/);
    expect(world.requests).toEqual([]);
  });

  it('login with an empty key on stdin is a usage error', async () => {
    expectFailure(await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: '\n' }), 2, /no API key/);
  });

  it('login keeps the other settings of the profile', async () => {
    expect((await gymctl(['config', 'set', 'timeout', '5s'])).code).toBe(0);
    await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: DEMO_KEY });
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default).toEqual({
      timeout: 5000,
      apiKey: DEMO_KEY,
      baseUrl: world.sandbox.url,
    });
  });

  it('--profile keeps keys apart', async () => {
    await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url, '--profile', 'work'], { stdin: DEMO_KEY });
    expectFailure(await gymctl(['whoami']), 4, /profile "default"/);
    const work = await gymctl(['whoami', '--json'], { env: { GYMCTL_PROFILE: 'work' } });
    expect(JSON.parse(work.stdout).id).toBe(101);
    expectFailure(await gymctl(['whoami', '--profile', '../x']), 2, /invalid profile name/);
  });

  it('--sandbox with auth login or logout is refused', async () => {
    expectFailure(await gymctl(['auth', 'login', '--sandbox']), 2, /--sandbox cannot be used with auth login/);
    expectFailure(await gymctl(['auth', 'logout', '--sandbox']), 2, /--sandbox cannot be used with auth logout/);
  });

  it('auth status --sandbox shows the demo key, masked', async () => {
    const result = await gymctl(['auth', 'status', '--sandbox']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Base URL: http:\/\/127\.0\.0\.1:\d+ \(from --sandbox\)$/m);
    expect(result.stdout).toContain(`Key: ****${DEMO_KEY.slice(-4)} from --sandbox`);
    expect(result.stdout).not.toContain(DEMO_KEY);
  });

  it('auth status on a terminal aligns its values after the labels (bold with colour); a pipe gets one plain line each', async () => {
    const plain = await inProcess(['auth', 'status', '--sandbox'], { configDir: world.config.dir, stdoutTTY: true, columns: 100, env: { NO_COLOR: '1' } });
    expect(plain.code, plain.stderr).toBe(0);
    const lines = plain.stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.slice(0, 11))).toEqual(['Profile:   ', 'Base URL:  ', 'Key:       ', 'Key name:  ', 'Owner:     ', 'Academies: ']);
    expect(lines[5]).toBe('Academies: 1, 2, 3, 4');
    const coloured = await inProcess(['auth', 'status', '--sandbox'], { configDir: world.config.dir, stdoutTTY: true, columns: 100, env: { FORCE_COLOR: '1' } });
    expect(coloured.stdout).toContain('\u001b[1mProfile:\u001b[22m   default');
    const piped = await gymctl(['auth', 'status', '--sandbox'], { env: { FORCE_COLOR: '1' } });
    expect(piped.stdout).toMatch(/^Profile: default\nBase URL: http/);
    expect(piped.stdout).not.toContain('\u001b');
  });
});

describe('documents: one rule for auth status, auth status --all, config list and schema', () => {
  it('JSON with --json, --jq or a stored json format; for people otherwise; a schema is always JSON', async () => {
    const login = await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: DEMO_KEY });
    expect(login.code, login.stderr).toBe(0);
    const documents = [
      ['auth', 'status'],
      ['auth', 'status', '--all'],
      ['config', 'list'],
    ];
    for (const args of documents) {
      const text = (await gymctl(args)).stdout;
      expect(() => JSON.parse(text), args.join(' ')).toThrow();
      expect(JSON.parse((await gymctl([...args, '--json'])).stdout), args.join(' ')).toBeTypeOf('object');
      expect((await gymctl([...args, '--jq', 'type'])).stdout, args.join(' ')).toMatch(/^(object|array)\n$/);
    }
    expect((await gymctl(['config', 'set', 'format', 'json'])).code).toBe(0);
    for (const args of documents) expect(JSON.parse((await gymctl(args)).stdout), args.join(' ')).toBeTypeOf('object');
    expect(JSON.parse((await gymctl(['schema', 'whoami'])).stdout).type).toBe('object');
  });
});

describe('config', () => {
  it('set, get, list, unset and path', async () => {
    expect(await gymctl(['config', 'path'])).toMatchObject({ code: 0, stdout: `${configFile()}\n` });
    expect((await gymctl(['config', 'get', 'format'])).stdout).toBe('table\n');
    expect((await gymctl(['config', 'set', 'format', 'json'])).code).toBe(0);
    expect((await gymctl(['config', 'set', 'base-url', `${world.sandbox.url}/`])).code).toBe(0);
    expect((await gymctl(['config', 'get', 'format'])).stdout).toBe('json\n');
    // The stored format applies to config list as to every command: JSON now.
    expect(JSON.parse((await gymctl(['config', 'list'])).stdout)).toEqual({
      'base-url': world.sandbox.url,
      format: 'json',
      timeout: 30000,
      retries: 2,
      'key-store': 'config',
      'default-profile': 'default',
      accessible: false,
      'csv-bom': false,
    });
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);

    // The stored format and base URL apply; only the key comes from the environment.
    const academy = await gymctl(['academy', '2'], { env: { GYMCTL_API_KEY: DEMO_KEY } });
    expect(JSON.parse(academy.stdout).name).toBe('Eastside Grappling Club');

    expect((await gymctl(['config', 'unset', 'format'])).code).toBe(0);
    expect((await gymctl(['config', 'get', 'format'])).stdout).toBe('table\n');
    expect((await gymctl(['config', 'list'])).stdout).toBe(
      `base-url=${world.sandbox.url}\nformat=table\ntimeout=30s\nretries=2\nkey-store=config\ndefault-profile=default\naccessible=false\ncsv-bom=false\n`,
    );
  });

  it('bad keys and values are usage errors that leave the file as it was', async () => {
    await gymctl(['config', 'set', 'timeout', '1000']);
    const before = readFileSync(configFile(), 'utf8');
    expectFailure(await gymctl(['config', 'set', 'colour', 'red']), 2, /unknown config key "colour"/);
    expectFailure(await gymctl(['config', 'set', 'timeout', '-3']), 2, /invalid timeout/);
    expectFailure(await gymctl(['config', 'set', 'format', 'xml']), 2, /invalid format/);
    expectFailure(await gymctl(['config', 'set', 'base-url', 'not a url']), 2, /invalid base URL/);
    expectFailure(await gymctl(['config', 'set', 'api-key', 'k']), 2, /`gymctl auth login`/);
    // Following the message stores the key in the profile that was named, not the default one.
    expectFailure(await gymctl(['config', 'set', 'api-key', 'k', '--profile', 'work']), 2, /`gymctl auth login --profile work`/);
    expect(readFileSync(configFile(), 'utf8')).toBe(before);
  });

  it('a corrupt config file: exit 1 naming it, left byte for byte', async () => {
    mkdirSync(world.config.dir, { recursive: true });
    const corrupt = '{"profiles": {"default": {"apiKey": "k",';
    writeFileSync(configFile(), corrupt, { mode: 0o600 });
    for (const args of [['whoami'], ['config', 'set', 'format', 'json'], ['auth', 'logout']]) {
      expectFailure(await gymctl(args, { env: { GYMCTL_BASE_URL: world.sandbox.url } }), 1, new RegExp(`config file ${configFile()} is not valid JSON`));
    }
    expect(readFileSync(configFile(), 'utf8')).toBe(corrupt);
  });
});

describe('gymctl sandbox', () => {
  it('--data nested 200,000 deep (around a 16-digit number) is said to nest too deep, not to end too early', async () => {
    const file = path.join(world.config.dir, '..', 'deep.json');
    writeFileSync(file, `${'['.repeat(200_000)}1234567890123456${']'.repeat(200_000)}`);
    expectFailure(await gymctl(['sandbox', '--data', file]), 2, new RegExp(`sandbox data ${file} nests deeper than 1000 levels`));
  });

  it('--data with a bad field: exit 2 naming the file and the field', async () => {
    const file = path.join(world.config.dir, '..', 'bad.json');
    const data = { ...DEMO_DATA, academies: [{ ...academy1, id: '1' }] };
    writeFileSync(file, JSON.stringify(data));
    const result = await gymctl(['sandbox', '--port', '0', '--data', file]);
    expectFailure(result, 2, new RegExp(`invalid sandbox data in ${file}: academies\\[0\\]\\.id: expected integer, got string`));
    expectFailure(await gymctl(['sandbox', '--port', 'x']), 2, /invalid port/);
  });

  it('--data of an empty name (an unset variable) is refused, never the demo data served instead', async () => {
    expectFailure(await gymctl(['sandbox', '--port', '0', '--data', '']), 2, /^gymctl: cannot read sandbox data "" \(ENOENT\)\n$/);
  });
});
