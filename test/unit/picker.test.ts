/**
 * The picker in accessible mode: a numbered list and a line read, where a
 * line is a number of the list shown or text to filter by, as its
 * question ("type to filter") says. The list drawn in place
 * (@inquirer/search) is typed into under tmux in test/e2e/picker.test.ts,
 * and here given keys that arrive in one read, as a paste does.
 */
import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { Interrupted } from '../../src/failures.js';
import { createIO } from '../../src/terminal/io.js';
import { pick } from '../../src/terminal/picker.js';
import { gymctl, fakeStreams } from '../helpers/harness.js';

const CHOICES = [
  { value: '1', name: 'Alfama Jiu-Jitsu (id 1)' },
  { value: '2', name: 'Eastside Grappling Club (id 2)' },
  { value: '3', name: 'Shoreditch Martial Arts (id 3)' },
  { value: '4', name: 'Shibuya Judo Dojo (id 4)' },
];

/** Picks from CHOICES in accessible mode, with `lines` typed; the value picked (or the failure) and what stderr said. */
async function typed(...lines: string[]) {
  const fakes = fakeStreams({ stdinTTY: true, stdoutTTY: true, stderrTTY: true });
  const io = createIO(fakes.streams, { env: { GYMCTL_ACCESSIBLE: '1' } });
  for (const line of lines) fakes.terminal!.write(line);
  const outcome = await pick(io, 'Which academy? (type to filter)', CHOICES).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { ...outcome, stderr: fakes.stderr() };
}

const LIST = '  1) Alfama Jiu-Jitsu (id 1)\n  2) Eastside Grappling Club (id 2)\n  3) Shoreditch Martial Arts (id 3)\n  4) Shibuya Judo Dojo (id 4)\n';
const ASK = (n: number) => `Number (1 to ${n}), or text to filter: `;

describe('the accessible picker', () => {
  it('a number of the list picks it', async () => {
    const result = await typed('2\n');
    expect(result).toMatchObject({ value: '2' });
    expect(result.stderr).toBe(`Which academy? (type to filter)\n${LIST}${ASK(4)}`);
  });

  it('text filters the list (case aside): several matches are shown numbered afresh, and a number picks of those', async () => {
    const result = await typed('sh\n', '2\n');
    expect(result).toMatchObject({ value: '4' });
    expect(result.stderr).toBe(`Which academy? (type to filter)\n${LIST}${ASK(4)}2 match "sh":\n  1) Shoreditch Martial Arts (id 3)\n  2) Shibuya Judo Dojo (id 4)\n${ASK(2)}`);
  });

  it('one match is picked, and said', async () => {
    const result = await typed('JUDO\n');
    expect(result).toMatchObject({ value: '4' });
    expect(result.stderr).toBe(`Which academy? (type to filter)\n${LIST}${ASK(4)}Only one matches "JUDO": Shibuya Judo Dojo (id 4)\n`);
  });

  it('no match says so and keeps the list; a number not in the list says so; an empty line shows the whole list again', async () => {
    const result = await typed('karate\n', '9\n', 'sh\n', '\n', '1\n');
    expect(result).toMatchObject({ value: '1' });
    expect(result.stderr).toBe(
      `Which academy? (type to filter)\n${LIST}${ASK(4)}` +
        `Nothing matches "karate". ${ASK(4)}` +
        `There is no 9 in the list. ${ASK(4)}` +
        `2 match "sh":\n  1) Shoreditch Martial Arts (id 3)\n  2) Shibuya Judo Dojo (id 4)\n${ASK(2)}` +
        `All 4:\n${LIST}${ASK(4)}`,
    );
  });

  it('a filter typed with an escape sequence is said made safe', async () => {
    const result = await typed('\u001b[31mx\n', '3\n');
    expect(result).toMatchObject({ value: '3' });
    expect(result.stderr).not.toContain('\u001b[31m');
    expect(result.stderr).toContain('Nothing matches "^[[31mx". ');
  });

  it('Ctrl-D (the end of input) gives up, as an interrupt: at the question, or right after a line', async () => {
    for (const before of ['', 'sh\n']) {
      const fakes = fakeStreams({ stdinTTY: true, stdoutTTY: true, stderrTTY: true });
      const io = createIO(fakes.streams, { env: { GYMCTL_ACCESSIBLE: '1' } });
      const picking = pick(io, 'Which academy?', CHOICES);
      fakes.terminal!.end(before);
      await expect(picking, JSON.stringify(before)).rejects.toBeInstanceOf(Interrupted);
    }
  });
});

describe('the list drawn in place, given keys in one read (a paste, tmux send-keys, expect)', () => {
  /** Picks from CHOICES, `keys` written in one read once the list is drawn (its pointer ❯); the value picked. */
  async function pasted(keys: string) {
    const fakes = fakeStreams({ stdinTTY: true, stdoutTTY: true, stderrTTY: true });
    const picking = pick(createIO(fakes.streams, { env: {} }), 'Which academy?', CHOICES);
    for (let turns = 0; !fakes.stderr().includes('❯'); turns++) {
      if (turns === 1000) throw new Error(`no list drawn: ${JSON.stringify(fakes.stderr())}`);
      await new Promise(setImmediate);
    }
    fakes.terminal!.write(keys);
    return picking;
  }

  it('text and Enter together pick the first academy the text matches, as the prompt shows, not the first of the list before it', async () => {
    expect(await pasted('Shib\r')).toBe('4');
    expect(await pasted('sh\r')).toBe('3');
  });

  it('arrows and Enter together pick the academy the arrows reach', async () => {
    expect(await pasted('\u001b[B\u001b[B\r')).toBe('3');
  });

  it('text that matches nothing, with Enter, picks nothing: a usage error that says so', async () => {
    const failure = await pasted('zzz\r').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GymctlError);
    expect(failure).toMatchObject({ kind: 'usage', message: 'nothing in the list matches "zzz"' });
  });
});

describe('gymctl academy with no id, in accessible mode', () => {
  it('takes the filter its question offers: "(type to filter)", then the academy shown and the command that does the same', async () => {
    const result = await gymctl(['academy', '--sandbox'], {
      stdinTTY: true,
      stdoutTTY: true,
      stderrTTY: true,
      env: { GYMCTL_ACCESSIBLE: '1', NO_COLOR: '1' },
      started: ({ terminal }) => terminal!.write('shibuya\n'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Which academy? (type to filter)');
    expect(result.stderr).toContain('Only one matches "shibuya": Shibuya Judo Dojo (id 4)');
    expect(result.stderr).toContain('gymctl academy 4 --sandbox');
    expect(result.stdout).toMatch(/Name: Shibuya Judo Dojo/);
  });
});
