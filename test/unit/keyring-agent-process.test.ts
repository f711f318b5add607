/**
 * How the keyring agent, the one child process gymctl starts, is started
 * (src/keyring/client.ts, through its seam `agentProcess`): hidden on
 * Windows (windowsHide), so that gymctl started by a program with no
 * console, an assistant running `gymctl mcp`, flashes no console window;
 * and without the key of GYMCTL_API_KEY in its environment. The stand-in
 * agent is a real child process that answers as the agent does.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentProcess, readKeyringKey } from '../../src/keyring/client.js';
import { ROOT } from '../helpers/cli.js';

const realSpawn = agentProcess.spawn;
afterEach(() => {
  agentProcess.spawn = realSpawn;
});

describe('the keyring agent’s process', () => {
  it('is started hidden (windowsHide), with the environment given but GYMCTL_API_KEY, and its answer read', async () => {
    const started: Array<{ command: string; args: readonly string[]; options: Parameters<typeof realSpawn>[2] }> = [];
    agentProcess.spawn = (command, args, options) => {
      started.push({ command, args, options });
      // The agent's answer to a `get`, from a process of its own.
      return spawn(
        process.execPath,
        ['-e', 'process.stdin.resume(); process.stdin.on("end", () => process.stdout.write(JSON.stringify({ ok: true, value: "stored_key_1234" })))'],
        options,
      );
    };
    const key = await readKeyringKey('work', { env: { PATH: process.env.PATH, GYMCTL_API_KEY: 'never_passed_on', HOME: '/home/rita' } });
    expect(key).toBe('stored_key_1234');
    expect(started).toHaveLength(1);
    expect(started[0]!.command).toBe(process.execPath);
    expect(started[0]!.args).toEqual([expect.stringMatching(/keyring-agent\.cjs$/)]);
    expect(started[0]!.options.windowsHide).toBe(true);
    expect(started[0]!.options.env).toEqual({ PATH: process.env.PATH, HOME: '/home/rita' });
  });

  it('is the only child process gymctl starts: no other module of src/ reaches node:child_process', () => {
    const sources = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
    const starting = sources.filter((file) => /child_process|\b(spawn|execFile|fork)(Sync)?\(/.test(readFileSync(path.join(ROOT, 'src', file), 'utf8')));
    // A new one must be started hidden too (windowsHide), and tested so here.
    expect(starting).toEqual([path.join('keyring', 'client.ts')]);
  });
});
