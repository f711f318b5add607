/**
 * What users of gh, kubectl and the Stripe CLI type: `-o json`, `api -H`
 * and `api -X GET` work; the rest is one usage line (exit 2) that names
 * the gymctl way, with nothing sent. In-process, against a server that
 * records what it is sent.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { httpServer } from '../helpers/servers.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();

/** What the recording server was sent: each request's headers. */
const sent: IncomingHttpHeaders[] = [];
let recorder = '';
beforeAll(async () => {
  recorder = await httpServer((request, response) => {
    sent.push(request.headers);
    response.setHeader('Content-Type', 'application/json');
    response.end('{"data":{"id":1}}');
  });
});
beforeEach(() => {
  sent.length = 0;
});

const SECRET = 'sk_live_do_not_echo_4242';

/** gymctl against the sandbox with the demo key. */
const gymctl = (args: string[], options: GymctlOptions = {}) =>
  inProcess(args, { configDir: world.config.dir, ...options, env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY, ...options.env } });

/** gymctl against the recording server. */
const recorded = (args: string[]) => inProcess(args, { configDir: world.config.dir, env: { GYMCTL_BASE_URL: recorder, GYMCTL_API_KEY: DEMO_KEY } });

/** A usage error: exit 2, nothing on stdout, this one line on stderr, and nothing sent. */
async function refused(args: string[], line: string | RegExp, options: GymctlOptions = {}) {
  const result = await gymctl(args, options);
  expect({ code: result.code, stdout: result.stdout }, args.join(' ')).toEqual({ code: 2, stdout: '' });
  expect(result.stderr.split('\n'), args.join(' ')).toHaveLength(2);
  if (typeof line === 'string') expect(result.stderr).toBe(`gymctl: ${line}\n`);
  else expect(result.stderr).toMatch(line);
  expect(world.requests, args.join(' ')).toEqual([]);
  return result;
}

describe('-o and --output, kubectl and the Stripe CLI names of --format', () => {
  it('-o json, --output json and --output=json print what --format json prints', async () => {
    const expected = await gymctl(['academy', '1', '--format', 'json']);
    expect(expected.code).toBe(0);
    for (const args of [['-o', 'json'], ['--output', 'json'], ['--output=json'], ['-ojson']]) {
      const result = await gymctl(['academy', '1', ...args]);
      expect(result, args.join(' ')).toEqual(expected);
    }
    const csv = await gymctl(['academies', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toMatch(/^id,name,/);
    const status = await gymctl(['auth', 'status', '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'default' });
  });

  it('an error of a run with -o json is a JSON line, before the parser has run too', async () => {
    const result = await gymctl(['whoami', '-o', 'json', '--bogus']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { kind: 'usage', message: "unknown option '--bogus'" } });
  });

  it('-o yaml and -o wide list the formats, naming --output', async () => {
    for (const format of ['yaml', 'wide']) {
      await refused(['whoami', '-o', format], `invalid format "${format}" (from --output): expected one of table, json, ndjson, csv`);
    }
  });

  it('--output and --format that disagree are refused; that agree are one', async () => {
    await refused(['whoami', '--format', 'csv', '-o', 'json'], '--format csv and --output json ask for different formats: give one of them');
    await refused(['whoami', '--json', '-o', 'csv'], '--json and --output csv ask for different formats: give one of them');
    expect((await gymctl(['whoami', '--format', 'json', '-o', 'json'])).code).toBe(0);
  });

  it('is where --format is: in help beside it, and refused where --format is', async () => {
    const help = (await gymctl(['academy', '--help'])).stdout;
    expect(help).toMatch(/ {2}--format <format> .*\n(?: {3,}.*\n)* {2}-o, --output <format> +same as --format/);
    await refused(['config', 'path', '-o', 'table'], /^gymctl: --output does not apply to `gymctl config path`: it applies to `gymctl whoami`/);
  });
});

describe('gymctl api -H and -X, as gh api takes them', () => {
  it('-H and --header add request headers, the last of a name winning, over gymctl own Accept', async () => {
    const result = await recorded(['api', '/me', '-H', 'Accept: text/plain', '--header', 'X-Trace:  abc ', '-H', 'x-trace: def']);
    expect(result, result.stderr).toEqual({ code: 0, stdout: '{"data":{"id":1}}', stderr: '' });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ accept: 'text/plain', 'x-trace': 'def', 'x-api-key': DEMO_KEY });
  });

  it('-X GET and --method get are accepted', async () => {
    for (const args of [['-X', 'GET'], ['--method', 'get'], ['--method=GET']]) {
      const result = await recorded(['api', '/me', ...args]);
      expect(result.code, result.stderr).toBe(0);
    }
    expect(sent).toHaveLength(3);
  });

  it('-X with any other method says the API is read-only, and sends nothing', async () => {
    for (const method of ['POST', 'delete', 'PATCH']) {
      await refused(['api', '/me', '-X', method], 'the API is read-only: gymctl api sends GET alone');
    }
  });

  it("-H never sets the key's header, Host or a header of the connection, nor quotes the value", async () => {
    for (const [header, reason] of [
      [`X-API-Key: ${SECRET}`, 'X-API-Key: gymctl sends the key itself, from auth login or GYMCTL_API_KEY'],
      [`x-api-key:${SECRET}`, 'x-api-key: gymctl sends the key itself, from auth login or GYMCTL_API_KEY'],
      [`Host: ${SECRET}.example.com`, 'Host: requests go to the base URL alone'],
      ['Connection: close', 'Connection: gymctl sets the headers of the connection itself'],
      ['Transfer-Encoding: chunked', 'Transfer-Encoding: gymctl sets the headers of the connection itself'],
      ['Upgrade: websocket', 'Upgrade: gymctl sets the headers of the connection itself'],
      ['Keep-Alive: 5', 'Keep-Alive: gymctl sets the headers of the connection itself'],
    ]) {
      const result = await refused(['api', '/me', '-H', header!], `-H cannot set ${reason}`);
      expect(result.stderr).not.toContain(SECRET);
    }
    expect(sent).toEqual([]);
  });

  it('-H without a name and a colon is refused, the text not shown', async () => {
    for (const header of [SECRET, `: ${SECRET}`, `Bad Name: ${SECRET}`]) {
      const result = await refused(['api', '/me', '-H', header], "-H takes a header as 'Name: value', such as -H 'Accept: application/json' (what was given is not shown)");
      expect(result.stderr).not.toContain(SECRET);
    }
  });

  it('-H with a line break or a control character in its value is refused, the value not shown', async () => {
    for (const value of [`${SECRET}\r\nX-Other: 1`, `${SECRET}\u0000`, `${SECRET}\u20ac`]) {
      const result = await refused(
        ['api', '/me', '-H', `X-Trace: ${value}`],
        /^gymctl: -H: the value of X-Trace has a line break, a control character or a character beyond Latin-1 \(it is not shown\)\n$/,
      );
      expect(result.stderr).not.toContain(SECRET);
    }
  });

  it('-H with --cache or --refresh is refused: the cache keeps answers by path alone', async () => {
    for (const flag of [['--cache', '5m'], ['--refresh']]) {
      await refused(
        ['api', '/me', '-H', 'Accept: text/plain', ...flag],
        '-H cannot be used with --cache or --refresh: the cache keeps answers by path, whatever headers asked for them',
      );
    }
  });

  it('api --help shows -H, --header and -X, --method', async () => {
    const help = (await gymctl(['api', '--help'])).stdout;
    expect(help).toMatch(/ {2}-H, --header <header> +add a request header/);
    expect(help).toMatch(/ {2}-X, --method <method> +GET, the only method/);
  });
});

describe('habits gymctl answers with its own way, in one line', () => {
  const DEBUG = 'gymctl has no verbose mode: --debug traces each request on stderr, the key redacted';
  const cases: Array<[string[], string]> = [
    [['whoami', '--template', '{{.name}}'], "gymctl has no --template: --jq (-q) picks from the JSON, as --jq '.name'"],
    [['academy', '1', '--template={{.name}}'], "gymctl has no --template: --jq (-q) picks from the JSON, as --jq '.name'"],
    [['whoami', '--verbose'], DEBUG],
    [['whoami', '-v'], DEBUG],
    [['-v', 'academy', '1'], DEBUG],
    [['api', '/me', '--paginate'], 'the API has no pages: gymctl api prints each answer whole'],
    [['version', '--short'], 'gymctl version has no --short: `gymctl --version` prints the version alone'],
    [['status'], 'gymctl has no status command: `gymctl auth status` checks the key, `gymctl whoami` shows what it sees'],
    [['get', 'academies'], 'gymctl has no get command: name what to read, as `gymctl academies`'],
    [['get', 'academy', '1'], 'gymctl has no get command: name what to read, as `gymctl academy 1`'],
    [['get', 'pods'], 'gymctl has no get command: name what to read, as `gymctl academies`'],
    [['config', 'use-context', 'work'], 'gymctl has profiles, not contexts: --profile NAME picks one for a run, `gymctl config set default-profile NAME` for every run'],
    [['config', 'use-context'], 'gymctl has profiles, not contexts: --profile NAME picks one for a run, `gymctl config set default-profile NAME` for every run'],
    [['config', 'get-contexts'], 'gymctl has profiles, not contexts: `gymctl auth status --all` lists them'],
  ];
  for (const [args, line] of cases) {
    it(args.join(' '), async () => {
      await refused(args, line);
    });
  }

  it("--template's answer is a filter that works: it prints the name of the key and of an academy", async () => {
    const filter = /--jq '([^']+)'/.exec(cases[0]![1])![1]!;
    expect(await gymctl(['whoami', '--sandbox', '--jq', filter])).toMatchObject({ code: 0, stdout: 'Front desk (demo)\n' });
    expect(await gymctl(['academy', '1', '--sandbox', '--jq', filter])).toMatchObject({ code: 0, stdout: 'Alfama Jiu-Jitsu\n' });
  });

  it('--api-key, in every form, points to auth login --with-key and GYMCTL_API_KEY, never showing the key', async () => {
    for (const args of [
      ['whoami', '--api-key', SECRET],
      ['whoami', `--api-key=${SECRET}`],
      ['--api-key', SECRET, 'academies'],
      ['api', '/me', '--api-key', SECRET],
    ]) {
      const result = await refused(args, 'gymctl takes no key as an option (shell history and ps would keep it): pipe it to `gymctl auth login --with-key`, or set GYMCTL_API_KEY');
      expect(result.stderr).not.toContain(SECRET);
    }
  });

  it('a key given to auth login as an argument points to --with-key, never showing the key', async () => {
    for (const args of [
      ['auth', 'login', '--with-key', SECRET],
      ['auth', 'login', SECRET, '--base-url', 'https://api.example.com'],
    ]) {
      const result = await refused(
        args,
        'gymctl auth login takes no argument: pipe the key to `gymctl auth login --with-key` (an argument stays in shell history and ps), and name a profile with --profile',
      );
      expect(result.stderr).not.toContain(SECRET);
    }
  });

  it('is a JSON line when errors are JSON', async () => {
    const result = await refused(['whoami', '--json', '--verbose'], /^\{"error":/);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { kind: 'usage', message: DEBUG } });
  });

  it('leaves what is not a habit as it was', async () => {
    await refused(['-v'], "unknown option '-v' (Did you mean --version?)");
    await refused(['whoami', '--bogus'], "unknown option '--bogus'");
    await refused(['config', 'bogus'], "unknown command 'config bogus': expected one of list, get, set, unset, path");
    await refused(['statu'], "unknown command 'statu'");
    // Help asked for is help, even beside a habit.
    const help = await gymctl(['whoami', '--verbose', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: gymctl whoami/);
  });
});

describe('academies --limit N, as gh list commands take it', () => {
  it('shows the first N academies of the key, in its order, and sends no more requests than that after GET /me', async () => {
    const all = await gymctl(['academies', '--format', 'ndjson']);
    const ids = all.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).id);
    expect(ids.length).toBeGreaterThan(2);
    const two = await gymctl(['academies', '--limit', '2', '--format', 'ndjson']);
    expect(two.code).toBe(0);
    expect(
      two.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual(ids.slice(0, 2));
    const more = await gymctl(['academies', '--limit', '1000', '--format', 'ndjson']);
    expect(more.stdout).toBe(all.stdout);
  });

  for (const bad of ['0', '-1', 'x', '2.5', '99999999999999999999']) {
    it(`--limit ${bad} is a usage error before anything is sent, naming the range`, async () => {
      await refused(['academies', '--limit', bad], `invalid --limit "${bad}": expected a whole number from 1 to 9007199254740991`);
    });
  }
});
