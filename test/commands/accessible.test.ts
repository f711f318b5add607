/**
 * Accessible mode (GYMCTL_ACCESSIBLE=1, ACCESSIBLE=1, `config set
 * accessible true`), for screen readers: no box drawing, cards as plain
 * lines, progress appended and never redrawn, no cursor movement, colour
 * limited to bold and the basic colours.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { gymctl } from '../helpers/harness.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const BOX = /[─│┌┐└┘├┤┬┴┼═║]/;
/** Any escape sequence but colour (SGR): cursor movement, erasing, saving, scrolling. */
const CURSOR = /\u001b\[[0-9;?]*[A-HJKSTfnsu]|\u001b[78]|\r/;
/** Every SGR parameter: bold, dim, their reset, the 16 basic colours; never 256 or true colour (38;5, 38;2). */
const basicColourOnly = (text: string) => [...text.matchAll(/\u001b\[([0-9;]*)m/g)].every(([, params]) => !/(^|;)(38|48)(;|$)/.test(params!));

const terminal = (env: Record<string, string> = {}) => ({ configDir: world.config.dir, stdoutTTY: true, stderrTTY: true, columns: 100, rows: 5, env });

describe('accessible mode', () => {
  it('draws a table without a box: aligned columns under a header row', async () => {
    const boxed = await gymctl(['academies', '--sandbox'], terminal());
    expect(boxed.stdout).toMatch(BOX);
    const { stdout, code } = await gymctl(['academies', '--sandbox'], terminal({ GYMCTL_ACCESSIBLE: '1' }));
    expect(code).toBe(0);
    expect(stdout).not.toMatch(BOX);
    const plain = stdout.replace(/\u001b\[[0-9;]*m/g, '');
    const lines = plain.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID {2,}Name {2,}City {2,}Country {2,}Currency$/);
    // Aligned: every row's name starts where the header's does.
    const at = lines[0]!.indexOf('Name');
    for (const academy of DEMO_DATA.academies.filter((a) => [1, 2, 3, 4].includes(Number(a.id))))
      expect(lines.find((line) => line.startsWith(`${academy.id} `))!.indexOf(academy.name!)).toBe(at);
    expect(basicColourOnly(stdout)).toBe(true);
  });

  it('prints a card as plain `Label: value` lines; ACCESSIBLE=1 turns it on too', async () => {
    const { stdout } = await gymctl(['academy', '1', '--sandbox'], terminal({ ACCESSIBLE: '1', NO_COLOR: '1' }));
    expect(stdout.split('\n')).toContain(`Name: ${DEMO_DATA.academies[0]!.name}`);
    expect(stdout.split('\n').every((line) => line === '' || /^[A-Z][A-Za-z ]*: /.test(line))).toBe(true);
    expect(stdout).not.toMatch(BOX);
  });

  it('a value that says no (empty, 0, false, no, off, in any case) leaves it off, as GYMCTL_DEBUG reads the same words', async () => {
    for (const value of ['', '0', 'false', 'no', 'Off', ' NO ']) {
      const { stdout } = await gymctl(['academies', '--sandbox'], terminal({ GYMCTL_ACCESSIBLE: value, ACCESSIBLE: value }));
      expect(stdout, JSON.stringify(value)).toMatch(BOX);
    }
  });

  it('progress is appended, a line every tenth of the batch at most, and nothing moves the cursor', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => String((i % 4) + 1));
    const { stdout, stderr, code } = await gymctl(['academy', ...ids, '--sandbox'], terminal({ GYMCTL_ACCESSIBLE: '1' }));
    expect(code).toBe(0);
    const spoken = stderr.split('\n').filter(Boolean);
    expect(spoken.length).toBeGreaterThan(0);
    expect(spoken.length).toBeLessThanOrEqual(10);
    for (const line of spoken) expect(line).toMatch(/^Fetched \d+ of 40 academies$/);
    expect(stdout + stderr).not.toMatch(CURSOR);
    // Without it, the same batch redraws its line (carriage return, erase).
    expect((await gymctl(['academy', ...ids, '--sandbox'], terminal())).stderr).toMatch(CURSOR);
  });

  it('config set accessible true keeps it on; a value that is not true or false is a usage error', async () => {
    expect((await gymctl(['config', 'set', 'accessible', 'maybe'], { configDir: world.config.dir })).code).toBe(2);
    expect((await gymctl(['config', 'set', 'accessible', 'true'], { configDir: world.config.dir })).code).toBe(0);
    expect((await gymctl(['config', 'get', 'accessible'], { configDir: world.config.dir })).stdout).toBe('true\n');
    const { stdout } = await gymctl(['academies', '--sandbox'], terminal());
    expect(stdout).not.toMatch(BOX);
    expect((await gymctl(['config', 'unset', 'accessible'], { configDir: world.config.dir })).code).toBe(0);
    expect((await gymctl(['academies', '--sandbox'], terminal())).stdout).toMatch(BOX);
  });
});
