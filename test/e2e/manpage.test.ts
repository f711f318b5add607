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
      const heading = (words: string) => new RegExp(`^\\.SS gymctl ${words}(?: .*)?$`, 'm');
      if (subcommands.length === 0) expect(text, name).toMatch(heading(name));
      for (const sub of subcommands.filter((sub) => sub !== 'help')) expect(text, `${name} ${sub}`).toMatch(heading(`${name} ${sub}`));
    }
    // A real man page's sections, each once; dated, and the version in the footer.
    for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'OPTIONS', 'EXIT STATUS', 'ENVIRONMENT', 'FILES', 'EXAMPLES']) {
      expect(text.match(new RegExp(`^\\.SH "?${section}"?$`, 'gm')), section).toHaveLength(1);
    }
    expect(text).toMatch(/^\.TH "GYMCTL" "1" "[A-Z][a-z]+ \d{4}" "gymctl \d+\.\d+\.\d+" "User Commands"/);
    // Not help pasted in: the global options are listed once, under OPTIONS.
    expect(text).not.toContain('Global options');
    expect(text.match(/\\-\\-no\\-headers/g)).toHaveLength(1);
  });

  it.skipIf(!hasTool('man', ['--version']))('fits 80 columns at MANWIDTH=80', () => {
    const rendered = spawnSync('man', ['-l', path.join(ROOT, 'dist', 'gymctl.1')], {
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '', PAGER: 'cat' },
    });
    expect(rendered.status, rendered.stderr).toBe(0);
    const lines = rendered.stdout.split('\n');
    expect(lines.length).toBeGreaterThan(200);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
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
