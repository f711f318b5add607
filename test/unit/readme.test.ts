/** The README says what the code does: its exit-code table, and the first thing a new user runs. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/failures.js';
import { ROOT } from '../helpers/cli.js';
import { gymctl } from '../helpers/harness.js';

describe('README', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('"Try it": the first command prints, in a pipe and on a terminal, what the README shows', async () => {
    const section = readme.split('\n## Try it, with no key and no network\n')[1]!.split('\n## ')[0]!;
    const [, command, piped, , card] = /```sh\n(.+)\n```\n\n```\n([\s\S]*?)```\n\n(.+)\n\n```\n([\s\S]*?)```/.exec(section)!;
    const args = command!.split(' ');
    expect(args.shift()).toBe('gymctl');
    const pipe = await gymctl(args);
    expect(pipe.code, pipe.stderr).toBe(0);
    expect(pipe.stdout).toBe(piped);
    const terminal = await gymctl(args, { stdoutTTY: true, columns: 100, env: { NO_COLOR: '1' } });
    expect(terminal.stdout).toBe(card);
  });

  it('its exit-code table is the table help exit-codes is made from', () => {
    const section = readme.split('\n## Errors and exit codes\n')[1]!.split('\n## ')[0]!;
    const rows = [...section.matchAll(/^\| (\d+) \| ?(\w*) ?\| (.+) \|$/gm)].map(([, code, kind, when]) => ({
      code: Number(code),
      kind: kind || undefined,
      when,
    }));
    expect(rows).toEqual(EXIT_CODES.map(({ code, kind, when }) => ({ code, kind, when })));
  });
});
