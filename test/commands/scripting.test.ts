/**
 * gymctl in scripts: batches, ids on stdin, every output format, partial
 * failure, and `academies`, in-process against the sandbox (or a small
 * scripted server) on loopback. Pipes that close early are in
 * test/e2e/pipes.test.ts: only a real process shows them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY, DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { useSandboxAndConfig } from '../helpers/world.js';
import type { RunOptions } from '../helpers/cli.js';
import { gymctl as inProcess } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

const world = useSandboxAndConfig();

const env = (key = DEMO_KEY) => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: key });
const gymctl = (args: string[], options: RunOptions = {}) =>
  inProcess(args, { configDir: world.config.dir, env: { ...env(), ...options.env }, ...(options.stdin !== undefined ? { stdin: options.stdin } : {}) });
const academy = (id: number) => DEMO_DATA.academies.find((a) => a.id === id)!;
const family = (ids: number[]) => DEMO_DATA.members.filter((m) => ids.includes(Number(m.id)));
/** The `id` of each line of ndjson output. */
const ndjsonIds = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line).id);

/** A small RFC 4180 reader, to check what a spreadsheet would read. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field, 'every record ends with CRLF').toBe('');
  return rows;
}

describe('batches of ids', () => {
  it('several ids print in argument order: a tab-separated table, a JSON array, ndjson lines', async () => {
    const table = await gymctl(['academy', '3', '1', '2']);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'id\tname\tcurrency\temail\tphone\taddress.line1\taddress.line2\taddress.city\taddress.state\taddress.postalCode\taddress.country\tcoordinates.lat\tcoordinates.lng\tfranchiseId\tlogoUrl\tcreatedAt',
    );
    expect(lines.slice(1).map((line) => line.split('\t').slice(0, 3))).toEqual([
      ['3', 'Shoreditch Martial Arts', 'GBP'],
      ['1', 'Alfama Jiu-Jitsu', 'EUR'],
      ['2', 'Eastside Grappling Club', 'USD'],
    ]);
    const json = await gymctl(['academy', '3', '1', '2', '--json']);
    expect(json.stdout).toBe(`${JSON.stringify([academy(3), academy(1), academy(2)], null, 2)}\n`);
    const ndjson = await gymctl(['academy', '3', '1', '--format', 'ndjson']);
    expect(ndjson.stdout).toBe(`${JSON.stringify(academy(3))}\n${JSON.stringify(academy(1))}\n`);
  });

  it('one id gives the object; - gives an array even for one id', async () => {
    expect(JSON.parse((await gymctl(['academy', '2', '--json'])).stdout)).toEqual(academy(2));
    expect(JSON.parse((await gymctl(['academy', '-', '--json'], { stdin: '2\n' })).stdout)).toEqual([academy(2)]);
  });

  it('- reads ids from stdin: any white space, blank lines and # comments skipped, mixed with arguments', async () => {
    const result = await gymctl(['academy', '4', '-', '1', '--format', 'ndjson'], { stdin: '# academies to check\n2 3\n\n\t1   # Lisbon\n' });
    expect(result.code, result.stderr).toBe(0);
    expect(ndjsonIds(result.stdout)).toEqual([4, 2, 3, 1, 1]);
  });

  it('an invalid id on stdin or in the arguments exits 2 before any request', async () => {
    for (const [args, stdin] of [
      [['academy', '-'], '1\n2\nthree\n'],
      [['academy', '1', '-'], '0x2\n'],
      [['academy', '1', 'abc', '2'], ''],
      [['academy', '-', '-'], '1\n'],
    ] as const) {
      const result = await gymctl([...args], { stdin });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
    }
    expect(world.requests).toEqual([]);
  });

  it('1,000 ids through stdin stream out as 1,000 ndjson lines, in order', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => (i % 4) + 1);
    const result = await gymctl(['academy', '-', '--format', 'ndjson'], { stdin: ids.join('\n') });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1000);
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(ids);
    expect(lines[0]).toBe(JSON.stringify(academy(1)));
  });

  it('the same input gives the same bytes', async () => {
    const args = ['academy', '-', '--format', 'csv'];
    const stdin = '4 3 2 1 2 3 4\n';
    const [a, b] = await Promise.all([gymctl(args, { stdin }), gymctl(args, { stdin })]);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout.length).toBeGreaterThan(0);
  });

  it('--concurrency must be a whole number from 1 to 64', async () => {
    for (const bad of ['0', '65', 'lots']) {
      const result = await gymctl(['academy', '1', '--concurrency', bad]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/invalid --concurrency/);
    }
  });
});

describe('batches against a scripted server', () => {
  let server: http.Server;
  let url: string;
  let active = 0;
  let peak = 0;
  let connections = 0;
  let handler: (id: number, response: http.ServerResponse) => void;
  const body = (id: number) => JSON.stringify({ data: { ...academy(1), id } });
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const id = Number(/\/academies\/(\d+)/.exec(request.url ?? '')?.[1]);
      peak = Math.max(peak, ++active);
      response.on('close', () => active--);
      handler(id, response);
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    peak = 0;
    connections = 0;
  });
  const scripted = (args: string[], options: RunOptions = {}) => gymctl(args, { ...options, env: { GYMCTL_BASE_URL: url, ...options.env } });

  it('runs --concurrency world.requests at once over that many kept-alive connections', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    // Answers are held until four requests are in at once (or the last of the 40 is in), then all held go: the requests
    // overlap by construction, not by a delay a loaded machine could outlast. A client that never has four in flight
    // never gets its answers, and the test's ceiling ends it.
    let received = 0;
    const held: Array<() => void> = [];
    const release = () => {
      for (const answer of held.splice(0)) answer();
    };
    handler = (id, response) => {
      received++;
      held.push(() => response.end(body(id)));
      if (active >= 4 || received === ids.length) release();
    };
    const result = await scripted(['academy', '-', '--format', 'ndjson', '--concurrency', '4'], { stdin: ids.join(' ') });
    expect(result.code, result.stderr).toBe(0);
    expect(ndjsonIds(result.stdout)).toEqual(ids);
    expect(peak).toBe(4);
    expect(connections).toBeLessThanOrEqual(4);
  });

  it('partial failure: successes printed, each failure on stderr naming its id, exit code of the first in argument order', async () => {
    // 11 fails late with a 503, once 12's failure (a 404 at once) has been reported; 10 and 13 succeed.
    let late: (() => void) | undefined;
    handler = (id, response) => {
      if (id === 11) late = () => response.writeHead(503).end(JSON.stringify({ message: 'down', correlationId: 'c-11' }));
      else if (id === 12) response.writeHead(404).end(JSON.stringify({ message: 'Resource not found', correlationId: 'c-12' }));
      else response.end(body(id));
    };
    const scriptedLate = (args: string[]) =>
      inProcess(args, {
        configDir: world.config.dir,
        env: { ...env(), GYMCTL_BASE_URL: url },
        // 11 is answered once stderr names 12 (or at the ceiling, and the order below fails).
        started: (streams) =>
          void waitFor('the failure of 12 on stderr', () => /academy 12:|"id":12\b/.test(streams.stderr()) && late !== undefined)
            .catch(() => {})
            .then(() => late?.()),
      });
    const text = await scriptedLate(['academy', '10', '11', '12', '13', '--retries', '0']);
    expect(text.code).toBe(5);
    expect(
      text.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(['id', '10', '13']);
    expect(text.stderr).toBe(
      'gymctl: academy 12: Resource not found (HTTP 404, correlation ID c-12)\ngymctl: academy 11: the server is unavailable: down (HTTP 503, correlation ID c-11)\n',
    );

    for (const format of ['json', 'ndjson', 'csv']) {
      const result = await scriptedLate(['academy', '10', '11', '12', '13', '--format', format, '--retries', '0']);
      expect(result.code).toBe(5);
      const errors = result.stderr
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).error);
      expect(errors).toEqual([
        { message: 'Resource not found', correlationId: 'c-12', status: 404, kind: 'not_found', id: 12 },
        { message: 'down', correlationId: 'c-11', status: 503, kind: 'unavailable', id: 11 },
      ]);
      expect(result.stdout).toMatch(/"id": ?10[\s\S]*"id": ?13|^10,[\s\S]*\r\n13,/m);
    }
  });

  it('--ignore-not-found skips ids the API does not know, says so only at a terminal, and exits 0; other failures keep their code', async () => {
    handler = (id, response) => {
      if (id === 11) response.writeHead(503).end(JSON.stringify({ message: 'down', correlationId: 'c-11' }));
      else if (id === 12 || id === 14) response.writeHead(404).end(JSON.stringify({ message: 'Resource not found', correlationId: `c-${id}` }));
      else response.end(body(id));
    };
    const skipped = await scripted(['academy', '10', '12', '13', '14', '--format', 'ndjson', '--ignore-not-found']);
    expect(skipped).toMatchObject({ code: 0, stderr: '' });
    expect(ndjsonIds(skipped.stdout)).toEqual([10, 13]);
    // At a terminal, a note a skipped id; stdout is unchanged.
    const noted = await inProcess(['academy', '10', '12', '13', '--format', 'ndjson', '--ignore-not-found'], {
      configDir: world.config.dir,
      env: { ...env(), GYMCTL_BASE_URL: url },
      stderrTTY: true,
    });
    expect(noted.code).toBe(0);
    // Where errors are JSON lines, so is the note, under its own key: it is no failure.
    expect(JSON.parse(noted.stderr)).toEqual({ skipped: { message: 'Resource not found', correlationId: 'c-12', status: 404, kind: 'not_found', id: 12 } });
    expect(ndjsonIds(noted.stdout)).toEqual([10, 13]);
    // And text where errors are text.
    const text = await inProcess(['academy', '10', '12', '13', '--ignore-not-found'], { configDir: world.config.dir, env: { ...env(), GYMCTL_BASE_URL: url }, stderrTTY: true });
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('gymctl: skipped academy 12: Resource not found (HTTP 404, correlation ID c-12)\n');
    // A 503 is still a failure, with its code, even after a skipped 404.
    const failing = await scripted(['academy', '12', '11', '13', '--ignore-not-found', '--retries', '0', '--format', 'ndjson']);
    expect(failing.code).toBe(5);
    expect(ndjsonIds(failing.stdout)).toEqual([13]);
    expect(failing.stderr).toContain('"status":503');
    expect(failing.stderr).not.toContain('404');
    // Every id absent: an empty, successful result, with its frame.
    expect(await scripted(['academy', '12', '14', '--json', '--ignore-not-found'])).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(await scripted(['academy', '12', '--json', '--ignore-not-found'])).toMatchObject({ code: 0, stdout: '' });
    // Without the flag, a 404 is exit 3 as ever.
    expect((await scripted(['academy', '10', '12', '--format', 'ndjson'])).code).toBe(3);
    // With --slurp, the absent ids are simply not in the array.
    expect(await scripted(['academy', '10', '12', '13', '--slurp', '--jq', 'map(.id)', '--ignore-not-found'])).toMatchObject({ code: 0, stdout: '[10,13]\n' });
  });

  it('when every id fails, stdout stays empty', async () => {
    handler = (_id, response) => response.writeHead(404).end(JSON.stringify({ message: 'Resource not found', correlationId: 'x' }));
    for (const format of ['json', 'csv', 'table']) {
      const result = await scripted(['academy', '1', '2', '--format', format]);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
    }
  });

  it('csv columns do not depend on which fields the first row has', async () => {
    handler = (id, response) => response.end(id === 1 ? JSON.stringify({ data: { id: 1, name: 'Bare' } }) : body(id));
    const result = await scripted(['academy', '1', '2', '--format', 'csv']);
    const rows = parseCsv(result.stdout);
    expect(rows[0]).toHaveLength(16);
    expect(rows[0]!.slice(5, 8)).toEqual(['address.line1', 'address.line2', 'address.city']);
    expect(rows[1]).toEqual(['1', 'Bare', ...Array(14).fill('')]);
    expect(rows[2]![7]).toBe('Lisboa');
  });
});

describe('tab-separated lines keep their shape', () => {
  const header = (stdout: string) => stdout.split('\n')[0]!;
  const csvHeader = (stdout: string) => stdout.split('\r\n')[0]!.split(',');

  it('the columns do not depend on how many ids were given, and are those of CSV', async () => {
    const one = await gymctl(['academy', '1']);
    const two = await gymctl(['academy', '1', '2']);
    const stdin = await gymctl(['academy', '-'], { stdin: '1\n' });
    const all = await gymctl(['academies']);
    const csv = await gymctl(['academy', '1', '--format', 'csv']);
    expect(header(one.stdout)).toBe(header(two.stdout));
    expect(header(stdin.stdout)).toBe(header(one.stdout));
    expect(header(all.stdout)).toBe(header(one.stdout));
    expect(header(one.stdout).split('\t')).toEqual(csvHeader(csv.stdout));
    // The single id's line is the batch's first line, field for field.
    expect(one.stdout.split('\n')[1]).toBe(two.stdout.split('\n')[1]);
    const familyOne = await gymctl(['family', '530']);
    const familyTwo = await gymctl(['family', '530', '502']);
    expect(header(familyOne.stdout)).toBe(header(familyTwo.stdout));
    expect(header(familyOne.stdout).split('\t')).toEqual(csvHeader((await gymctl(['family', '530', '--format', 'csv'])).stdout));
  });

  it('every header name is a name --columns takes, and gives back the same cells', async () => {
    for (const args of [['whoami'], ['academy', '1', '2'], ['family', '530']]) {
      const full = await gymctl(args);
      const names = header(full.stdout).split('\t');
      const picked = await gymctl([...args, '--columns', names.join(',')]);
      expect(picked.code, picked.stderr).toBe(0);
      expect(picked.stdout).toBe(full.stdout);
      const city = names.indexOf('address.city');
      if (city === -1) continue;
      const cities = await gymctl([...args, '--columns', 'address.city']);
      expect(cities.stdout.trimEnd().split('\n')).toEqual(
        full.stdout
          .trimEnd()
          .split('\n')
          .map((line) => line.split('\t')[city]),
      );
    }
  });

  it('a list is joined with ; in tab-separated lines and in CSV alike', async () => {
    const tsv = await gymctl(['whoami', '--columns', 'academyIds', '--no-headers']);
    const csv = await gymctl(['whoami', '--columns', 'academyIds', '--no-headers', '--format', 'csv']);
    expect(tsv.stdout).toBe('1;2;3;4\n');
    expect(csv.stdout).toBe('1;2;3;4\r\n');
  });
});

describe('formats of the other commands', () => {
  it('family --ignore-not-found: an unknown member is skipped, with one id or several', async () => {
    const several = await gymctl(['family', '501', '99999', '--format', 'ndjson', '--ignore-not-found']);
    expect(several).toMatchObject({ code: 0, stderr: '' });
    expect(
      new Set(
        several.stdout
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line).familyOf),
      ),
    ).toEqual(new Set([501]));
    expect(await gymctl(['family', '99999', '--json', '--ignore-not-found'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await gymctl(['family', '99999', '--format', 'csv', '--ignore-not-found', '--columns', 'familyOf,id'])).toMatchObject({ code: 0, stdout: 'familyOf,id\r\n' });
    expect((await gymctl(['family', '99999', '--json'])).code).toBe(3);
    // In JSON, an array for each id in argument order, an empty family in its place, a failed id's left out (as docs/commands.md says).
    const arrays = await gymctl(['family', '501', '99999', '520', '510', '--json']);
    expect(arrays.code).toBe(3);
    expect((JSON.parse(arrays.stdout) as Array<Array<{ id: number }>>).map((family) => family.map((member) => member.id))).toEqual([[502, 503], [], [511]]);
    const noted = await inProcess(['family', '99999', '--ignore-not-found'], { configDir: world.config.dir, env: env(), stderrTTY: true });
    expect(noted.code).toBe(0);
    expect(noted.stderr).toMatch(/^gymctl: skipped member 99999: Resource not found \(HTTP 404/);
    // It is an option of the commands that fetch by id, not of whoami.
    expect((await gymctl(['whoami', '--ignore-not-found'])).code).toBe(2);
  });
  it('family in ndjson is one member a line, with familyOf first, as in a batch', async () => {
    const result = await gymctl(['family', '530', '--format', 'ndjson']);
    expect(result.stdout).toBe(
      family([531, 532, 533, 534])
        .map((m) => `${JSON.stringify({ familyOf: 530, ...m })}\n`)
        .join(''),
    );
  });

  it('csv quotes names with commas, quotes and line breaks as RFC 4180 says', async () => {
    const result = await gymctl(['family', '552', '--format', 'csv']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"Ana, ""Nana"""');
    expect(result.stdout).toContain('"Line\nBreak","Smith, Jr."');
    const rows = parseCsv(result.stdout);
    expect(rows[0]).toEqual(['familyOf', 'id', 'academyId', 'firstName', 'lastName', 'photoUrl.thumbnail', 'photoUrl.large', 'primaryFamilyMember']);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[3], r[4], r[7]])).toEqual(
      family([550, 551]).map((m) => ['552', String(m.id), m.firstName, m.lastName, String(m.primaryFamilyMember)]),
    );
  });

  it('whoami in csv flattens the owner and joins the academy ids', async () => {
    const result = await gymctl(['whoami', '--format', 'csv']);
    expect(result.stdout).toBe('id,name,academyIds,user.id,user.name,user.email\r\n101,Front desk (demo),1;2;3;4,9001,Rita Moreira,rita.moreira@example.com\r\n');
  });

  it('--format is checked, and --json with another --format is refused', async () => {
    expect((await gymctl(['whoami', '--format', 'yaml'])).code).toBe(2);
    expect((await gymctl(['whoami', '--json', '--format', 'csv'])).code).toBe(2);
    expect(world.requests).toEqual([]);
  });

  it('the format can be stored in the profile, and a flag overrides it', async () => {
    expect((await gymctl(['config', 'set', 'format', 'ndjson'])).code).toBe(0);
    expect((await gymctl(['academy', '1', '2'])).stdout.trimEnd().split('\n')).toHaveLength(2);
    expect((await gymctl(['academy', '1', '--format', 'table'])).stdout).toMatch(/^id\tname\t/);
  });
});

describe('academies', () => {
  it('prints every academy of the key, in the order of academyIds', async () => {
    const table = await gymctl(['academies']);
    expect(
      table.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t').slice(0, 2).join(' ')),
    ).toEqual(['id name', '1 Alfama Jiu-Jitsu', '2 Eastside Grappling Club', '3 Shoreditch Martial Arts', '4 Shibuya Judo Dojo']);
    const json = await gymctl(['academies', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([1, 2, 3, 4].map(academy));
    expect(world.requests.filter((line) => line.startsWith('GET /me'))).toHaveLength(2);
  });

  it('an empty scope is a sentence on stderr for people, a header in a pipe, [] in JSON, and exit 0', async () => {
    const noScope = { env: { GYMCTL_API_KEY: DEMO_KEY_NO_ACADEMIES } };
    expect(await gymctl(['academies'], noScope)).toMatchObject({
      code: 0,
      stdout:
        'id\tname\tcurrency\temail\tphone\taddress.line1\taddress.line2\taddress.city\taddress.state\taddress.postalCode\taddress.country\tcoordinates.lat\tcoordinates.lng\tfranchiseId\tlogoUrl\tcreatedAt\n',
    });
    expect(await gymctl(['academies', '--json'], noScope)).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(await gymctl(['academies', '--format', 'ndjson'], noScope)).toMatchObject({ code: 0, stdout: '' });
    expect(await gymctl(['academies', '--format', 'csv'], noScope)).toMatchObject({ code: 0 });
    const tty = await gymctl(['academies', '--no-color'], { env: { ...noScope.env, GYMCTL_FORCE_TTY: '1' } });
    expect(tty).toMatchObject({ code: 0, stdout: '', stderr: 'The key "Reporting, unscoped (demo)" is scoped to no academies.\n' });
    // With no id at a terminal, nothing to choose from: not found, said as the rest of gymctl's messages are.
    const picker = await inProcess(['academy'], { configDir: world.config.dir, env: { ...env(), ...noScope.env }, stdinTTY: true, stdoutTTY: true });
    expect(picker).toMatchObject({ code: 3, stdout: '', stderr: 'gymctl: the key "Reporting, unscoped (demo)" is scoped to no academies, so there is none to choose\n' });
  });

  it('a refused key fails at GET /me with exit 4', async () => {
    const result = await gymctl(['academies'], { env: { GYMCTL_API_KEY: 'nope_nope_nope' } });
    expect(result).toMatchObject({ code: 4, stdout: '' });
  });
});
