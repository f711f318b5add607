/**
 * What a new user met after the first command: each message names a next
 * step that works as written, a mistyped value gets a suggestion, and what
 * is drawn for a terminal fits it.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions, interruptWhen } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const gymctl = (args: string[], options: GymctlOptions = {}) => inProcess(args, { configDir: world.config.dir, ...options });
const api = () => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });

describe('with no config at all', () => {
  it('whoami and doctor name a login that works as written: `gymctl auth login --base-url URL`', async () => {
    const whoami = await gymctl(['whoami']);
    expect(whoami.code).toBe(4);
    expect(whoami.stderr).toBe('gymctl: no API key for profile "default": run `gymctl auth login --base-url URL` or set GYMCTL_API_KEY (or try --sandbox)\n');
    const doctor = await gymctl(['doctor', '--json']);
    const key = (JSON.parse(doctor.stdout) as Array<{ check: string; fix: string | null }>).find((row) => row.check === 'key');
    expect(key?.fix).toBe('gymctl auth login --base-url URL, or set GYMCTL_API_KEY');
    // With a base URL known, the login needs nothing more.
    const known = await gymctl(['whoami'], { env: { GYMCTL_BASE_URL: world.sandbox.url } });
    expect(known.stderr).toMatch(/run `gymctl auth login` or set GYMCTL_API_KEY/);
    expect(world.requests).toEqual([]);
  });
});

describe('errors in CSV output', () => {
  it('--help says why a CSV run reports errors as JSON lines, as the contract has it', async () => {
    const help = await gymctl(['academy', '--help']);
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    expect(flat(help.stdout)).toContain(
      '--format <format> output format: table, json, ndjson or csv (default table); with json, ndjson and csv, each error is one JSON line on stderr, for the program that reads the output (gymctl help exit-codes)',
    );
    const topic = await gymctl(['help', 'exit-codes']);
    expect(flat(topic.stdout)).toContain('CSV is output for programs (a script, a spreadsheet import), as JSON is: a program reads a failure by its kind and status');
  });

  it('a CSV run at a terminal reports a failure as one JSON line, as --help says', async () => {
    const result = await gymctl(['academy', '999', '--format', 'csv'], { env: api(), stdoutTTY: true, stderrTTY: true });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { kind: 'not_found', status: 404, id: 999 } });
  });
});

describe('a mistyped value gets a suggestion, as a mistyped command does', () => {
  it('--format cvs, config set fromat, config set format cvs and --columns id,nme each name the nearest', async () => {
    const format = await gymctl(['academy', '1', '--format', 'cvs'], { env: api() });
    expect(format).toMatchObject({ code: 2, stdout: '' });
    expect(format.stderr).toBe('gymctl: invalid format "cvs" (from --format): expected one of table, json, ndjson, csv (Did you mean csv?)\n');
    const key = await gymctl(['config', 'set', 'fromat', 'csv']);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/^gymctl: unknown config key "fromat": expected one of base-url, format, .* \(Did you mean format\?\)\n$/);
    const value = await gymctl(['config', 'set', 'format', 'cvs']);
    expect(value.code).toBe(2);
    expect(value.stderr).toMatch(/invalid format "cvs" \(from format\): .*\(Did you mean csv\?\)\n$/);
    const columns = await gymctl(['academy', '1', '--columns', 'id,nme'], { env: api() });
    expect(columns.code).toBe(2);
    expect(columns.stderr).toMatch(/^gymctl: unknown column "nme" for --columns: the columns are id, name, .*, createdAt \(Did you mean name\?\)\n$/);
    // A field's last part alone names the dotted field.
    const city = await gymctl(['academy', '1', '--columns', 'id,city'], { env: api() });
    expect(city.stderr).toMatch(/^gymctl: unknown column "city" for --columns: .* \(Did you mean address\.city\?\)\n$/);
    // A header a terminal table shows (`ID`, `City`) is answered with its column.
    for (const [header, column] of [
      ['ID', 'id'],
      ['City', 'address\\.city'],
    ]) {
      const shown = await gymctl(['academy', '1', '--columns', header!], { env: api() });
      expect(shown.stderr).toMatch(new RegExp(`^gymctl: unknown column "${header}" for --columns: .* \\(Did you mean ${column}\\?\\)\n$`));
    }
    // Nothing near: no guess.
    const far = await gymctl(['academy', '1', '--format', 'xml'], { env: api() });
    expect(far.stderr).toBe('gymctl: invalid format "xml" (from --format): expected one of table, json, ndjson, csv\n');
    expect(world.requests).toEqual([]);
  });
});

describe('a wrong path prefix answered with the API’s own 404', () => {
  it('GET /me not found says the base URL is probably wrong, where it came from, and still exits 3', async () => {
    const base = `${world.sandbox.url}/api/v1`;
    const whoami = await gymctl(['whoami', '--base-url', base], { env: { GYMCTL_API_KEY: DEMO_KEY } });
    expect(whoami).toMatchObject({ code: 3, stdout: '' });
    expect(whoami.stderr).toMatch(
      new RegExp(
        `^gymctl: GET /me: Resource not found; the API always has /me, so the base URL ${base.replace(/[.]/g, '\\.')} \\(from --base-url\\) or its path prefix is probably wrong \\(HTTP 404, correlation ID [0-9a-f-]+\\)\\n$`,
      ),
    );
    // academies starts with GET /me: the same hint, from the environment.
    const academies = await gymctl(['academies'], { env: { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: base } });
    expect(academies.code).toBe(3);
    expect(academies.stderr).toContain(`so the base URL ${base} (from GYMCTL_BASE_URL) or its path prefix is probably wrong`);
    // A login checks its key with GET /me: it says so too, and stores nothing.
    const login = await gymctl(['auth', 'login', '--with-key', '--base-url', base], { stdin: `${DEMO_KEY}\n` });
    expect(login.code).toBe(3);
    expect(login.stderr).toContain('or its path prefix is probably wrong');
    // An academy that does not exist is only that.
    const academy = await gymctl(['academy', '999'], { env: api() });
    expect(academy.stderr).toMatch(/^gymctl: academy 999: Resource not found \(HTTP 404/);
    // JSON keeps the server's message as sent.
    const json = await gymctl(['whoami', '--json', '--base-url', base], { env: { GYMCTL_API_KEY: DEMO_KEY } });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { message: 'Resource not found', kind: 'not_found', status: 404 } });
  });
});

describe('Ctrl-C during a batch drawn as a table', () => {
  it('the note says what ndjson does (each record written as it arrives, so an interrupted run keeps them), not that it fetches the rest', async () => {
    const ids = `${Array.from({ length: 5000 }, (_, i) => (i % 4) + 1).join('\n')}\n`;
    const result = await gymctl(['academy', '-'], {
      stdin: ids,
      stdoutTTY: true,
      stderrTTY: true,
      columns: 100,
      env: { ...api(), NO_COLOR: '1' },
      ...interruptWhen('rows on the screen', (streams) => streams.stdout().includes('│ 4  │')),
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(
      /gymctl: interrupted after fetching \d+ of 5000 academies; the rest were not fetched\. In a script, --format ndjson writes each record as it arrives, so an interrupted run keeps every record it fetched\n$/,
    );
    expect(result.stderr).not.toContain('get them all');
  });
});

describe('auth login --with-key', () => {
  it('with nothing on stdin, says how to give the key: piped in, or pasted at a terminal without --with-key', async () => {
    const result = await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      `gymctl: no API key was given on stdin: pipe it in (\`echo "$KEY" | gymctl auth login --with-key --base-url ${world.sandbox.url}\`, or \`< keyfile\`), or run \`gymctl auth login --base-url ${world.sandbox.url}\` at a terminal to paste it at a hidden prompt\n`,
    );
    expect(world.requests).toEqual([]);
  });

  it('with nothing typed at the prompt, says to paste it or pipe it in', async () => {
    const result = await gymctl(['auth', 'login', '--base-url', world.sandbox.url], {
      stdinTTY: true,
      started: (streams) =>
        void waitFor('the prompt', () => streams.stderr() !== '').then(
          () => streams.terminal!.write('\r'),
          () => streams.terminal!.end(),
        ),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `gymctl: no API key was given: paste it at the prompt, or pipe it in (\`echo "$KEY" | gymctl auth login --with-key --base-url ${world.sandbox.url}\`)\n`,
    );
  });

  it('a refused key says whether the stored key is still there', async () => {
    const configFile = path.join(world.config.dir, 'config.json');
    const login = (key: string) => gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: `${key}\n` });
    const first = await login('wrong_key_0123456789');
    expect(first.code).toBe(4);
    expect(first.stderr).toMatch(/the server refused the API key; the key was not stored \(profile "default" has no stored key\) \(HTTP 401/);
    expect((await login(DEMO_KEY)).code).toBe(0);
    const second = await login('wrong_key_0123456789');
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(
      new RegExp(`the server refused the API key; the key was not stored, and profile "default" keeps its stored key \\(\\*{4}${DEMO_KEY.slice(-4)}\\) \\(HTTP 401`),
    );
    expect(JSON.parse(readFileSync(configFile, 'utf8')).profiles.default.apiKey).toBe(DEMO_KEY);
    expect(second.stderr).not.toContain('wrong_key');
  });
});

describe('accessible output fits the terminal', () => {
  const accessible = (env: Record<string, string | undefined> = {}) => ({
    stdoutTTY: true,
    stderrTTY: true,
    columns: 60,
    env: { GYMCTL_ACCESSIBLE: '1', NO_COLOR: '1', ...env },
  });
  const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));

  it('at 60 columns, academies with wide columns is cut to 60 with …, columns still aligned', async () => {
    const result = await gymctl(['academies', '--columns', 'id,name,email,phone,address.city'], accessible(api()));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(widest(result.stdout)).toBeLessThanOrEqual(60);
    expect(result.stdout).toContain('…');
    // No box: the header row and the rows, each column starting where its header does.
    expect(lines[0]).toMatch(/^ID {2,}Name {2,}Email {2,}Phone {2,}City$/);
    const at = lines[0]!.indexOf('Email');
    for (const line of lines.slice(1)) expect(line.slice(at - 2, at), line).toBe('  ');
    expect(lines[1]).toMatch(/^1 +Alfama Jiu-Jitsu /);
  });

  it('at 60 columns, doctor with no config wraps Detail and Fix as the boxed table does, never cutting them', async () => {
    const result = await gymctl(['doctor'], accessible());
    expect(result.code).toBe(4);
    expect(widest(result.stdout)).toBeLessThanOrEqual(60);
    const json = JSON.parse((await gymctl(['doctor', '--json'])).stdout) as Array<{ check: string; detail: string; fix: string | null }>;
    // Each row's Detail and Fix, read down their columns: a row starts where Status is not empty.
    const [header, ...lines] = result.stdout.trimEnd().split('\n');
    const status = header!.indexOf('Status');
    const detail = header!.indexOf('Detail');
    const fix = header!.indexOf('Fix');
    const rows: Array<{ detail: string[]; fix: string[] }> = [];
    for (const line of lines) {
      if (line.slice(status, detail).trim()) rows.push({ detail: [], fix: [] });
      rows.at(-1)!.detail.push(line.slice(detail, fix).trim());
      rows.at(-1)!.fix.push(line.slice(fix).trim());
    }
    const squeeze = (text: string) => text.replace(/\s+/g, '');
    expect(rows.map((row) => squeeze(row.detail.join('')))).toEqual(json.map((row) => squeeze(row.detail)));
    expect(rows.map((row) => squeeze(row.fix.join('')))).toEqual(json.map((row) => squeeze(row.fix ?? '-')));
    expect(
      rows
        .find((row) => row.fix.join(' ').includes('GYMCTL_API_KEY'))!
        .fix.join(' ')
        .trim(),
    ).toBe('gymctl auth login --base-url URL, or set GYMCTL_API_KEY');
  });
});

describe("doctor's table at 100 columns", () => {
  it('with no config, no line of a wrapped cell holds only punctuation (a lone `)`), whatever the length of the paths', async () => {
    // Folders that are never made (doctor writes nothing), their paths of every length in a range: where a path ends decides the wrapping.
    const root = process.platform === 'win32' ? tmpdir() : '/tmp';
    const named = (length: number, fill: string) => path.join(root, fill.repeat(Math.max(1, length - root.length - 1)));
    const alone: string[] = [];
    for (let length = 16; length <= 40; length++) {
      for (const cacheLength of [25, 30, 35]) {
        const configDir = named(length, 'd');
        const cache = named(cacheLength, 'k');
        const result = await inProcess(['doctor'], { configDir, stdoutTTY: true, columns: 100, env: { NO_COLOR: '1', XDG_CACHE_HOME: cache } });
        expect(result.code).toBe(4);
        const details: string[] = [];
        for (const line of result.stdout.split('\n')) {
          expect(line.length).toBeLessThanOrEqual(100);
          if (!line.startsWith('│')) continue;
          const cells = line.split('│').slice(1, -1);
          // A row starts where Check is not empty; there, a lone - is an empty cell.
          const first = cells[0]!.trim() !== '';
          for (const cell of cells) if (/^[\p{P}\p{S}]+$/u.test(cell.trim()) && !(first && cell.trim() === '-')) alone.push(`${configDir}, ${cache}: ${line}`);
          // Detail, read down its column.
          if (first) details.push('');
          details[details.length - 1] += cells[2]!.trim();
        }
        // Nothing is lost: the paths are there whole.
        const squeezed = details.map((text) => text.replace(/\s+/g, ''));
        expect(squeezed.filter((detail) => detail.startsWith('none') && detail.endsWith(`(${path.join(cache, 'gymctl-code-cache')})`))).toHaveLength(1);
        expect(squeezed).toContain(`noneyet(${path.join(configDir, 'config.json')})`);
      }
    }
    expect(alone).toEqual([]);
  });
});
