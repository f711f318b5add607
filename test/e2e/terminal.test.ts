/**
 * What only a real terminal shows: a table fitted to its width, and a
 * progress line that is erased, typed into bash under tmux with gymctl on
 * PATH.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { hasTool } from '../helpers/tls.js';
import { line, typeInTmux } from '../helpers/tmux.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(path.join(tmpdir(), 'gymctl-terminal-'));
  mkdirSync(path.join(home, 'bin'));
  writeFileSync(path.join(home, 'bin', 'gymctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(path.join(home, 'bin', 'gymctl'), 0o755);
  writeFileSync(path.join(home, 'ids.txt'), `${Array.from({ length: 300 }, (_, i) => (i % 4) + 1).join('\n')}\n`);
});
afterAll(() => rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
const env = () => ({ ...cleanEnv(path.join(home, 'config'), { NO_COLOR: '1' }), PATH: `${path.join(home, 'bin')}:${process.env.PATH}`, HOME: home, HISTFILE: '/dev/null' });

describe.skipIf(!hasTool('tmux', ['-V']))('in a real terminal', () => {
  it('a table is never wider than a 52-column terminal', async () => {
    const screen = await typeInTmux('bash --norc --noprofile', [line('clear'), line('gymctl academy 1 2 3 4 --sandbox')], {
      env: env(),
      cwd: home,
      width: 52,
      height: 30,
    });
    const lines = screen.split('\n').filter((line) => /[│┌└]/.test(line));
    expect(lines.length).toBe(7);
    for (const line of lines) expect([...line.trimEnd()].length).toBeLessThanOrEqual(52);
    expect(screen).toContain('…');
  });

  it('the progress line of a long batch is gone when it ends, and the prompt is on a line of its own', async () => {
    const screen = await typeInTmux('bash --norc --noprofile', [line('clear'), line('gymctl academy - --sandbox --format ndjson < ids.txt > /dev/tty; echo done')], {
      env: env(),
      cwd: home,
      width: 120,
      height: 20,
    });
    expect(screen).not.toContain('Fetching academies');
    expect(screen).toMatch(/^done\n\$ ?$/m);
  });
});
