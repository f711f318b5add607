/** The in-process harness itself: exit codes, streams, TTY switches and interrupts, without a process. */
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/failures.js';
import { gymctl } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

describe('run(argv, { io, env }) in-process', () => {
  it('returns the exit code and what went to stdout and stderr', async () => {
    const ok = await gymctl(['academy', '1', '--sandbox', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).name).toBe('Alfama Jiu-Jitsu');
    expect(ok.stderr).toBe('');
    const bad = await gymctl(['academy', 'abc']);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^gymctl: invalid academy id "abc"/) });
  });

  it('stdout as a terminal gets a card; in a pipe, tab-separated lines', async () => {
    const card = await gymctl(['academy', '1', '--sandbox'], { stdoutTTY: true, columns: 100, env: { NO_COLOR: '1' } });
    expect(card.stdout).toMatch(/^ID\s+1\nName\s+Alfama Jiu-Jitsu\n/);
    const piped = await gymctl(['academy', '1', '--sandbox']);
    expect(piped.stdout.split('\n')[0]).toBe(
      'id\tname\tcurrency\temail\tphone\taddress.line1\taddress.line2\taddress.city\taddress.state\taddress.postalCode\taddress.country\tcoordinates.lat\tcoordinates.lng\tfranchiseId\tlogoUrl\tcreatedAt',
    );
  });

  it('an interrupt ends the command with 130, or 143 for SIGTERM, printing nothing', async () => {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const controller = new AbortController();
      // Interrupted while it reads ids from a terminal that never ends them: once something reads the terminal.
      const result = gymctl(['academy', '-', '--sandbox'], {
        stdinTTY: true,
        signal: controller.signal,
        started: ({ terminal }) =>
          void waitFor('a reader of stdin', () => terminal!.listenerCount('readable') + terminal!.listenerCount('data') > 0).then(
            () => controller.abort(new Interrupted(signal)),
            (error: unknown) => controller.abort(error),
          ),
      });
      expect(await result).toEqual({ code, stdout: '', stderr: '' });
    }
  });
});
