/**
 * `gymctl academy` with no id at a real terminal (tmux): a list of the
 * key's academies to choose from, typed to filter (@inquirer/search), or
 * numbered in accessible mode; the same command with the id is said on
 * stderr. Off a terminal, or with GYMCTL_NO_INPUT=1, the usage error.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { gymctl } from '../helpers/harness.js';
import { hasTool } from '../helpers/tls.js';
import { keys, line, typeInTmux } from '../helpers/tmux.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(path.join(tmpdir(), 'gymctl-picker-'));
  mkdirSync(path.join(home, 'bin'));
  mkdirSync(path.join(home, 'config'), { mode: 0o700 });
  writeFileSync(path.join(home, 'bin', 'gymctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(path.join(home, 'bin', 'gymctl'), 0o755);
});
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));

const env = (extra: Record<string, string> = {}) => ({
  ...cleanEnv(path.join(home, 'config'), extra),
  PATH: `${path.join(home, 'bin')}:${process.env.PATH}`,
  HOME: home,
  HISTFILE: '/dev/null',
  TERM: 'xterm-256color',
});

describe.skipIf(!hasTool('tmux', ['-V']))('choosing an academy at a terminal', () => {
  it('typing filters the list; Enter picks; the same command with the id is said on stderr', async () => {
    const screen = await typeInTmux(
      'bash --norc --noprofile',
      [
        line('gymctl academy --sandbox', /Shibuya Judo Dojo \(id 4\)/),
        // Enter once the list shows the filter's effect (keys read together, as a paste is, are in test/unit/picker.test.ts).
        keys('Shib', (shown) => !shown.includes('Alfama')),
        { press: ['Enter'], until: /Name\s+Shibuya/ },
      ],
      { env: env(), cwd: home },
    );
    expect(screen).toContain('gymctl academy 4 --sandbox');
    expect(screen).toMatch(/Name\s+Shibuya Judo Dojo/);
    expect(screen).not.toContain('Alfama Jiu-Jitsu');
  });

  it('in accessible mode, a numbered list and a line read, a filter or a number: nothing drawn in place', async () => {
    const screen = await typeInTmux(
      'bash --norc --noprofile',
      [line('GYMCTL_ACCESSIBLE=1 gymctl academy --sandbox', /^Number \(1 to 4\), or text to filter:/m), line('sh', /^Number \(1 to 2\), or text to filter:/m), line('2', /Name: /)],
      {
        env: env(),
        cwd: home,
      },
    );
    expect(screen).toContain('1) Alfama Jiu-Jitsu (id 1)');
    expect(screen).toContain('4) Shibuya Judo Dojo (id 4)');
    expect(screen).toContain('2 match "sh":');
    expect(screen).toContain('gymctl academy 4 --sandbox');
    expect(screen).toContain('Name: Shibuya Judo Dojo');
  });
});

describe('with no id, off a terminal or with GYMCTL_NO_INPUT=1', () => {
  it('is the usage error that names the argument, and sends nothing', async () => {
    for (const options of [
      { stdinTTY: false, stdoutTTY: true },
      { stdinTTY: true, stdoutTTY: false },
      { stdinTTY: true, stdoutTTY: true, env: { GYMCTL_NO_INPUT: '1' } },
    ]) {
      const result = await gymctl(['academy', '--sandbox'], { configDir: path.join(home, 'config'), ...options });
      expect(result.code, JSON.stringify(options)).toBe(2);
      expect(result.stderr).toBe("gymctl: missing required argument 'academyId'; usage: gymctl academy [options] <academyId...>\n");
    }
  });
});
