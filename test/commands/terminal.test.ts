/**
 * People at a terminal: help that gets out of the way, progress that never
 * soils output, tables that fit, exit codes that say what happened.
 * In-process, through the harness's TTY and width switches.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/failures.js';
import { DEMO_DATA, DEMO_KEY } from '../../src/sandbox/demo-data.js';
import type { SandboxData } from '../../src/sandbox/data.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { FIRST_PART_ROWS } from '../../src/output/emit.js';
import { type FakeStreams, gymctl, interruptWhen } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';
import { tempConfigDir } from '../helpers/cli.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const api = (extra: Record<string, string> = {}) => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY, NO_COLOR: '1', ...extra });
const ids = (n: number) => `${Array.from({ length: n }, (_, i) => (i % 4) + 1).join('\n')}\n`;

describe('help', () => {
  it('global options appear once, under "Global options", only on commands they apply to', async () => {
    const academy = (await gymctl(['academy', '--help'])).stdout;
    expect(academy).toContain('\nGlobal options:\n');
    expect(academy).toContain('--retries <n>');
    expect(academy).not.toContain('--version');
    for (const command of [['completion'], ['config', 'path'], ['sandbox']]) {
      const help = (await gymctl([...command, '--help'])).stdout;
      expect(help, command.join(' ')).not.toContain('Global options');
      expect(help, command.join(' ')).not.toContain('--retries');
    }
    // schema prints JSON: --jq is its one global option.
    expect((await gymctl(['schema', '--help'])).stdout).toMatch(/Global options:\n {2}-q, --jq <expression>[^\n]*\n(?: {3,}[^\n]*\n)*\n/);
    for (const command of ['whoami', 'family']) {
      const help = (await gymctl([command, '--help'])).stdout;
      for (const flag of ['--jq <expression>', '--columns <list>', '--no-headers']) expect(help, `${command} ${flag}`).toContain(flag);
    }
    expect((await gymctl(['api', '--help'])).stdout).not.toContain('--columns');
    expect((await gymctl(['auth', 'logout', '--help'])).stdout).toMatch(/Global options:\n {2}--profile <name>[^\n]*\n(?: {3,}[^\n]*\n)*\n/);
  });

  it('sandbox --help shows no "(default: [])"; auth and config list no commander help command', async () => {
    expect((await gymctl(['sandbox', '--help'])).stdout).not.toContain('(default: [])');
    for (const group of ['auth', 'config', 'cache']) {
      const help = (await gymctl([group, '--help'])).stdout;
      expect(help).not.toContain('help [command]');
      expect(help.split('\n')[0]).toBe(`Usage: gymctl ${group} <command> [options]`);
    }
  });

  it('bare auth and config print their help on stdout and exit 0; a typo suggests the closest', async () => {
    for (const group of ['auth', 'config']) {
      const result = await gymctl([group]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain(`Usage: gymctl ${group}`);
    }
    expect(await gymctl(['auth', 'logn'])).toMatchObject({ code: 2, stdout: '', stderr: "gymctl: unknown command 'auth logn' (Did you mean auth login?)\n" });
  });

  it('gymctl help whomai suggests whoami, as gymctl whomai does', async () => {
    const result = await gymctl(['help', 'whomai']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('(Did you mean whoami?)');
  });
});

describe('exit codes that say what happened', () => {
  it('a sandbox port that is taken is a usage error (2) saying so', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await gymctl(['sandbox', '--port', String(port)]);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toBe(`gymctl: cannot start the sandbox: port ${port} on 127.0.0.1 is taken; choose another with --port (0 picks a free one)\n`);
    } finally {
      server.close();
    }
  });

  it('config set default-profile refuses a profile that does not exist, listing those that do', async () => {
    const config = tempConfigDir();
    try {
      await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url, '--profile', 'work'], { configDir: config.dir, stdin: DEMO_KEY });
      const result = await gymctl(['config', 'set', 'default-profile', 'wrok'], { configDir: config.dir });
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toBe('gymctl: there is no profile "wrok": the profiles are default, work (Did you mean work?); create one with `gymctl auth login --profile wrok`\n');
      expect((await gymctl(['config', 'get', 'default-profile'], { configDir: config.dir })).stdout).toBe('default\n');
      // `default` is always there, stored or not: every command takes it, and so does default-profile.
      expect(await gymctl(['config', 'set', 'default-profile', 'default'], { configDir: config.dir })).toMatchObject({ code: 0, stderr: '' });
    } finally {
      config.remove();
    }
  });
});

describe('progress', () => {
  it('is shown only when stdout and stderr are both terminals, and erased at the end', async () => {
    const result = await gymctl(['academy', '-', '--format', 'ndjson'], { stdin: ids(60), stdoutTTY: true, stderrTTY: true, rows: 24, env: api() });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^\rFetching academies \d+\/60/);
    expect(result.stderr.endsWith('\r\u001b[K')).toBe(true);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(60);
  });

  it('never with stdout in a pipe (| head, | tee), never forced by GYMCTL_FORCE_TTY, never with GYMCTL_NO_PROGRESS', async () => {
    const cases = [{ stderrTTY: true }, { env: api({ GYMCTL_FORCE_TTY: '1' }) }, { stdoutTTY: true, stderrTTY: true, env: api({ GYMCTL_NO_PROGRESS: '1' }) }];
    for (const options of cases) {
      const result = await gymctl(['academy', '-', '--format', 'ndjson'], { stdin: ids(60), env: api(), ...options });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
    }
  });

  it('is erased when the command is interrupted', async () => {
    const result = await gymctl(['academy', '-', '--format', 'ndjson'], {
      stdin: ids(5000),
      stdoutTTY: true,
      stderrTTY: true,
      env: api(),
      // Interrupted once the progress line is up (the batch of 5,000 is far from done by then).
      ...interruptWhen('the progress line on stderr', (streams) => streams.stderr().includes('Fetching academies')),
    });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/Fetching academies/);
    expect(result.stderr.endsWith('\r\u001b[K')).toBe(true);
  });
});

describe('a batch drawn as a table', () => {
  it('makes room in its first part for the widest id of the batch (known before it starts): later ids and names are whole, never cut', async () => {
    // The first part holds ids of at most 3 digits; the last row, drawn in a later part, has a 6-digit id and a longer name.
    const ids = [...Array.from({ length: FIRST_PART_ROWS }, (_, i) => i + 1), 123456];
    const [sample] = DEMO_DATA.academies;
    const academies = ids.map((id) => ({ ...sample, id, name: `Academy number ${id}` }));
    const key = DEMO_DATA.keys[0]!;
    const data = { ...DEMO_DATA, keys: [{ ...key, key: { ...key.key, academyIds: ids } }], academies } as unknown as SandboxData;
    const sandbox = await startSandbox({ data });
    try {
      const result = await gymctl(['academy', '-'], { stdin: `${ids.join('\n')}\n`, stdoutTTY: true, columns: 100, env: { ...api(), GYMCTL_BASE_URL: sandbox.url } });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line.length).toBe(lines[0]!.length);
      expect(lines[0]!.length).toBeLessThanOrEqual(100);
      const rows = lines
        .filter((line) => /^│ \d/.test(line))
        .map((line) =>
          line
            .split('│')
            .slice(1, 3)
            .map((cell) => cell.trim()),
        );
      expect(rows).toHaveLength(ids.length);
      expect(rows.at(-1)).toEqual(['123456', 'Academy number 123456']);
      for (const [i, row] of rows.entries()) expect(row).toEqual([String(ids[i]), `Academy number ${ids[i]}`]);
    } finally {
      await sandbox.close();
    }
  });

  /** A sandbox of 300 academies: the first part's names short ("Academy 14"), every later one 40 characters long. */
  const longNames = async () => {
    const ids = Array.from({ length: 300 }, (_, i) => i + 1);
    const name = (id: number) => (id <= FIRST_PART_ROWS ? `Academy ${id}` : `Academy ${id} `.padEnd(40, 'x'));
    const [sample] = DEMO_DATA.academies;
    const academies = ids.map((id) => ({ ...sample, id, name: name(id) }));
    const key = DEMO_DATA.keys[0]!;
    const data = { ...DEMO_DATA, keys: [{ ...key, key: { ...key.key, academyIds: ids } }], academies } as unknown as SandboxData;
    return { ids, name, sandbox: await startSandbox({ data }) };
  };

  it('at 120 columns, names longer than the first part saw are whole where they fit: no column is cut while the terminal has room', async () => {
    const { ids, name, sandbox } = await longNames();
    try {
      const result = await gymctl(['academy', '-'], { stdin: `${ids.join('\n')}\n`, stdoutTTY: true, columns: 120, env: { ...api(), GYMCTL_BASE_URL: sandbox.url } });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line.length).toBe(lines[0]!.length);
      expect(lines[0]!.length).toBeLessThanOrEqual(120);
      expect(result.stdout).not.toContain('…');
      const names = lines.filter((line) => /^│ \d/.test(line)).map((line) => line.split('│')[2]!.trim());
      expect(names).toEqual(ids.map(name));
    } finally {
      await sandbox.close();
    }
  });

  it('accessible, at 120 columns: names longer than the first part saw are read whole', async () => {
    const { ids, name, sandbox } = await longNames();
    try {
      const env = { ...api(), GYMCTL_BASE_URL: sandbox.url, GYMCTL_ACCESSIBLE: '1' };
      const result = await gymctl(['academy', '-'], { stdin: `${ids.join('\n')}\n`, stdoutTTY: true, columns: 120, env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toContain('…');
      const lines = result.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);
      const rows = lines.slice(1);
      expect(rows).toHaveLength(ids.length);
      // Each row: its id, then its whole name where the header's Name starts.
      const at = lines[0]!.indexOf('Name');
      for (const [i, row] of rows.entries()) expect(row.slice(at).startsWith(`${name(ids[i]!)}  `), row).toBe(true);
    } finally {
      await sandbox.close();
    }
  });

  it('shows its rows as they arrive, above the progress line; Ctrl-C closes the box and says what ndjson would have kept', async () => {
    const controller = new AbortController();
    /** What reached the terminal, stdout and stderr in the order written. */
    const transcript: Array<{ to: 'out' | 'err'; text: string }> = [];
    const result = await gymctl(['academy', '-'], {
      stdin: ids(5000),
      stdoutTTY: true,
      stderrTTY: true,
      columns: 100,
      env: api(),
      signal: controller.signal,
      started: (streams) => {
        for (const to of ['out', 'err'] as const) {
          const stream = to === 'out' ? streams.streams.stdout : streams.streams.stderr;
          const write = stream.write.bind(stream) as (text: string) => boolean;
          stream.write = ((text: string) => {
            transcript.push({ to, text: String(text) });
            return write(text);
          }) as typeof stream.write;
        }
        // Interrupted once the first rows are on the screen, with the progress line up (the batch is far from done).
        void waitFor('rows on the screen', () => streams.stdout().includes('│ 4  │') && streams.stderr().includes('Fetching academies')).then(
          () => controller.abort(new Interrupted()),
          (error: unknown) => controller.abort(error),
        );
      },
    });
    expect(result.code, result.stderr).toBe(130);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^┌─+┬/);
    expect(lines[1]).toMatch(/^│ ID +│ Name +│ City +│ Country +│ Currency │$/);
    expect(lines.at(-1)).toMatch(/^└─+┴/);
    // One box, every line as wide as the first.
    for (const line of lines) expect(line.length).toBe(lines[0]!.length);
    const rows = lines.filter((line) => /^│ \d/.test(line));
    const note =
      /gymctl: interrupted after fetching (\d+) of 5000 academies; the rest were not fetched\. In a script, --format ndjson writes each record as it arrives, so an interrupted run keeps every record it fetched\n$/.exec(
        result.stderr,
      );
    expect(note, result.stderr).not.toBeNull();
    expect(rows).toHaveLength(Number(note![1]));
    expect(rows.length).toBeLessThan(5000);
    // Rows go above the progress line: the line is erased before each write to stdout, and drawn again after.
    let progressShown = false;
    for (const { to, text } of transcript) {
      if (to === 'err') progressShown = text.startsWith('\rFetching') ? true : text === '\r\u001b[K' ? false : progressShown;
      else expect(progressShown).toBe(false);
    }
    expect(transcript.some(({ to, text }) => to === 'err' && text.startsWith('\rFetching'))).toBe(true);
  });

  it('Ctrl-C with the output in a pipe or as ndjson: no note (the lines printed are the records)', async () => {
    const result = await gymctl(['academy', '-', '--format', 'ndjson'], {
      stdin: ids(5000),
      stdoutTTY: true,
      stderrTTY: true,
      env: api(),
      ...interruptWhen('records on stdout', (streams) => streams.stdout().includes('\n')),
    });
    expect(result.code).toBe(130);
    expect(result.stderr).not.toContain('interrupted after');
  });
});

describe('tables fit the terminal', () => {
  it('at 50 columns, no line of a table is wider than 50, long cells cut with …', async () => {
    const result = await gymctl(['academy', '1', '2', '3', '4'], { stdoutTTY: true, columns: 50, env: api() });
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(50);
    expect(result.stdout).toContain('…');
    const card = await gymctl(['academy', '1'], { stdoutTTY: true, columns: 40, env: api() });
    for (const line of card.stdout.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(40);
  });
});

describe('gymctl api', () => {
  it('on a terminal: pretty JSON, numbers as sent, made safe, with a final newline; in a pipe: the body as received', async () => {
    const tty = await gymctl(['api', '/academies/1'], { stdoutTTY: true, env: api() });
    expect(tty.stdout).toMatch(/^\{\n {2}"data": \{\n {4}"id": 1,\n/);
    expect(tty.stdout.endsWith('}\n')).toBe(true);
    const piped = await gymctl(['api', '/academies/1'], { env: api() });
    expect(piped.stdout.startsWith('{"data":{"id":1,')).toBe(true);
    expect(piped.stdout.endsWith('\n')).toBe(false);
  });
});

describe('messages', () => {
  it('a missing argument comes with the usage line', async () => {
    expect(await gymctl(['academy'])).toMatchObject({ code: 2, stderr: "gymctl: missing required argument 'academyId'; usage: gymctl academy [options] <academyId...>\n" });
  });

  it('whoami on a terminal lists academies as auth status does: 1, 2, 3, 4 (a pipe joins them as CSV does: 1;2;3;4)', async () => {
    expect((await gymctl(['whoami'], { stdoutTTY: true, env: api() })).stdout).toMatch(/^Academies\s+1, 2, 3, 4$/m);
    expect((await gymctl(['whoami'], { env: api() })).stdout.split('\n')[1]).toContain('\t1;2;3;4\t');
  });

  it('a key with no name is "(no name)" in auth status, not an empty space', async () => {
    const { startSandbox } = await import('../../src/sandbox/server.js');
    const sandbox = await startSandbox({ data: { keys: [{ secret: 'k_0123456789ab', key: { id: 7, name: null, academyIds: [] } }], academies: [], members: [], families: [] } });
    try {
      const result = await gymctl(['auth', 'status'], { env: { GYMCTL_BASE_URL: sandbox.url, GYMCTL_API_KEY: 'k_0123456789ab' } });
      expect(result.stdout).toMatch(/^Key name:\s+\(no name\) \(id 7\)$/m);
    } finally {
      await sandbox.close();
    }
  });

  /**
   * `auth login` on a terminal with a key already stored, the answers typed as `type` says, each once `asked`
   * has seen its question on stderr; the stored key after.
   */
  async function relogin(type: (terminal: NodeJS.WritableStream, asked: (question: string) => Promise<void>) => Promise<void>) {
    const config = tempConfigDir();
    try {
      await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { configDir: config.dir, stdin: DEMO_KEY });
      let typing: Promise<void> = Promise.resolve();
      const result = await gymctl(['auth', 'login', '--base-url', world.sandbox.url], {
        configDir: config.dir,
        stdinTTY: true,
        started: (streams: FakeStreams) => {
          // The nth question asked is the nth time its text is on stderr.
          const seen = new Map<string, number>();
          const asked = (question: string) => {
            const nth = (seen.get(question) ?? 0) + 1;
            seen.set(question, nth);
            return waitFor(`question ${nth} ${JSON.stringify(question)} on stderr`, () => streams.stderr().split(question).length > nth);
          };
          typing = type(streams.terminal!, asked);
          // A question never asked: the terminal ends, so that the login ends too and the test fails saying why.
          typing.catch(() => streams.terminal!.end());
        },
      });
      await typing;
      const stored = JSON.parse(readFileSync(path.join(config.dir, 'config.json'), 'utf8')) as { profiles: { default: { apiKey: string } } };
      return { ...result, key: stored.profiles.default.apiKey };
    } finally {
      config.remove();
    }
  }
  const QUESTION = `Profile "default" already has a key (****mies). Replace it? [y/N] `;
  const KEY_PROMPT = 'Paste your API key (input is hidden): ';

  it('auth login on a terminal asks before replacing a stored key, reading a line: n keeps it (the terminal echoes what is typed)', async () => {
    const kept = await relogin(async (terminal, asked) => {
      await asked(QUESTION);
      terminal.write('n\n');
    });
    expect(kept).toMatchObject({ code: 0, stdout: '', key: DEMO_KEY });
    expect(kept.stderr).toBe(`${QUESTION}Kept the stored key of profile "default".\n`);
  });

  it('Enter alone means no, and an answer that is neither asks again', async () => {
    const enter = await relogin(async (terminal, asked) => {
      await asked(QUESTION);
      terminal.write('\n');
    });
    expect(enter).toMatchObject({ code: 0, key: DEMO_KEY });
    const again = await relogin(async (terminal, asked) => {
      await asked(QUESTION);
      terminal.write('maybe\n');
      await asked(QUESTION);
      terminal.write('no\n');
    });
    expect(again).toMatchObject({ code: 0, key: DEMO_KEY });
    expect(again.stderr).toBe(`${QUESTION}Please answer y or n. ${QUESTION}Kept the stored key of profile "default".\n`);
  });

  it('"yes" then the new key replaces it: neither the Enter after yes nor its "es" reaches the hidden prompt', async () => {
    const replaced = await relogin(async (terminal, asked) => {
      await asked(QUESTION);
      terminal.write('yes\n');
      await asked(KEY_PROMPT);
      terminal.write('demo_key_no_academies\r');
    });
    expect(replaced).toMatchObject({ code: 0, key: 'demo_key_no_academies' });
    expect(replaced.stderr).toContain(KEY_PROMPT);
  });

  it('y and the key typed ahead in one go: the key is left for the hidden prompt', async () => {
    const replaced = await relogin(async (terminal, asked) => {
      await asked(QUESTION);
      terminal.write('y\ndemo_key_no_academies\r');
    });
    expect(replaced).toMatchObject({ code: 0, key: 'demo_key_no_academies' });
  });
});

describe('an empty stdin for -', () => {
  it('at a terminal says there were no ids on stdin; in a pipe, the header alone; exit 0 and nothing sent either way', async () => {
    const screen = await gymctl(['academy', '-'], { stdin: '', stdoutTTY: true, stderrTTY: true, env: api() });
    expect(screen).toMatchObject({ code: 0, stdout: '', stderr: 'No academy ids on stdin, so nothing to show.\n' });
    const family = await gymctl(['family', '-'], { stdin: '\n# none\n', stdoutTTY: true, stderrTTY: true, env: api() });
    expect(family.stderr).toBe('No member ids on stdin, so nothing to show.\n');
    const pipe = await gymctl(['academy', '-', '--format', 'csv'], { stdin: '', env: api() });
    expect(pipe).toMatchObject({ code: 0, stderr: '' });
    expect(world.requests).toEqual([]);
  });
});
