/**
 * CSV for spreadsheets: `--bom`, and `config set csv-bom true`, start CSV
 * with a UTF-8 byte-order mark (EF BB BF), by which Excel on a double-click
 * reads the file as UTF-8. Only CSV, once at the very start of a batch,
 * never on its own (a failure prints nothing on stdout), never on a
 * terminal; `--no-bom` leaves it out for one run. Bytes are compared, not
 * text, since the mark is what is asserted.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { fakeStreams, gymctl } from '../helpers/harness.js';
import { run } from '../../src/main.js';
import { cleanEnv } from '../helpers/cli.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const world = useSandboxAndConfig();

/** gymctl in-process, with stdout's bytes as written. */
async function bytesOf(args: string[], options: { stdoutTTY?: boolean; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const fakes = fakeStreams({ stdoutTTY: options.stdoutTTY ?? false, columns: 200 });
  const code = await run(args, { io: fakes.streams, env: cleanEnv(world.config.dir, options.env) });
  return { code, stdout: fakes.stdoutBytes(), stderr: fakes.stderr() };
}

/** How many times the mark is in `bytes`. */
const marks = (bytes: Buffer) => {
  let count = 0;
  for (let at = bytes.indexOf(BOM); at !== -1; at = bytes.indexOf(BOM, at + 1)) count++;
  return count;
};

describe('--bom', () => {
  it('writes EF BB BF, then the very CSV it writes without it', async () => {
    const plain = await bytesOf(['academies', '--sandbox', '--format', 'csv']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.subarray(0, 3).equals(BOM)).toBe(false);
    const marked = await bytesOf(['academies', '--sandbox', '--format', 'csv', '--bom']);
    expect({ code: marked.code, stderr: marked.stderr }).toEqual({ code: 0, stderr: '' });
    expect(marked.stdout.subarray(0, 3)).toEqual(BOM);
    expect(marked.stdout.subarray(3)).toEqual(plain.stdout);
    expect(marked.stdout.toString('utf8')).toContain('Rua dos Remédios 12');
  });

  it('a batch gets it once, at the very start, however many records and failures follow', async () => {
    const ids = ['1', '999', '2', '3', '4', '1'];
    const plain = await bytesOf(['academy', ...ids, '--sandbox', '--format', 'csv']);
    const marked = await bytesOf(['academy', ...ids, '--sandbox', '--format', 'csv', '--bom']);
    // The 404 is reported on stderr and the batch ends with its code; the records are printed all the same.
    expect(marked.code).toBe(3);
    expect(marked.code).toBe(plain.code);
    expect(marked.stdout.subarray(0, 3)).toEqual(BOM);
    expect(marks(marked.stdout)).toBe(1);
    expect(marked.stdout.subarray(3)).toEqual(plain.stdout);
  });

  it('comes before the first row with --no-headers, and before the header of an empty result', async () => {
    const rows = await bytesOf(['academy', '2', '--sandbox', '--format', 'csv', '--bom', '--no-headers']);
    expect(rows.code, rows.stderr).toBe(0);
    expect(rows.stdout.toString('utf8')).toMatch(/^\ufeff2,Eastside Grappling Club,/);
    const empty = await bytesOf(['family', '520', '--sandbox', '--format', 'csv', '--bom']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout.toString('utf8')).toBe('\ufefffamilyOf,id,academyId,firstName,lastName,photoUrl.thumbnail,photoUrl.large,primaryFamilyMember\r\n');
    const none = await bytesOf(['academies', '--format', 'csv', '--bom'], { env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY_NO_ACADEMIES } });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout.toString('utf8')).toMatch(/^\ufeffid,name,currency,/);
  });

  it('a failure prints nothing on stdout: no lone mark', async () => {
    for (const args of [
      ['academy', '999', '--sandbox'],
      ['academy', '999', '998', '--sandbox'],
      ['family', '999', '--sandbox'],
    ]) {
      const failed = await bytesOf([...args, '--format', 'csv', '--bom']);
      expect(failed.code, args.join(' ')).toBe(3);
      expect(failed.stdout.length, args.join(' ')).toBe(0);
      // The error is a JSON line, as for any CSV run.
      expect(JSON.parse(failed.stderr.split('\n')[0]!).error.kind).toBe('not_found');
    }
  });

  it('is not written to a terminal, where it would be an invisible character', async () => {
    const terminal = await bytesOf(['academies', '--sandbox', '--format', 'csv', '--bom'], { stdoutTTY: true });
    expect(terminal.code, terminal.stderr).toBe(0);
    expect(terminal.stdout.toString('utf8')).toMatch(/^id,name,/);
    expect(marks(terminal.stdout)).toBe(0);
  });

  it('applies to CSV alone: with another format or --jq it is a usage error, and nothing is sent', async () => {
    for (const [args, reason] of [
      [['--json'], '--bom applies to CSV output, not to json (from --json): add --format csv'],
      [['--format', 'ndjson'], '--bom applies to CSV output, not to ndjson (from --format): add --format csv'],
      [[], '--bom applies to CSV output, not to table (from default): add --format csv'],
      [['--jq', '.name'], '--bom applies to CSV output, not to --jq (which prints JSON)'],
    ] as const) {
      world.requests.length = 0;
      const result = await gymctl(['academy', '1', ...args, '--bom'], { configDir: world.config.dir, env: { GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: 'k' } });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(reason);
      expect(world.requests).toEqual([]);
    }
  });

  it('--bom and --no-bom are refused where they do nothing, each by its own name', async () => {
    for (const flag of ['--bom', '--no-bom']) {
      const result = await gymctl(['config', 'list', flag], { configDir: world.config.dir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} does not apply to \`gymctl config list\``);
    }
  });
});

describe('config set csv-bom', () => {
  const config = (...args: string[]) => gymctl(['config', ...args], { configDir: world.config.dir });

  it('true starts every CSV with the mark, JSON and ndjson never; --no-bom leaves it out for one run', async () => {
    expect(await config('get', 'csv-bom')).toMatchObject({ code: 0, stdout: 'false\n' });
    expect((await config('set', 'csv-bom', 'true')).code).toBe(0);
    expect(await config('get', 'csv-bom')).toMatchObject({ code: 0, stdout: 'true\n' });

    const csv = await bytesOf(['academies', '--sandbox', '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.subarray(0, 3)).toEqual(BOM);
    expect(marks(csv.stdout)).toBe(1);
    for (const format of ['json', 'ndjson']) {
      const other = await bytesOf(['academies', '--sandbox', '--format', format]);
      expect(other.code, other.stderr).toBe(0);
      expect(marks(other.stdout), format).toBe(0);
    }
    // A table in a pipe is tab-separated lines: not CSV, no mark, and no error for a setting that does not apply.
    const tsv = await bytesOf(['academies', '--sandbox']);
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(marks(tsv.stdout)).toBe(0);
    const without = await bytesOf(['academies', '--sandbox', '--format', 'csv', '--no-bom']);
    expect(without.code, without.stderr).toBe(0);
    expect(marks(without.stdout)).toBe(0);
    expect(Buffer.concat([BOM, without.stdout])).toEqual(csv.stdout);

    expect((await config('unset', 'csv-bom')).code).toBe(0);
    expect(marks((await bytesOf(['academies', '--sandbox', '--format', 'csv'])).stdout)).toBe(0);
  });

  it('takes true or false, as people write them, and nothing else', async () => {
    const refused = await config('set', 'csv-bom', 'maybe');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('invalid csv-bom "maybe": expected true or false');
    expect((await config('set', 'csv-bom', 'yes')).code).toBe(0);
    expect((await config('get', 'csv-bom')).stdout).toBe('true\n');
    expect((await config('set', 'csv-bom', 'off')).code).toBe(0);
    expect((await config('get', 'csv-bom')).stdout).toBe('false\n');
  });

  it('is a setting of the whole file: it applies whatever the profile', async () => {
    expect((await config('set', 'csv-bom', 'true')).code).toBe(0);
    const marked = await bytesOf(['academies', '--sandbox', '--format', 'csv'], { env: { GYMCTL_PROFILE: 'default' } });
    expect(marked.stdout.subarray(0, 3)).toEqual(BOM);
    expect((await gymctl(['__complete', '--', 'config', 'set', 'csv-bom', ''], { configDir: world.config.dir })).stdout).toContain('true\nfalse\n');
  });
});
