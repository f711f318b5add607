/**
 * Shell completion in real bash, zsh and fish, with gymctl on PATH as a
 * user has it. The scripts ask `gymctl __complete` and only read lines:
 * a profile named `$(touch …)` in the config file must never run, and is
 * not offered. What only an interactive shell shows (file names after a
 * redirection, a zsh menu) is typed into one under tmux.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv } from '../helpers/cli.js';
import { httpServer } from '../helpers/servers.js';
import { hasTool } from '../helpers/tls.js';
import { ctrlC, line, type Step, tab, typeInTmux as tmuxIn } from '../helpers/tmux.js';

let home: string;
let bin: string;
let configDir: string;
let marker: string;
const hostile = () => `$(touch ${marker})`;

beforeAll(() => {
  home = mkdtempSync(path.join(tmpdir(), 'gymctl-completion-'));
  bin = path.join(home, 'bin');
  configDir = path.join(home, 'config');
  marker = path.join(home, 'pwned');
  mkdirSync(bin);
  mkdirSync(configDir, { mode: 0o700 });
  writeFileSync(path.join(bin, 'gymctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(path.join(bin, 'gymctl'), 0o755);
  // Two good profiles, and names no command line would accept: one that runs code if evaluated, one with an escape sequence.
  const profiles = { work: {}, home: {}, [hostile()]: {}, 'bad\u001b]0;x\u0007': {}, '`touch x`': {} };
  writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  writeFileSync(path.join(home, 'fixtures.json'), '{}');
  for (const shell of ['bash', 'zsh', 'fish']) {
    const script = spawnSync(path.join(bin, 'gymctl'), ['completion', shell], { encoding: 'utf8', env: env() }).stdout;
    writeFileSync(path.join(home, `gymctl.${shell}`), script);
  }
});
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));

const env = () => ({ ...cleanEnv(configDir), PATH: `${bin}:${process.env.PATH}`, HOME: home, HISTFILE: '/dev/null' });
/** Types steps into `shell` under tmux, in the test's home with gymctl on PATH. */
const typeInTmux = (shell: string, steps: Step[]) => tmuxIn(shell, steps, { env: env(), cwd: home });
const run = (shell: string, script: string) => spawnSync(shell, ['-c', script], { env: env(), encoding: 'utf8', cwd: home });

describe('gymctl __complete', () => {
  it('offers only valid profile names from the file, never one that does not fit', () => {
    const result = spawnSync(path.join(bin, 'gymctl'), ['__complete', '--', '--profile', ''], { env: env(), encoding: 'utf8' });
    expect(result.stdout).toBe('home\nwork\n:none\n');
  });
});

describe.skipIf(!hasTool('bash'))('bash', () => {
  const words = (...lines: string[][]) =>
    run(
      'bash',
      `source gymctl.bash
complete -p gymctl
t() { COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _gymctl_completions; echo "\${COMPREPLY[*]}"; }
${lines.map((line) => `t ${line.map((w) => `'${w}'`).join(' ')}`).join('\n')}`,
    );

  it('completes commands, subcommands, options and values, and help <command> with that command’s subcommands', () => {
    const result = words(
      ['gymctl', 'aca'],
      ['gymctl', 'auth', ''],
      ['gymctl', 'whoami', '--for'],
      ['gymctl', 'academy', '1', '--format', ''],
      ['gymctl', '--profile', ''],
      ['gymctl', 'config', 'set', ''],
      ['gymctl', 'config', 'set', 'format', ''],
      ['gymctl', 'config', 'set', 'default-profile', ''],
      ['gymctl', 'completion', ''],
      ['gymctl', 'help', 'auth', ''],
      ['gymctl', 'auth', 'login', ''],
      ['gymctl', 'academies', '--columns', 'id,address.c'],
      ['gymctl', 'config', 'set', 'key-store', ''],
      ['gymctl', 'cache', ''],
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      'complete -o nosort -F _gymctl_completions gymctl',
      'academy academies',
      'login status logout',
      '--format',
      'table json ndjson csv',
      'home work',
      'base-url format timeout retries key-store default-profile accessible csv-bom',
      'table json ndjson csv',
      'home work',
      'bash zsh fish pwsh',
      'login status logout',
      '',
      'id,address.city id,address.country',
      'config keyring',
      'clear',
      '',
    ]);
    expect(existsSync(marker), 'a profile name was run as code').toBe(false);
  });

  it('a bash without compopt (before 4.0) lists the file names itself where a file goes', () => {
    const result = run(
      'bash',
      `source gymctl.bash
compopt() { return 1; }
COMP_WORDS=(gymctl sandbox --data fix); COMP_CWORD=3; _gymctl_completions; echo "\${COMPREPLY[*]}"`,
    );
    expect(result.stdout).toBe('fixtures.json\n');
  });

  it.skipIf(!hasTool('tmux', ['-V']))('in an interactive bash, a redirection and --data complete file names', async () => {
    const screen = await typeInTmux('bash --norc --noprofile', [
      line('source gymctl.bash'),
      tab('gymctl academy - < fix', /gymctl academy - < fixtures\.json/),
      ctrlC(),
      tab('gymctl sandbox --data fix', /gymctl sandbox --data fixtures\.json/),
    ]);
    expect(screen).toContain('gymctl academy - < fixtures.json');
    expect(screen).toContain('gymctl sandbox --data fixtures.json');
    expect(existsSync(marker)).toBe(false);
  });

  it.skipIf(!hasTool('tmux', ['-V']))('in an interactive bash, academy ids that cannot be fetched offer nothing: never the folder’s file names', async () => {
    // A server that accepts and never answers, and a port where nothing listens.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    try {
      for (const base of [`http://127.0.0.1:${refusedPort}`, `http://127.0.0.1:${(silent.address() as AddressInfo).port}`]) {
        const screen = await tmuxIn(
          'bash --norc --noprofile',
          [
            line('source gymctl.bash'),
            // Tab on a start of a file's name: the line stays as typed (the Z typed after shows it).
            tab('gymctl academy fix', () => true),
            { type: 'Z', until: /gymctl academy fixZ$/m },
            ctrlC(),
            // Tab twice on nothing: no list of the folder.
            { type: 'gymctl academy ', press: ['Tab', 'Tab'], until: () => true },
            { type: 'Z', until: /gymctl academy Z$/m },
          ],
          { env: { ...env(), GYMCTL_BASE_URL: base, GYMCTL_API_KEY: 'demo_key_all_academies' }, cwd: home },
        );
        expect(screen, base).toContain('gymctl academy fixZ');
        expect(screen, base).not.toContain('fixtures.json');
        expect(screen, base).not.toMatch(/gymctl\.bash\s+gymctl\.fish/);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});

describe.skipIf(!hasTool('zsh') || !hasTool('tmux', ['-V']))('zsh', () => {
  it('completes subcommands and profile names in an interactive zsh, running nothing from the config file', async () => {
    const screen = await typeInTmux('zsh -f', [
      line('autoload -U compinit && compinit -u'),
      line('source gymctl.zsh'),
      tab('gymctl help au', /gymctl help auth/),
      ctrlC(),
      tab('gymctl --profile w', /gymctl --profile work/),
      ctrlC(),
      // Tab lists what is offered; a second Tab puts the first of it on the line.
      tab('gymctl --profile ', /^home\nwork$/m),
      { press: ['Tab'], until: /gymctl --profile home$/m },
    ]);
    expect(screen).toContain('gymctl help auth');
    expect(screen).toContain('gymctl --profile work');
    expect(existsSync(marker), 'a profile name was run as code').toBe(false);
    expect(screen).not.toContain('touch');
  });
});

describe.skipIf(!hasTool('fish'))('fish', () => {
  const words = (line: string) =>
    run('fish', `source gymctl.fish; complete -C '${line}'`)
      .stdout.trimEnd()
      .split('\n')
      .map((w) => w.split('\t')[0]);

  it('completes commands, subcommands, formats, profile names and config values', () => {
    expect(words('gymctl acad')).toEqual(['academies', 'academy']);
    expect(words('gymctl auth ')).toEqual(['login', 'logout', 'status']);
    expect(words('gymctl whoami --format ')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(words('gymctl --profile ')).toEqual(['home', 'work']);
    expect(words('gymctl config set format ')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(existsSync(marker), 'a profile name was run as code').toBe(false);
  });

  it('offers nothing more after auth login, and file names for --data', () => {
    expect(words('gymctl auth login ')).toEqual(['']);
    expect(words('gymctl sandbox --data fix')).toEqual(['fixtures.json']);
  });
});

describe("the key's academy ids on Tab, from a real server", () => {
  let sandbox: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    const { startSandbox } = await import('../../src/sandbox/server.js');
    sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => sandbox.close());
  // Tab waits for every answer here (tab-waits.cjs), not gymctl's half second: what the shells show of the ids and
  // names must not depend on how fast the machine answers.
  const apiEnv = () => ({
    ...env(),
    GYMCTL_BASE_URL: sandbox.url,
    GYMCTL_API_KEY: 'demo_key_all_academies',
    NODE_OPTIONS: `--require ${path.join(ROOT, 'test', 'helpers', 'tab-waits.cjs')}`,
  });
  /** Run without blocking: the server answering it runs in this process (the sandbox, or the one at `baseUrl`). */
  const shell = (name: string, script: string, baseUrl?: string) =>
    new Promise<{ stdout: string }>((resolve) => {
      const child = spawn(name, ['-c', script], { env: { ...apiEnv(), ...(baseUrl ? { GYMCTL_BASE_URL: baseUrl } : {}) }, cwd: home, stdio: ['ignore', 'pipe', 'ignore'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.on('close', () => resolve({ stdout }));
    });

  it.skipIf(!hasTool('bash'))('bash offers the ids alone', async () => {
    const result = await shell('bash', `source gymctl.bash; COMP_WORDS=(gymctl academy ""); COMP_CWORD=2; _gymctl_completions; echo "\${COMPREPLY[*]}"`);
    expect(result.stdout).toBe('1 2 3 4\n');
  });

  it.skipIf(!hasTool('bash'))('bash asks one request of the server for a key of 200 academies (GET /me), each time Tab is pressed', async () => {
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    const asked: string[] = [];
    const url = await httpServer((request, response) => {
      asked.push(request.url ?? '');
      response.setHeader('content-type', 'application/json');
      if (request.url === '/me') return void response.end(JSON.stringify({ data: { id: 1, name: 'many', academyIds: ids } }));
      const id = Number(/^\/academies\/(\d+)$/.exec(request.url ?? '')?.[1]);
      response.end(JSON.stringify({ data: { id, name: `Academy ${id}`, currency: 'EUR', email: null, phone: null, logoUrl: null, createdAt: '2020-01-01T00:00:00Z' } }));
    });
    const tab = `COMP_WORDS=(gymctl academy ""); COMP_CWORD=2; _gymctl_completions; echo "\${COMPREPLY[*]}"`;
    const once = await shell('bash', `source gymctl.bash; ${tab}`, url);
    expect(once.stdout).toBe(`${ids.join(' ')}\n`);
    expect(asked).toEqual(['/me']);
    // Tab Tab: the function runs twice.
    asked.length = 0;
    await shell('bash', `source gymctl.bash; ${tab}; ${tab}`, url);
    expect(asked).toEqual(['/me', '/me']);
  });

  it.skipIf(!hasTool('fish'))('fish shows each name beside its id', async () => {
    const result = await shell('fish', "source gymctl.fish; complete -C 'gymctl academy '");
    expect(result.stdout.trimEnd().split('\n')).toEqual(['1\tAlfama Jiu-Jitsu', '2\tEastside Grappling Club', '3\tShoreditch Martial Arts', '4\tShibuya Judo Dojo']);
  });

  it.skipIf(!hasTool('zsh') || !hasTool('tmux', ['-V']))('zsh shows each name beside its id', async () => {
    const screen = await tmuxIn('zsh -f', [line('autoload -U compinit && compinit -u'), line('source gymctl.zsh'), tab('gymctl academy ', /^4 {2}-- /m)], {
      env: apiEnv(),
      cwd: home,
    });
    expect(screen).toContain('1  -- Alfama Jiu-Jitsu');
    expect(screen).toContain('4  -- Shibuya Judo Dojo');
  });
});
