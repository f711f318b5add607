/**
 * What users of gh and kubectl take for granted: profiles, shell completion,
 * help with examples and topics, the raw `api` command, JSON Schemas and the
 * OpenAPI description, colour control; in-process. Shell completion in real
 * shells is in test/e2e/ecosystem.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY, DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { boxRows } from '../helpers/tables.js';
import { useSandboxAndConfig } from '../helpers/world.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { ROOT, type CliResult, type RunOptions } from '../helpers/cli.js';
import { gymctl as inProcess } from '../helpers/harness.js';

const world = useSandboxAndConfig();

const env = (key = DEMO_KEY) => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: key });
const gymctl = (args: string[], options: RunOptions = {}) =>
  inProcess(args, { configDir: world.config.dir, ...(options.env ? { env: options.env } : {}), ...(options.stdin !== undefined ? { stdin: options.stdin } : {}) });
const login = (profile: string, key = DEMO_KEY) => gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url, '--profile', profile], { stdin: key });

function expectFailure(result: Pick<CliResult, 'code' | 'stdout' | 'stderr'>, code: number, message: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
}

describe('profiles', () => {
  /** A profile with settings and no key: logged in (its base URL from the environment, so not stored), then out; only login makes a profile. */
  async function settingsOnlyProfile() {
    await gymctl(['auth', 'login', '--with-key', '--profile', 'settings-only'], { stdin: DEMO_KEY, env: { GYMCTL_BASE_URL: world.sandbox.url } });
    await gymctl(['auth', 'logout', '--profile', 'settings-only']);
    await gymctl(['config', 'set', 'timeout', '5000', '--profile', 'settings-only']);
  }

  it('config set default-profile picks the profile when neither --profile nor GYMCTL_PROFILE does', async () => {
    await login('work');
    await login('audit', DEMO_KEY_NO_ACADEMIES);
    expect((await gymctl(['config', 'set', 'default-profile', 'audit'])).code).toBe(0);
    expect((await gymctl(['config', 'get', 'default-profile'])).stdout).toBe('audit\n');
    const id = async (args: string[], extra: Record<string, string> = {}) => JSON.parse((await gymctl([...args, '--json'], { env: extra })).stdout).id;
    expect(await id(['whoami'])).toBe(102);
    expect(await id(['whoami', '--profile', 'work'])).toBe(101);
    expect(await id(['whoami'], { GYMCTL_PROFILE: 'work' })).toBe(101);
    expectFailure(await gymctl(['config', 'set', 'default-profile', 'no good']), 2, /invalid profile name/);
    expect((await gymctl(['config', 'unset', 'default-profile'])).code).toBe(0);
    expectFailure(await gymctl(['whoami']), 4, /profile "default"/);
  });

  it('auth status --all shows every profile, keys masked, each checked with its own key', async () => {
    await login('work');
    await login('audit', DEMO_KEY_NO_ACADEMIES);
    await settingsOnlyProfile();
    const result = await gymctl(['auth', 'status', '--all'], { env: { GYMCTL_PROFILE: 'work' } });
    expect(result.code, result.stderr).toBe(0);
    // In a pipe: tab-separated lines under a header row, as every table.
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'active\tprofile\tbaseUrl\tkey\tkeyStore\tstatus',
      `false\taudit\t${world.sandbox.url}\t****mies\tconfig\tok: Sam Okafor <sam.okafor@example.com>`,
      'false\tsettings-only\t\t\tconfig\tno key',
      `true\twork\t${world.sandbox.url}\t****mies\tconfig\tok: Rita Moreira <rita.moreira@example.com>`,
    ]);
    // On a terminal: a table, the active profile marked *, the keyring named beside a key.
    const table = await inProcess(['auth', 'status', '--all'], { configDir: world.config.dir, env: { GYMCTL_PROFILE: 'work', NO_COLOR: '1' }, stdoutTTY: true, columns: 200 });
    const rows = boxRows(table.stdout);
    expect(rows).toEqual([
      ['Active', 'Profile', 'Base URL', 'Key', 'Kept in', 'Status'],
      ['', 'audit', world.sandbox.url, '****mies', 'config', 'ok: Sam Okafor <sam.okafor@example.com>'],
      ['', 'settings-only', '-', '-', 'config', 'no key'],
      ['*', 'work', world.sandbox.url, '****mies', 'config', 'ok: Rita Moreira <rita.moreira@example.com>'],
    ]);
    expect(result.stdout).not.toContain(DEMO_KEY);
    const json = JSON.parse((await gymctl(['auth', 'status', '--all', '--json'])).stdout);
    expect(json.map((p: { profile: string; status: string }) => [p.profile, p.status])).toEqual([
      ['audit', 'ok'],
      ['settings-only', 'no key'],
      ['work', 'ok'],
    ]);
  });

  it('auth status --all refuses --sandbox and --base-url, which would stand in for every stored base URL and key, before any request', async () => {
    await login('work');
    const before = world.requests.length;
    for (const [flag, ...value] of [['--sandbox'], ['--base-url', world.sandbox.url]]) {
      expectFailure(await gymctl(['auth', 'status', '--all', flag!, ...value]), 2, new RegExp(`--all checks every stored profile .*cannot be used with ${flag}`));
    }
    expect(world.requests.length).toBe(before);
  });

  it('auth status --all on a narrow terminal: the long statuses give way, the base URL and the headers stay whole', async () => {
    await login('work');
    await login('audit', DEMO_KEY_NO_ACADEMIES);
    await settingsOnlyProfile();
    // 118 columns wide in full: 18 must go.
    const table = await inProcess(['auth', 'status', '--all'], { configDir: world.config.dir, env: { GYMCTL_PROFILE: 'work', NO_COLOR: '1' }, stdoutTTY: true, columns: 100 });
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
    const rows = boxRows(table.stdout);
    expect(rows[0]).toEqual(['Active', 'Profile', 'Base URL', 'Key', 'Kept in', 'Status']);
    expect(rows.slice(1).map((row) => row.slice(0, 5))).toEqual([
      ['', 'audit', world.sandbox.url, '****mies', 'config'],
      ['', 'settings-only', '-', '-', 'config'],
      ['*', 'work', world.sandbox.url, '****mies', 'config'],
    ]);
    expect(rows[1]![5]).toMatch(/^ok: Sam Okafor <.+…$/);
    expect(rows[3]![5]).toMatch(/^ok: Rita Moreira <.+…$/);
  });

  it('auth status --all at 80 and 60 columns: the status sentence gives way before a base URL, and a cut base URL keeps its port', async () => {
    const second = await startSandbox();
    try {
      await login('work');
      await gymctl(['auth', 'login', '--with-key', '--base-url', second.url, '--profile', 'audit'], { stdin: DEMO_KEY_NO_ACADEMIES });
      const cells = async (columns: number) => {
        const table = await inProcess(['auth', 'status', '--all'], { configDir: world.config.dir, env: { GYMCTL_PROFILE: 'work', NO_COLOR: '1' }, stdoutTTY: true, columns });
        expect(table.code, table.stderr).toBe(0);
        const lines = table.stdout.trimEnd().split('\n');
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
        return boxRows(table.stdout);
      };
      const wide = await cells(80);
      expect(wide[0]).toEqual(['Active', 'Profile', 'Base URL', 'Key', 'Kept in', 'Status']);
      expect(wide.slice(1).map((row) => row[2])).toEqual([second.url, world.sandbox.url]);
      expect(wide[2]![5]).toMatch(/^ok: Rita M.*…$/);
      const narrow = await cells(60);
      expect(narrow[0]).toEqual(['Active', 'Profile', 'Base URL', 'Key', 'Kept in', 'Status']);
      // Cut at its start, a base URL still ends in its port: the part that tells the two profiles apart.
      const port = (url: string) => `:${new URL(url).port}`;
      expect(narrow[1]![2]).toMatch(/^….+/);
      expect(narrow[1]![2]!.endsWith(port(second.url))).toBe(true);
      expect(narrow[2]![2]!.endsWith(port(world.sandbox.url))).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('auth status --all fails when a stored key is refused', async () => {
    await login('work');
    mkdirSync(world.config.dir, { recursive: true });
    const file = path.join(world.config.dir, 'config.json');
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    stored.profiles.revoked = { apiKey: 'revoked_key_123456', baseUrl: world.sandbox.url };
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    const result = await gymctl(['auth', 'status', '--all']);
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/^false\trevoked\t.*\t\*\*\*\*3456\tconfig\tfailed: Unauthorized/m);
    expect(result.stdout).not.toContain('revoked_key_123456');
  });

  it('logging out of a profile keeps its other settings', async () => {
    await login('work');
    await gymctl(['config', 'set', 'format', 'csv', '--profile', 'work']);
    expect((await gymctl(['auth', 'logout', '--profile', 'work'])).code).toBe(0);
    const stored = JSON.parse(readFileSync(path.join(world.config.dir, 'config.json'), 'utf8'));
    expect(stored.profiles.work).toEqual({ baseUrl: world.sandbox.url, format: 'csv' });
  });
});

describe('help', () => {
  const commands = [
    ['whoami'],
    ['academy'],
    ['academies'],
    ['family'],
    ['auth'],
    ['auth', 'login'],
    ['auth', 'status'],
    ['auth', 'logout'],
    ['config'],
    ['config', 'list'],
    ['config', 'get'],
    ['config', 'set'],
    ['config', 'unset'],
    ['config', 'path'],
    ['api'],
    ['schema'],
    ['completion'],
    ['sandbox'],
    ['help'],
  ];
  it('every command ends its --help with 2 or 3 real examples', async () => {
    const results = await Promise.all(commands.map((command) => gymctl([...command, '--help'])));
    results.forEach((result, i) => {
      expect(result.code, commands[i]!.join(' ')).toBe(0);
      const examples = result.stdout.split('\nExamples:\n')[1];
      expect(examples, commands[i]!.join(' ')).toBeDefined();
      const lines = examples!.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.length).toBeLessThanOrEqual(3);
      for (const line of lines) expect(line).toMatch(/^ {2}\$ (gymctl|seq|source|chmod) /);
    });
  });

  it('the examples run: each one with gymctl and --sandbox or no network works as written', async () => {
    const result = await gymctl(['academy', '1', '2', '3', '--json', '--sandbox']);
    expect(JSON.parse(result.stdout)).toHaveLength(3);
  });

  it('help exit-codes and help environment print their tables', async () => {
    const codes = await gymctl(['help', 'exit-codes']);
    expect(codes.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '5', '6', '130']) expect(codes.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
    const environment = await gymctl(['help', 'environment']);
    for (const name of ['GYMCTL_API_KEY', 'GYMCTL_BASE_URL', 'GYMCTL_PROFILE', 'GYMCTL_CONFIG_DIR', 'NO_COLOR', 'HTTPS_PROXY']) {
      expect(environment.stdout).toContain(name);
    }
  });

  it('help exit-codes and help environment wrap to the terminal, between words, continuing under their second column', async () => {
    for (const topic of ['exit-codes', 'environment']) {
      const wide = await inProcess(['help', topic], { configDir: world.config.dir });
      for (const columns of [60, 80, 120]) {
        const { stdout } = await inProcess(['help', topic], { configDir: world.config.dir, stdoutTTY: true, columns });
        for (const line of stdout.split('\n')) expect(line.length, `${topic} at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
        // The same words in the same order: none cut.
        expect(stdout.split(/\s+/).join(' ')).toBe(wide.stdout.split(/\s+/).join(' '));
      }
      const narrow = await inProcess(['help', topic], { configDir: world.config.dir, stdoutTTY: true, columns: 60 });
      // A continued row starts under the second column, not at the margin.
      const continued = narrow.stdout.split('\n').filter((line) => /^ {6,}\S/.test(line));
      expect(continued.length).toBeGreaterThan(0);
    }
  });

  it('help environment: every row is a name and its meaning, and each continued line starts under the meanings', async () => {
    const { HELP_TOPICS } = await import('../../src/commands/help-topics.js');
    const rows = HELP_TOPICS.environment.split('\n').filter((line) => /^ {2}\S/.test(line));
    const column = /^ {2}\S+ {2,}/.exec(rows[0]!)![0].length;
    // A name alone on its line (too long for the column) has its meaning on the next, under the column.
    for (const row of rows) expect(row, row).toMatch(/^ {2}\S+(?: {2,}|$)/);
    for (const row of rows) if (/ {2}\S/.test(row.slice(2))) expect(/^ {2}\S+ +/.exec(row)![0].length, row).toBe(column);
    for (const columns of [60, 80]) {
      const { stdout } = await inProcess(['help', 'environment'], { configDir: world.config.dir, stdoutTTY: true, columns });
      const table = stdout.split('\n\n')[1]!.split('\n');
      for (const line of table) if (!/^ {2}\S/.test(line)) expect(line, `at ${columns}: ${line}`).toMatch(new RegExp(`^ {${column}}\\S`));
    }
  });

  it("help <command> shows that command's help; an unknown topic is a usage error", async () => {
    expect((await gymctl(['help', 'auth', 'login'])).stdout).toContain('Usage: gymctl auth login');
    expectFailure(await gymctl(['help', 'exit-code']), 2, /no help for "exit-code"/);
  });

  it('an unknown command suggests the closest one', async () => {
    expectFailure(await gymctl(['acadmy', '1']), 2, /unknown command 'acadmy' \(Did you mean academy\?\)/);
  });
});

describe('gymctl api', () => {
  it('prints the body exactly as received', async () => {
    const result = await gymctl(['api', '/academies/1'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(JSON.stringify({ data: DEMO_DATA.academies[0] }));
    const sandboxed = await gymctl(['api', '/me', '--sandbox']);
    expect(JSON.parse(sandboxed.stdout).data.id).toBe(101);
  });

  it('failures keep the usual exit codes, with status and correlation ID on stderr', async () => {
    expectFailure(await gymctl(['api', '/academies/999'], { env: env() }), 3, /GET \/academies\/999: Resource not found \(HTTP 404, correlation ID/);
    expectFailure(await gymctl(['api', '/nowhere'], { env: env() }), 3, /HTTP 404/);
    expectFailure(await gymctl(['api', '/me'], { env: env('nope_nope_nope') }), 4, /HTTP 401/);
  });

  for (const bad of [
    'me',
    '//evil.example/me',
    'https://evil.example/me',
    '/../me',
    '/academies/%2e%2e/me',
    '/a/./b',
    '/me#x',
    '/a b',
    '/a\\b',
    '/x/..%2f..%2fadmin',
    '/%5c..%5cx',
    // Disguised: Tomcat and Spring read `..;` as `..`; servers that decode twice; fullwidth dots that NFKC makes `..`.
    '/..;/admin',
    '/academies/..;jsessionid=x/admin',
    '/%252e%252e/admin',
    '/%25252e%25252e/admin',
    '/\uff0e\uff0e/admin',
    '/%EF%BC%8E%EF%BC%8E/admin',
    '/\u2024\u2024/admin',
  ]) {
    it(`refuses ${JSON.stringify(bad)} before sending anything`, async () => {
      expectFailure(await gymctl(['api', bad], { env: env() }), 2, /invalid API path/);
      expect(world.requests).toEqual([]);
    });
  }
});

describe('gymctl api paths beyond ASCII, and long ones', () => {
  it('a path with characters beyond ASCII is sent percent-encoded, not refused with a misleading connection error', async () => {
    const result = await gymctl(['api', '/academies/café'], { env: env() });
    expect(result.stderr).not.toContain('ERR_UNESCAPED_CHARACTERS');
    expect(result.stderr).not.toContain('connection');
    expect(world.requests.at(-1)).toContain('/academies/caf%C3%A9');
  });

  it('a 100 KB path is clipped in the message, not echoed whole', async () => {
    const result = await gymctl(['api', `/${'a'.repeat(100_000)}/..`], { env: env() });
    expectFailure(result, 2, /invalid API path/);
    expect(result.stderr.length).toBeLessThan(400);
  });
});

describe('schemas and OpenAPI, from the zod schemas', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The document's formats are asserted, not only its patterns and ranges: e-mail addresses, URLs, the time-ordered correlation IDs.
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);

  it("gymctl schema <command> prints a JSON Schema that the command's --json output meets", async () => {
    for (const [name, args] of [
      ['whoami', ['whoami']],
      ['academy', ['academy', '4']],
      ['family', ['family', '530']],
    ] as const) {
      const schema = await gymctl(['schema', name]);
      expect(schema.code).toBe(0);
      const parsed = JSON.parse(schema.stdout);
      expect(parsed.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      const validate = ajv.compile(parsed);
      const output = JSON.parse((await gymctl([...args, '--json'], { env: env() })).stdout);
      expect(validate(output), JSON.stringify(validate.errors)).toBe(true);
      expect(validate({ ...(Array.isArray(output) ? {} : output), id: 'not an integer' })).toBe(false);
    }
    expectFailure(await gymctl(['schema', 'sandbox']), 2, /no schema for "sandbox"/);
  });

  it('every sandbox response meets the OpenAPI description shipped in the package', async () => {
    const openapi = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'openapi.json'), 'utf8'));
    expect(openapi.openapi).toBe('3.1.0');
    ajv.addSchema({ $id: 'openapi', components: openapi.components });
    const responseSchema = (template: string, status: number) => {
      const { responses } = openapi.paths[template].get;
      const schema = (responses[String(status)] ?? responses.default).content['application/json'].schema;
      return ajv.compile({ ...JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"openapi#/components')) });
    };
    const calls: Array<[string, string, string | undefined]> = [
      ['/me', '/me', DEMO_KEY],
      ['/me', '/me', DEMO_KEY_NO_ACADEMIES],
      ['/me', '/me', undefined],
      ...DEMO_DATA.academies.map((a): [string, string, string] => ['/academies/{academyId}', `/academies/${a.id}`, DEMO_KEY]),
      ['/academies/{academyId}', '/academies/999', DEMO_KEY],
      ...DEMO_DATA.members.map((m): [string, string, string] => ['/members/{memberId}/family', `/members/${m.id}/family`, DEMO_KEY]),
      ['/members/{memberId}/family', '/members/1/family', DEMO_KEY],
    ];
    const statuses = new Set<number>();
    for (const [template, url, key] of calls) {
      const response = await fetch(`${world.sandbox.url}${url}`, { headers: key ? { 'X-API-Key': key } : {} });
      statuses.add(response.status);
      const validate = responseSchema(template, response.status);
      const body = await response.json();
      expect(validate(body), `${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect([...statuses].sort()).toEqual([200, 401, 404]);
    // An error the document does not list by status still has the error body (its `default`).
    const refused = await fetch(`${world.sandbox.url}/me`, { method: 'POST', headers: { 'X-API-Key': DEMO_KEY } });
    expect(refused.status).toBe(405);
    const validate = responseSchema('/me', 405);
    expect(validate(await refused.json()), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ message: 'Method not allowed' })).toBe(false);
  });
});

describe('colour', () => {
  let tty: Record<string, string>;
  beforeEach(() => {
    tty = { ...env(), GYMCTL_FORCE_TTY: '1' };
  });
  const bold = '\u001b[1m';
  it('on a terminal tables are coloured unless NO_COLOR, FORCE_COLOR=0 or --no-color says otherwise', async () => {
    expect((await gymctl(['family', '501'], { env: tty })).stdout).toContain(bold);
    expect((await gymctl(['family', '501'], { env: { ...tty, NO_COLOR: '1' } })).stdout).not.toContain('\u001b');
    expect((await gymctl(['family', '501'], { env: { ...tty, FORCE_COLOR: '0' } })).stdout).not.toContain('\u001b');
    expect((await gymctl(['family', '501', '--no-color'], { env: { ...tty, FORCE_COLOR: '1' } })).stdout).not.toContain('\u001b');
    expect((await gymctl(['family', '501'], { env: { ...tty, NO_COLOR: '1', FORCE_COLOR: '1' } })).stdout).not.toContain('\u001b');
  });

  it('FORCE_COLOR colours a terminal-style table even where colour would be off by default (TERM=dumb)', async () => {
    expect((await gymctl(['family', '501'], { env: { ...tty, TERM: 'dumb' } })).stdout).not.toContain('\u001b');
    expect((await gymctl(['family', '501'], { env: { ...tty, TERM: 'dumb', FORCE_COLOR: '1' } })).stdout).toContain(bold);
  });
});
