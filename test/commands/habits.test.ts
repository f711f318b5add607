/**
 * What users of gh, kubectl and the Stripe CLI type: `-o json`, `api -H`
 * and `api -X GET` work; the rest is one usage line (exit 2) that names
 * the gymctl way, with nothing sent. In-process, against a server that
 * records what it is sent.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();

/** gymctl against the sandbox with the demo key. */
const gymctl = (args: string[], options: GymctlOptions = {}) =>
  inProcess(args, { configDir: world.config.dir, ...options, env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY, ...options.env } });

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
