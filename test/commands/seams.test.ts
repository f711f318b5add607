/**
 * Where gymctl hands text to something else: a terminal, a JSON reader, a
 * trace. Text from the server or the config file never reaches a terminal
 * raw, and JSON error lines stay valid JSON that is safe to print.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl, interruptWhen } from '../helpers/harness.js';
import { tempConfigDir } from '../helpers/cli.js';
import { httpServer, rawServer } from '../helpers/servers.js';

const ESC = '\u001b';
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/;

describe('what goes to a terminal', () => {
  it('an unknown --option=value hides the whole value, quotes and all', async () => {
    const result = await gymctl(['whoami', "--key='ab'cd-secret-1234'"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--key=…'");
    expect(result.stderr).not.toContain('secret');
  });

  it('--debug trace lines are sanitised like error lines (a status text with an OSC title sequence)', async () => {
    const server = await rawServer(() => `HTTP/1.1 503 ${ESC}]0;pwned\u0007\r\nContent-Type: application/json\r\nRetry-After: 0\r\nContent-Length: 2\r\n\r\n{}`);
    const result = await gymctl(['whoami', '--debug', '--retries', '1'], { env: { GYMCTL_BASE_URL: server.url, GYMCTL_API_KEY: DEMO_KEY } });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('debug: < 503 ^[]0;pwned^G');
    expect(result.stderr).toContain('debug: retrying in 0 ms');
    expect(result.stderr).not.toContain(ESC);
    expect(result.stderr).not.toContain('\u0007');
  });

  /** Runs `test` with a config folder of its own whose file holds `profiles`; removed after. */
  async function withProfiles(profiles: Record<string, unknown>, test: (config: { dir: string }) => Promise<void>): Promise<void> {
    const config = tempConfigDir();
    try {
      mkdirSync(config.dir, { mode: 0o700 });
      writeFileSync(path.join(config.dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
      await test(config);
    } finally {
      config.remove();
    }
  }

  it('text from the config file is made safe on a terminal: auth status --all, config list', async () => {
    const profiles = { [`evil${ESC}]0;t\u0007`]: { baseUrl: `https://x${ESC}[2J.example` }, default: { baseUrl: `https://y.example/${ESC}[31m` } };
    await withProfiles(profiles, async (config) => {
      const status = await gymctl(['auth', 'status', '--all'], { configDir: config.dir, stdoutTTY: true });
      expect(status.stdout).toContain('evil^[]0;t^G');
      expect(status.stdout).toContain('https://x^[[2J.example');
      const list = await gymctl(['config', 'list'], { configDir: config.dir, stdoutTTY: true });
      // On a terminal, a card: the key, then its value made safe.
      expect(list.stdout).toMatch(/^\S*base-url\S*\s+https:\/\/y\.example\/\^\[\[31m$/m);
      // With colour, the only escapes are gymctl's own bold and dim.
      for (const output of [status.stdout, status.stderr, list.stdout]) expect(output.replace(/\u001b\[(1|2|22)m/g, '')).not.toContain(ESC);
    });
  });

  it('auth status --all: a stored key whose last characters are an escape sequence is shown made safe', async () => {
    await withProfiles({ evil: { apiKey: `abcdefghijkl${ESC}[2J`, baseUrl: 'https://gym.example' } }, async (config) => {
      for (const stdoutTTY of [true, false]) {
        const status = await gymctl(['auth', 'status', '--all'], { configDir: config.dir, stdoutTTY, env: { NO_COLOR: '1' } });
        expect(status.stdout).toContain('****^[[2J');
        expect(status.stdout).not.toContain(ESC);
      }
    });
  });

  it('gymctl sandbox prints key names from --data made safe', async () => {
    const config = tempConfigDir();
    try {
      mkdirSync(config.dir, { mode: 0o700 });
      const file = path.join(config.dir, 'data.json');
      const data = { ...DEMO_DATA, keys: [{ secret: 'k_0123456789', key: { id: 1, name: `Desk${ESC}]0;pwned\u0007\u202e`, academyIds: [] } }] };
      writeFileSync(file, JSON.stringify(data));
      const result = await gymctl(['sandbox', '--port', '0', '--data', file], {
        configDir: config.dir,
        // Ctrl-C once the sandbox says it is up and how to stop it: its keys are printed by then.
        ...interruptWhen('the sandbox up', (streams) => streams.stderr().includes('Press Ctrl-C to stop.')),
      });
      // Stopped by Ctrl-C: 130, as every command so stopped, once the sandbox has closed (it handles the interrupt itself).
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(/Press Ctrl-C to stop\.\nSandbox stopped\.\n$/);
      expect(result.stdout).toContain('Desk^[]0;pwned^G<U+202E>');
      expect(result.stdout).not.toMatch(HIDDEN);
    } finally {
      config.remove();
    }
  });
});

describe('JSON records', () => {
  it('on a terminal, C1 controls and bidi or invisible characters the server sent raw in a string are \\u escapes (the same JSON value); in a pipe, the bytes as sent', async () => {
    const name = 'Gym \u202eevil\u009b31m\u200b';
    const body = `{"data":{"id":7,"name":"${name}"}}`;
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
    const env = { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY };
    for (const args of [
      ['academy', '7', '--json'],
      ['academy', '7', '7', '--json'],
      ['academy', '7', '--format', 'ndjson'],
    ]) {
      const terminal = await gymctl(args, { env, stdoutTTY: true });
      expect(terminal.code).toBe(0);
      expect(terminal.stdout).not.toMatch(HIDDEN);
      expect(terminal.stdout).toContain('Gym \\u202eevil\\u009b31m\\u200b');
      expect(JSON.stringify(JSON.parse(terminal.stdout))).toContain(JSON.stringify(name).slice(1, -1));
      const pipe = await gymctl(args, { env });
      expect(pipe.stdout).toContain(name);
    }
    // A family's one answer is printed whole.
    const family = await gymctl(['family', '7', '--json'], {
      env: {
        GYMCTL_BASE_URL: await httpServer((_request, response) => response.end(`{"data":[{"id":8,"academyId":1,"firstName":"${name}","primaryFamilyMember":false}]}`)),
        GYMCTL_API_KEY: DEMO_KEY,
      },
      stdoutTTY: true,
    });
    expect(family.code).toBe(0);
    expect(family.stdout).not.toMatch(HIDDEN);
    expect(JSON.parse(family.stdout)[0].firstName).toBe(name);
  });
});

describe('JSON error lines', () => {
  it('escape bidi, zero-width and line-separator characters as \\uXXXX: still the same JSON value, safe on a terminal', async () => {
    const message = 'Resource \u202enot\u200b found\u2028\u2029';
    const url = await httpServer((_request, response) =>
      response.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message, correlationId: 'c\u200e1' })),
    );
    const result = await gymctl(['academy', '7', '--format', 'ndjson'], { env: { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY } });
    expect(result.code).toBe(3);
    expect(result.stderr).not.toMatch(HIDDEN);
    expect(result.stderr).toContain('\\u202e');
    const line = JSON.parse(result.stderr) as { error: { message: string; correlationId: string } };
    expect(line.error.message).toContain(message);
    expect(line.error.correlationId).toBe('c\u200e1');
  });
});
