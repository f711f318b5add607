/** The man page the build writes: every command of `gymctl --help` in it, and it renders with man(1). */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { hasTool } from '../helpers/tls.js';

const page = () => readFileSync(path.join(ROOT, 'dist', 'gymctl.1'), 'utf8');
const help = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args, '--help'], { encoding: 'utf8' }).stdout;
/** The names under "Commands:" in a help text, none when it has no such list. */
const listed = (text: string) => [...(text.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '').matchAll(/^ {2}([a-z-]+)/gm)].map(([, name]) => name!);

describe('gymctl.1', () => {
  it('has a section for every command and subcommand the help lists, and the exit codes', () => {
    const text = page();
    for (const name of listed(help()).filter((name) => name !== 'help')) {
      const subcommands = listed(help(name));
      if (subcommands.length === 0) expect(text, name).toContain(`.SS "gymctl ${name}"`);
      for (const sub of subcommands.filter((sub) => sub !== 'help')) expect(text, `${name} ${sub}`).toContain(`.SS "gymctl ${name} ${sub}"`);
    }
    expect(text).toContain('.SH EXIT STATUS');
    expect(text).toMatch(/^\.TH GYMCTL 1 "" "gymctl \d+\.\d+\.\d+/);
  });

  it.skipIf(!hasTool('man', ['--version']))('renders with man, without warnings, options copyable as typed', () => {
    const rendered = spawnSync('man', ['--warnings', '-l', path.join(ROOT, 'dist', 'gymctl.1')], {
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '100', MAN_KEEP_FORMATTING: '', PAGER: 'cat' },
    });
    expect(rendered.status, rendered.stderr).toBe(0);
    expect(rendered.stderr).toBe('');
    expect(rendered.stdout).toContain('gymctl - read the gym (academy) management API');
    expect(rendered.stdout).toContain('gymctl auth login --keyring --with-key');
    expect(rendered.stdout).toContain('--no-headers');
  });
});
