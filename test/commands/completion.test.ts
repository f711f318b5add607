/**
 * `gymctl __complete`, in-process: what Tab offers after `gymctl academy`
 * when the key has more academies than are named, and how many requests it
 * costs in each shell (bash, which shows no names, asks for none). The
 * scripts that read these lines are tested in real shells in
 * test/e2e/completion.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { SHELL_VARIABLE, tabWait } from '../../src/commands/complete/run.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempConfigDir } from '../helpers/cli.js';
import { gymctl, tabDeadline } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';
import { httpServer } from '../helpers/servers.js';

const KEY = 'demo_key_all_academies';
const IDS = Array.from({ length: 200 }, (_, i) => i + 1);

/** A server for a key scoped to 200 academies, counting the academies asked for (and, apart, the times /me is). */
async function manyAcademies(answer: { names: boolean } = { names: true }, seen: (url: string) => void = () => {}) {
  const asked: string[] = [];
  const me = { asked: 0 };
  const url = await httpServer((request, response) => {
    seen(request.url ?? '');
    response.setHeader('content-type', 'application/json');
    if (request.url === '/me') {
      me.asked++;
      return void response.end(JSON.stringify({ data: { id: 1, name: 'many', academyIds: IDS } }));
    }
    const id = /^\/academies\/(\d+)$/.exec(request.url ?? '')?.[1];
    if (!id) return void response.writeHead(404).end('{}');
    asked.push(id);
    if (!answer.names) return; // never answered
    response.end(JSON.stringify({ data: { id: Number(id), name: `Academy ${id}`, currency: 'EUR', email: null, phone: null, logoUrl: null, createdAt: '2020-01-01T00:00:00Z' } }));
  });
  return { url, asked, me };
}

/**
 * Runs `__complete` for `words`, with the warnings the process emitted meanwhile; in `configDir` when given, else a fresh one;
 * asked by `shell` as its script says it (none: an older script, which does not).
 */
async function completeIn(configDir: string | undefined, url: string, ...words: string[]) {
  return completeFor(undefined, configDir, url, ...words);
}

async function completeFor(shell: string | undefined, configDir: string | undefined, url: string, ...words: string[]) {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  try {
    const env = { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: KEY, [SHELL_VARIABLE]: shell };
    const result = await gymctl(['__complete', '--', ...words], { env, ...(configDir ? { configDir } : {}) });
    // A warning is emitted on the next tick: let it come.
    await new Promise((resolve) => setImmediate(resolve));
    return { ...result, lines: result.stdout.split('\n').slice(0, -1), warnings };
  } finally {
    process.off('warning', onWarning);
  }
}

const complete = (url: string, ...words: string[]) => completeIn(undefined, url, ...words);

describe("Tab after gymctl academy, for a key's 200 academies", () => {
  it('offers every id, in the order of the key, the first 50 named; no warning on stderr or in the process', async () => {
    const server = await manyAcademies();
    const result = await complete(server.url, 'academy', '');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.warnings).toEqual([]);
    expect(result.lines.at(-1)).toBe(':none');
    const offered = result.lines.slice(0, -1);
    expect(offered.map((line) => line.split('\t')[0])).toEqual(IDS.map(String));
    expect(offered.slice(0, 50)).toEqual(IDS.slice(0, 50).map((id) => `${id}\tAcademy ${id}`));
    expect(offered.slice(50).every((line) => !line.includes('\t'))).toBe(true);
    // A name is a request: only the 50 named are asked for.
    expect(server.asked.sort((a, b) => Number(a) - Number(b))).toEqual(IDS.slice(0, 50).map(String));
  });

  it('offers the ids that start with what is typed, less those already given, and names the first 50 of them', async () => {
    const server = await manyAcademies();
    const result = await complete(server.url, 'academy', '10', '1');
    const expected = IDS.map(String).filter((id) => id.startsWith('1') && id !== '10');
    expect(expected).toHaveLength(110);
    const offered = result.lines.slice(0, -1);
    expect(offered.map((line) => line.split('\t')[0])).toEqual(expected);
    expect(offered.slice(0, 50)).toEqual(expected.slice(0, 50).map((id) => `${id}\tAcademy ${id}`));
    expect(offered.slice(50).every((line) => !line.includes('\t'))).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('at its deadline: the ids alone when the names have not come, and nothing when the ids have not', async () => {
    // The deadline comes once the server holds every request Tab makes, unanswered: after it, by construction.
    const namesSilent = await manyAcademies({ names: false });
    const namesAsked = new AbortController();
    tabDeadline(namesAsked.signal);
    const unnamed = complete(namesSilent.url, 'academy', '');
    await waitFor('the 50 names asked for', () => namesSilent.asked.length === 50);
    namesAsked.abort();
    expect((await unnamed).lines).toEqual([...IDS.map(String), ':none']);

    let asked = 0;
    const silent = await httpServer(() => void asked++); // never answers
    const idsAsked = new AbortController();
    tabDeadline(idsAsked.signal);
    const nothing = complete(silent, 'academy', '');
    await waitFor('the ids asked for', () => asked === 1);
    idsAsked.abort();
    expect((await nothing).lines).toEqual([':none']);
  });

  it('the deadline counts from the first request: reading the settings and making the client come before it is asked for', async () => {
    // Under Wine, loading gymctl's modules took most of the half second, and Tab offered ids without their names.
    const order: string[] = [];
    const read = ConfigStore.prototype.read;
    const spy = vi.spyOn(ConfigStore.prototype, 'read').mockImplementation(function (this: ConfigStore) {
      order.push('settings read');
      return read.call(this);
    });
    tabWait.deadline = () => {
      order.push('deadline');
      return new AbortController().signal;
    };
    try {
      const server = await manyAcademies({ names: true }, () => order.push('request'));
      const result = await complete(server.url, 'academy', '');
      expect(result.lines).toHaveLength(IDS.length + 1);
      // Each step once or more, in this order: the settings (read maybe more than once), the deadline, the requests.
      expect(order.filter((step, i) => step !== order[i - 1])).toEqual(['settings read', 'deadline', 'request']);
    } finally {
      spy.mockRestore();
    }
  });

  it("gymctl's own deadline, half a second, ends the wait for a server that never answers: nothing is offered", async () => {
    tabDeadline('gymctl');
    const silent = await httpServer(() => {}); // never answers
    expect((await complete(silent, 'academy', '')).lines).toEqual([':none']);
  });

  it('reads the answers --cache kept, asking the server only for the rest, and writes none of its own to the cache', async () => {
    const server = await manyAcademies();
    const config = tempConfigDir();
    try {
      const env = { GYMCTL_BASE_URL: server.url, GYMCTL_API_KEY: KEY };
      expect((await gymctl(['whoami', '--cache', '1h'], { env, configDir: config.dir })).code).toBe(0);
      expect((await gymctl(['academy', '1', '2', '--cache', '1h'], { env, configDir: config.dir })).code).toBe(0);
      expect(server.me.asked).toBe(1);
      server.asked.length = 0;
      const result = await completeIn(config.dir, server.url, 'academy', '');
      expect(result.stderr).toBe('');
      expect(result.lines.slice(0, 3)).toEqual(['1\tAcademy 1', '2\tAcademy 2', '3\tAcademy 3']);
      // The ids and the first two names came from the cache; the other names from the server.
      expect(server.me.asked).toBe(1);
      expect(server.asked.sort((a, b) => Number(a) - Number(b))).toEqual(IDS.slice(2, 50).map(String));
      // What Tab fetched was not kept: academy 3 is asked for again.
      server.asked.length = 0;
      expect((await gymctl(['academy', '3', '--cache', '1h'], { env, configDir: config.dir })).code).toBe(0);
      expect(server.asked).toEqual(['3']);
    } finally {
      config.remove();
    }
  });
});

describe('what Tab costs in each shell: bash shows no names and asks for none', () => {
  it('bash: the ids alone, from one request (GET /me), whatever is typed', async () => {
    for (const typed of [[''], ['1'], ['10', '1']]) {
      const server = await manyAcademies();
      const result = await completeFor('bash', undefined, server.url, 'academy', ...typed);
      const current = typed.at(-1)!;
      expect(result.lines).toEqual([...IDS.map(String).filter((id) => id.startsWith(current) && !typed.slice(0, -1).includes(id)), ':none']);
      expect(server.me.asked + server.asked.length, typed.join(' ')).toBeLessThanOrEqual(1);
    }
  });

  it('zsh, fish, PowerShell and an older script: names, at most one request more than the ids shown', async () => {
    for (const shell of ['zsh', 'fish', 'pwsh', undefined]) {
      for (const typed of [[''], ['19']]) {
        const server = await manyAcademies();
        const result = await completeFor(shell, undefined, server.url, 'academy', ...typed);
        const shown = result.lines.slice(0, -1);
        expect(shown.length, `${shell} ${typed}`).toBe(typed[0] === '' ? 200 : 11);
        expect(shown[0], `${shell} ${typed}`).toBe(typed[0] === '' ? '1\tAcademy 1' : '19\tAcademy 19');
        expect(server.me.asked + server.asked.length, `${shell} ${typed}`).toBeLessThanOrEqual(1 + shown.length);
      }
    }
  });
});

describe('a refused key (401, 403) on Tab', () => {
  it('refused at GET /me: that one request, nothing offered, in every shell', async () => {
    for (const status of [401, 403]) {
      for (const shell of ['bash', 'zsh', undefined]) {
        const urls: string[] = [];
        const url = await httpServer((request, response) => {
          urls.push(request.url ?? '');
          response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Invalid API key' } }));
        });
        const result = await completeFor(shell, undefined, url, 'academy', '');
        expect(result.lines, `${status} ${shell}`).toEqual([':none']);
        expect(result.stderr).toBe('');
        expect(urls, `${status} ${shell}`).toEqual(['/me']);
      }
    }
  });

  it('refused for a name: the requests still in flight are dropped at once, not left to the deadline, and the ids offered alone', async () => {
    // The deadline never comes (the harness's default): only the refusal can end the wait for the names held unanswered.
    const held: Array<{ closed: boolean }> = [];
    let refused = false;
    const url = await httpServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/me') return void response.end(JSON.stringify({ data: { id: 1, name: 'many', academyIds: IDS } }));
      if (!refused && request.url === '/academies/7') {
        refused = true;
        return void response.writeHead(403).end(JSON.stringify({ error: { message: 'Forbidden' } }));
      }
      const request_ = { closed: false };
      held.push(request_);
      response.on('close', () => (request_.closed = true));
    });
    const result = await completeFor('zsh', undefined, url, 'academy', '');
    expect(refused).toBe(true);
    expect(result.lines).toEqual([...IDS.map(String), ':none']);
    await waitFor('the held requests dropped', () => held.every((request) => request.closed));
  });
});

describe('gymctl completion: the shell as an argument, or with -s or --shell', () => {
  it('-s bash and --shell bash print the script `completion bash` prints; so do both named alike', async () => {
    for (const shell of ['bash', 'zsh', 'fish', 'pwsh']) {
      const script = (await gymctl(['completion', shell])).stdout;
      expect(script).toContain('__complete');
      for (const args of [['-s', shell], ['--shell', shell], [`--shell=${shell}`], [shell, '--shell', shell]]) {
        const result = await gymctl(['completion', ...args]);
        expect(result.code, args.join(' ')).toBe(0);
        expect(result.stderr, args.join(' ')).toBe('');
        expect(result.stdout, args.join(' ')).toBe(script);
      }
    }
    expect((await gymctl(['completion', '--shell', 'powershell'])).stdout).toBe((await gymctl(['completion', 'pwsh'])).stdout);
  });

  it('no shell, two different shells, or one with no script: a usage error (exit 2), nothing on stdout', async () => {
    const refusals: Array<[string[], string]> = [
      [[], "gymctl: missing required argument 'shell'; usage: gymctl completion [options] <shell>\n"],
      [['bash', '--shell', 'zsh'], 'gymctl: two shells named, "bash" and --shell "zsh": name one\n'],
      [['--shell', 'tcsh'], 'gymctl: no completion for "tcsh": expected one of bash, zsh, fish, pwsh\n'],
      [['tcsh'], 'gymctl: no completion for "tcsh": expected one of bash, zsh, fish, pwsh\n'],
    ];
    for (const [args, message] of refusals) {
      const result = await gymctl(['completion', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toBe(message);
    }
    expect((await gymctl(['completion', '--shell'])).stderr).toMatch(/^gymctl: option '-s, --shell <shell>' argument missing/);
  });

  it('Tab offers -s and --shell, and the shells after --shell', async () => {
    const flags = (await gymctl(['__complete', '--', 'completion', '-'])).stdout.split('\n');
    expect(flags).toEqual(expect.arrayContaining(['-s', '--shell']));
    expect((await gymctl(['__complete', '--', 'completion', '--shell', ''])).stdout).toBe('bash\nzsh\nfish\npwsh\n:none\n');
    expect((await gymctl(['__complete', '--', 'completion', '-s', 'z'])).stdout).toBe('zsh\n:none\n');
  });
});

describe('Tab after a flag that is another name of one', () => {
  it('-o and --output offer the formats, as --format does', async () => {
    const formats = (await gymctl(['__complete', '--', 'academy', '--format', ''])).stdout;
    expect(formats).toContain('ndjson\n');
    for (const flag of ['-o', '--output']) expect((await gymctl(['__complete', '--', 'academy', flag, ''])).stdout, flag).toBe(formats);
  });
});
