/**
 * --jq, --columns and --no-headers, in-process against the sandbox (or a
 * small server that sends numbers jq ports would rewrite).
 */
import { describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions, tabDeadline } from '../helpers/harness.js';
import { httpServer } from '../helpers/servers.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();

const gymctl = (args: string[], options: GymctlOptions = {}) =>
  inProcess(args, { configDir: world.config.dir, ...options, env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY, ...options.env } });

const names = (ids: number[]) => ids.map((id) => DEMO_DATA.academies.find((a) => a.id === id)!.name);

describe('--jq', () => {
  it('filters one record; a string prints raw, anything else as compact JSON, one result a line', async () => {
    expect((await gymctl(['academy', '1', '--jq', '.name'])).stdout).toBe(`${names([1])[0]}\n`);
    expect((await gymctl(['academy', '1', '--jq', '.coordinates'])).stdout).toBe('{"lat":38.7118,"lng":-9.1299}\n');
    expect((await gymctl(['whoami', '--jq', '.academyIds[]'])).stdout).toBe('1\n2\n3\n4\n');
    expect((await gymctl(['whoami', '--jq', 'empty'])).stdout).toBe('');
    // An empty string is a result: an empty line, as jq -r prints it.
    expect((await gymctl(['whoami', '--jq', '""'])).stdout).toBe('\n');
  });

  it('runs on each record of a batch and of ndjson, in argument order', async () => {
    const json = await gymctl(['academy', '2', '1', '--jq', '.name']);
    expect(json.stdout).toBe(`${names([2, 1]).join('\n')}\n`);
    const ndjson = await gymctl(['academies', '--format', 'ndjson', '--jq', '.id']);
    expect(ndjson.stdout).toBe('1\n2\n3\n4\n');
    // family: each member, with its familyOf, in json as in ndjson, for one id as for several.
    const each = '501 502\n501 503\n530 531\n530 532\n530 533\n530 534\n';
    for (const format of ['json', 'ndjson']) {
      const members = await gymctl(['family', '501', '530', '--format', format, '--jq', '"\\(.familyOf) \\(.id)"']);
      expect(members.stdout, format).toBe(each);
    }
    expect((await gymctl(['family', '501', '--jq', '.firstName'])).stdout).toBe('Bruno\nClara\n');
    expect((await gymctl(['family', '520', '--jq', '.'])).stdout).toBe('');
  });

  it("filters gymctl api's body, and the JSON of auth status, config list and schema", async () => {
    expect((await gymctl(['api', '/academies/3', '--jq', '.data.address.city'])).stdout).toBe('London\n');
    expect((await gymctl(['auth', 'status', '--jq', '.keyId'])).stdout).toBe('101\n');
    expect((await gymctl(['config', 'list', '--jq', '.format'])).stdout).toBe('table\n');
    expect((await gymctl(['schema', 'academy', '--jq', '.type'])).stdout).toBe('object\n');
  });

  it('keeps numbers as sent: 38.70 and a 20-digit integer are not rewritten', async () => {
    const body = '{"data":{"id":7,"name":"Big","price":38.70,"ledger":12345678901234567890,"currency":"EUR"}}';
    const url = await httpServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
    const result = await gymctl(['api', '/academies/7', '--jq', '.data | [.price, .ledger]'], { env: { GYMCTL_BASE_URL: url } });
    expect(result.stdout).toBe('[38.70,12345678901234567890]\n');
  });

  it("a filter that does not compile exits 2 with jq's reason, before any request", async () => {
    const result = await gymctl(['academy', '1', '--jq', '.name |||']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // --jq implies --json, so the error is a JSON line as with --json.
    expect(JSON.parse(result.stderr)).toEqual({
      error: { message: "invalid --jq filter: syntax error, unexpected '|' at line 1, column 8", correlationId: null, status: null, kind: 'usage', id: null },
    });
    // Text where the format asked for errors as text: a table with a filter is itself a usage error, said as text.
    expect((await gymctl(['academy', '1', '--format', 'table', '--jq', '.id'])).stderr).toMatch(/^gymctl: --jq filters JSON/);
    expect((await gymctl(['whoami', '--jq', '$nowhere'])).stderr).toContain('$nowhere is not defined');
    expect((await gymctl(['family', '501', '--jq', 'map('])).stderr).toContain('at the end of the filter');
    // Compiled, never run: a filter that would loop for ever on no input is not started.
    expect((await gymctl(['whoami', '--retries', '0', '--jq', 'repeat(.) | .id'], { env: { GYMCTL_BASE_URL: 'http://127.0.0.1:9' } })).code).toBe(5);
    expect(world.requests).toEqual([]);
  });

  it("a filter that fails on the data exits 1 with jq's message and prints nothing", async () => {
    const result = await gymctl(['academy', '1', '--jq', '.name | error("no \\(.)")']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--jq filter failed: no Alfama Jiu-Jitsu');
  });

  it("in a batch, a failure on one record: the others are printed in order, then exit 1 with jq's message", async () => {
    const result = await gymctl(['academy', '1', '2', '3', '--jq', 'if .id == 2 then error("two") else .id end']);
    expect(result.stdout).toBe('1\n3\n');
    expect(result.code).toBe(1);
    // One JSON line, as every error of a batch with --jq (which implies --json).
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { message: '--jq filter failed: two', kind: 'internal' } });
  });

  it('a long batch is filtered in slices, every record once and in order', async () => {
    const ids = Array.from({ length: 1500 }, (_, i) => (i % 4) + 1);
    const result = await gymctl(['academy', '-', '--concurrency', '16', '--jq', '.id'], { stdin: `${ids.join('\n')}\n` });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${ids.join('\n')}\n`);
  });

  it('on a terminal, control characters of a raw string are shown, not sent to it', async () => {
    const body = '{"data":{"id":7,"name":"A\\u001b]0;pwned\\u0007B","currency":"EUR"}}';
    const url = await httpServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
    const tty = await gymctl(['api', '/academies/7', '--jq', '.data.name'], { env: { GYMCTL_BASE_URL: url }, stdoutTTY: true });
    expect(tty.stdout).toBe('A^[]0;pwned^GB\n');
    const pipe = await gymctl(['api', '/academies/7', '--jq', '.data.name'], { env: { GYMCTL_BASE_URL: url } });
    expect(pipe.stdout).toBe('A\u001b]0;pwned\u0007B\n');
  });

  it('implies --json; with a table or csv asked for, or where nothing is JSON, it is a usage error', async () => {
    // A profile that stores csv does not stop --jq.
    expect((await gymctl(['config', 'set', 'format', 'csv'])).code).toBe(0);
    expect((await gymctl(['academy', '1', '--jq', '.id'])).stdout).toBe('1\n');
    world.requests.length = 0;
    for (const args of [['--format', 'table'], ['--format', 'csv'], ['--columns', 'id'], ['--no-headers']]) {
      const result = await gymctl(['academy', '1', '--jq', '.id', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
    const misplaced = await gymctl(['config', 'path', '--jq', '.']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('--jq does not apply to `gymctl config path`');
    expect(world.requests).toEqual([]);
  });
});

describe('--slurp', () => {
  it('runs --jq once over every record of a batch, so a batch can be counted, grouped and summed', async () => {
    expect((await gymctl(['academy', '1', '2', '3', '--slurp', '--jq', 'length'])).stdout).toBe('3\n');
    expect((await gymctl(['academies', '--slurp', '--jq', 'map(.id)'])).stdout).toBe('[1,2,3,4]\n');
    const countries = DEMO_DATA.academies.filter((a) => a.id <= 4).map((a) => a.address?.country);
    const grouped = await gymctl(['academies', '--slurp', '--jq', 'group_by(.address.country) | map({(.[0].address.country): length}) | add']);
    expect(JSON.parse(grouped.stdout)).toEqual(Object.fromEntries([...new Set(countries)].map((c) => [c, countries.filter((x) => x === c).length])));
    // Ids from stdin, in argument order.
    expect((await gymctl(['academy', '-', '--slurp', '--jq', 'map(.id) | add'], { stdin: '3\n1\n' })).stdout).toBe('4\n');
  });

  it('reads what jq -s would of the records: one record is an array of one, a family batch an array of its members', async () => {
    expect((await gymctl(['academy', '1', '--slurp', '--jq', 'map(.name)'])).stdout).toBe(`${JSON.stringify(names([1]))}\n`);
    expect((await gymctl(['family', '501', '--slurp', '--jq', 'length'])).stdout).toBe('2\n');
    for (const format of ['json', 'ndjson']) {
      const grouped = await gymctl(['family', '501', '530', '--format', format, '--slurp', '--jq', 'group_by(.familyOf) | map(length)']);
      expect(grouped.stdout, format).toBe('[2,4]\n');
    }
  });

  it('keeps numbers as sent', async () => {
    const url = await httpServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{"data":{"id":1,"name":"A","coordinates":{"lat":38.70,"lng":-9.10}}}');
    });
    const result = await gymctl(['academy', '1', '1', '--slurp', '--jq', 'map(.coordinates.lat)'], { env: { GYMCTL_BASE_URL: url } });
    expect(result.stdout).toBe('[38.70,38.70]\n');
  });

  it('in a partial failure, runs over the records that arrived and keeps the exit code; when all fail, prints nothing', async () => {
    const partial = await gymctl(['academy', '1', '999', '2', '--slurp', '--jq', 'map(.id)']);
    expect(partial).toMatchObject({ code: 3, stdout: '[1,2]\n' });
    expect(partial.stderr).toContain('999');
    expect(await gymctl(['academy', '998', '999', '--slurp', '--jq', 'length'])).toMatchObject({ code: 3, stdout: '' });
  });

  it('without --jq, or where there are no records, it is a usage error before any request', async () => {
    world.requests.length = 0;
    const alone = await gymctl(['academy', '1', '2', '--slurp']);
    expect(alone).toMatchObject({ code: 2, stdout: '' });
    expect(alone.stderr).toContain('--slurp runs --jq once over every record');
    expect((await gymctl(['academy', '1', '--slurp', '--format', 'csv'])).code).toBe(2);
    const api = await gymctl(['api', '/me', '--slurp', '--jq', '.']);
    expect(api.code).toBe(2);
    expect(api.stderr).toContain('--slurp does not apply to `gymctl api`');
    expect(world.requests).toEqual([]);
  });
});

describe('--columns and --no-headers', () => {
  it('picks and orders the columns of tab-separated lines, with the dotted names of CSV', async () => {
    const result = await gymctl(['academies', '--columns', 'address.city,id,name']);
    expect(result.stdout.split('\n').slice(0, 2)).toEqual(['address.city\tid\tname', `Lisboa\t1\t${names([1])[0]}`]);
  });

  it('picks the columns of CSV, and --no-headers drops its header row', async () => {
    const result = await gymctl(['academy', '1', '2', '--format', 'csv', '--columns', 'name,coordinates.lat', '--no-headers']);
    expect(result.stdout).toBe(`${names([1])[0]},38.7118\r\n${names([2])[0]},30.2626\r\n`);
    const whole = await gymctl(['academy', '1', '--format', 'csv', '--no-headers']);
    expect(whole.stdout.split('\r\n')).toHaveLength(2);
    expect(whole.stdout.startsWith('1,')).toBe(true);
  });

  it('a field the usual table shows keeps its label and layout on a terminal', async () => {
    const card = await gymctl(['whoami', '--columns', 'academyIds,user.email'], { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(card.stdout).toBe('Academies     1, 2, 3, 4\nOwner email   rita.moreira@example.com\n');
    const table = await gymctl(['academies', '--columns', 'id,address.country', '--no-headers'], { stdoutTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(table.stdout).not.toContain('address.country');
    expect(table.stdout.split('\n')[1]).toMatch(/^│ 1 +│ PT +│$/);
    // The list's City and Country are address fields: the same labels under their dotted names.
    const headed = await gymctl(['academies', '--columns', 'address.city,id,address.country'], { stdoutTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(headed.stdout.split('\n')[1]).toMatch(/^│ City +│ ID +│ Country +│$/);
  });

  it('family: familyOf is a column of a batch', async () => {
    const result = await gymctl(['family', '501', '530', '--columns', 'familyOf,firstName', '--no-headers']);
    expect(result.stdout.split('\n')[0]).toBe('501\tBruno');
  });

  it('an unknown name exits 2, lists the valid ones, and sends nothing (not even GET /me)', async () => {
    const result = await gymctl(['academies', '--columns', 'id,nmae']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unknown column "nmae" for --columns: the columns are id, name, currency,');
    expect(result.stderr).toContain('address.city');
    expect((await gymctl(['family', '501', '--columns', 'familyOf,nmae'])).code).toBe(2);
    expect((await gymctl(['whoami', '--columns', 'id,,name'])).code).toBe(2);
    expect(world.requests).toEqual([]);
  });

  it('with json or ndjson, or on a command that prints no table, they are usage errors', async () => {
    for (const args of [
      ['academy', '1', '--json', '--columns', 'id'],
      ['academy', '1', '--format', 'ndjson', '--no-headers'],
      ['api', '/me', '--columns', 'id'],
      ['auth', 'status', '--no-headers'],
    ]) {
      const result = await gymctl(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
    // Picking fields with --jq is the answer to --columns alone: JSON has no header row to leave out.
    const message = async (args: string[]) => JSON.parse((await gymctl(args)).stderr).error.message;
    expect(await message(['academy', '1', '--json', '--columns', 'id'])).toMatch(/not to json \(from --json\): use --jq to pick fields of JSON$/);
    expect(await message(['academy', '1', '--json', '--no-headers'])).toBe('--no-headers applies to table, tab-separated and CSV output, not to json (from --json)');
    expect(world.requests).toEqual([]);
  });

  it('auth status refuses csv and ndjson asked for on the command line, which it printed as text; a stored format is for the record commands', async () => {
    for (const [flag, format] of [
      ['--format', 'csv'],
      ['-o', 'ndjson'],
      ['--output', 'csv'],
    ]) {
      const result = await gymctl(['auth', 'status', flag!, format!]);
      expect(result.code, `${flag} ${format}`).toBe(2);
      expect(result.stdout).toBe('');
      expect(JSON.parse(result.stderr).error.message).toBe(`auth status prints text or JSON, not ${format}: use --json`);
      expect((await gymctl(['auth', 'status', '--all', flag!, format!])).code).toBe(2);
    }
    expect(world.requests).toEqual([]);
    // With --jq, ndjson is JSON all the same.
    expect((await gymctl(['auth', 'status', '--format', 'ndjson', '--jq', '.keyId'])).stdout).toBe('101\n');
    expect((await gymctl(['config', 'set', 'format', 'csv'])).code).toBe(0);
    const stored = await gymctl(['auth', 'status']);
    expect(stored.code).toBe(0);
    expect(stored.stdout).toContain('Key name: Front desk (demo) (id 101)');
  });

  it('--sandbox on a command that does not read the API is a usage error: config set never writes the real config for it', async () => {
    const result = await gymctl(['config', 'set', 'format', 'json', '--sandbox']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--sandbox does not apply to `gymctl config set`');
    expect((await gymctl(['config', 'get', 'format'])).stdout).toBe('table\n');
  });

  it('completion offers the column names of the command, after commas too', async () => {
    const words = async (...typed: string[]) => (await gymctl(['__complete', '--', ...typed])).stdout.split('\n').filter((line) => line && !line.startsWith(':'));
    expect(await words('academy', '1', '--columns', 'address.c')).toEqual(['address.city', 'address.country']);
    expect(await words('family', '501', '--columns', 'id,first')).toEqual(['id,firstName']);
    expect(await words('whoami', '--columns', 'user.')).toEqual(['user.id', 'user.name', 'user.email']);
    expect(await words('academies', '--cache', '')).toEqual(['30s', '5m', '1h', '1d']);
    // A column already chosen is not offered again.
    const afterId = await words('academy', '1', '--columns', 'id,');
    expect(afterId).toContain('id,name');
    expect(afterId).not.toContain('id,id');
    expect(await words('academy', '1', '--columns', 'address.city,name,address.c')).toEqual(['address.city,name,address.country']);
  });
});

describe("Tab: the key's academy ids", () => {
  const candidates = async (env: Record<string, string>, ...typed: string[]) =>
    (await gymctl(['__complete', '--', ...typed], { env })).stdout.split('\n').filter((line) => line && !line.startsWith(':'));
  const api = () => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });

  it('offers each id with its name after a tab, and not those already typed', async () => {
    expect(await candidates(api(), 'academy', '')).toEqual(['1\tAlfama Jiu-Jitsu', '2\tEastside Grappling Club', '3\tShoreditch Martial Arts', '4\tShibuya Judo Dojo']);
    expect((await candidates(api(), 'academy', '1', '3', '')).map((line) => line.split('\t')[0])).toEqual(['2', '4']);
  });

  it('never offers member ids: family sends nothing', async () => {
    world.requests.length = 0;
    expect(await candidates(api(), 'family', '')).toEqual([]);
    expect(world.requests).toEqual([]);
  });

  it('answers from a fresh cache without asking the server', async () => {
    expect((await gymctl(['academies', '--cache', '1h'], { env: api() })).code).toBe(0);
    world.requests.length = 0;
    expect(await candidates(api(), 'academy', '')).toHaveLength(4);
    expect(world.requests).toEqual([]);
  });

  it('prints nothing when the server does not answer within its half second, or there is no key', async () => {
    const silent = await import('node:net').then(({ createServer }) => createServer(() => {}));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      // gymctl's own half second ends the wait: the server never answers, so the deadline comes first by construction.
      tabDeadline('gymctl');
      const port = (silent.address() as { port: number }).port;
      expect(await candidates({ GYMCTL_BASE_URL: `http://127.0.0.1:${port}`, GYMCTL_API_KEY: DEMO_KEY }, 'academy', '')).toEqual([]);
      expect(await candidates({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: '' }, 'academy', '')).toEqual([]);
    } finally {
      silent.close();
    }
  });
});
