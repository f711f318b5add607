/** The README says what the code does (its exit-code table, and the first thing a new user runs), in a shape users can read. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/failures.js';
import { GLOBAL_FLAGS, longOf } from '../../src/flags.js';
import { ROOT } from '../helpers/cli.js';
import { gymctl } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';

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

  it('"Try the whole flow": gymctl sandbox prints what the README shows on a terminal, and its keys line up in a pipe too', async () => {
    const section = readme.split('\nTo try the whole flow locally')[1]!;
    const [, sample] = /```sh\ngymctl sandbox\n```\n\n```\n([\s\S]*?)```/.exec(section)!;
    const { Interrupted } = await import('../../src/failures.js');
    for (const tty of [true, false]) {
      const controller = new AbortController();
      let stopped: Promise<void> = Promise.resolve();
      const result = await gymctl(['sandbox', '--port', '0'], {
        stdoutTTY: tty,
        stderrTTY: tty,
        columns: 100,
        env: { NO_COLOR: '1' },
        signal: controller.signal,
        started: (streams) => {
          stopped = waitFor('the sandbox to start', () => streams.stderr().includes('Press Ctrl-C')).then(() => controller.abort(new Interrupted()));
        },
      });
      await stopped;
      expect(result.code).toBe(130);
      const url = /listening on (\S+)/.exec(result.stdout)![1]!;
      // On a terminal, stderr's first line follows stdout's: what the README shows, with this run's port.
      const [pressed] = result.stderr.split('\n');
      const shown = `${result.stdout}${pressed}\n`.replaceAll(url, 'http://127.0.0.1:4010');
      if (tty) expect(shown).toBe(sample);
      else {
        const keys = result.stdout.split('\nKeys:\n')[1]!.split('\n\n')[0]!.split('\n');
        const columns = keys.map((line) => /^ {2}\S+ +/.exec(line)![0].length);
        expect(new Set(columns).size, keys.join('\n')).toBe(1);
        expect(shown).toBe(sample);
      }
    }
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

  it('the table of which commands take each global option (docs/commands.md, linked from the README) is the flag table', () => {
    expect(readme).toContain('](docs/commands.md#global-options)');
    const commands = readFileSync(path.join(ROOT, 'docs', 'commands.md'), 'utf8');
    const section = commands.split('\n| option | commands |\n|---|---|\n')[1]!.split('\n\n')[0]!;
    const shown = new Map<string, string[]>();
    let before: string[] = [];
    for (const line of section.split('\n')) {
      const [, options, commands] = /^\| (.+?) \| (.+) \|$/.exec(line)!;
      // "those, and `config set`": the row above's commands, and these.
      const listed = [...commands!.matchAll(/`([^`]+)`/g)].map(([, name]) => name!);
      const names = commands!.startsWith('those') ? [...before, ...listed] : listed;
      for (const [, option] of options!.matchAll(/`(--[\w-]+)`/g)) shown.set(option!, names);
      before = names;
    }
    // Group names (`auth`, `config`) are in the flag table only so that a group's help shows what its subcommands take.
    const table = new Map(GLOBAL_FLAGS.map((flag) => [longOf(flag), flag.commands.filter((name) => name !== 'auth' && name !== 'config')]));
    expect(new Set(shown.keys())).toEqual(new Set(table.keys()));
    for (const [option, commands] of table) expect(new Set(shown.get(option)), option).toEqual(new Set(commands));
  });

  /** The lines outside fenced code blocks. */
  const prose = (text: string) => {
    let fenced = false;
    return text.split('\n').filter((line) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      else if (!fenced) return true;
      return false;
    });
  };

  it('is at most 450 lines: the reference is in docs/ and what is for maintainers in CONTRIBUTING.md', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(450);
  });

  it('has its sections in the order users need them, after a first part that says what gymctl is', () => {
    const order = [
      /install/i,
      /try it/i,
      /point it at your api/i,
      /commands/i,
      /output.*scripting/i,
      /\bai\b.*\bmcp\b/i,
      /errors.*exit codes/i,
      /configuration.*keyring/i,
      /windows/i,
      /troubleshooting/i,
      /library/i,
      /licen[cs]es/i,
    ];
    const headings = prose(readme).filter((line) => line.startsWith('## '));
    expect(headings).toHaveLength(order.length);
    for (const [i, heading] of headings.entries()) expect(heading).toMatch(order[i]!);
    const intro = readme.split('\n## ')[0]!;
    expect(intro).toMatch(/^# gymctl\n\n`gymctl` is a command-line tool/);
  });

  it('has no line over 200 characters outside its code blocks', () => {
    const long = prose(readme).filter((line) => line.length > 200);
    expect(long).toEqual([]);
  });

  it('names the X-API-Key header in "Point it at your API", before the commands', () => {
    const point = readme.split('\n## Point it at your API\n')[1]!.split('\n## ')[0]!;
    expect(point).toContain('`X-API-Key`');
    expect(readme.indexOf('X-API-Key')).toBeLessThan(readme.indexOf('\n## Commands\n'));
  });

  it('says how to put gymctl on PATH before its first shell block that runs gymctl', () => {
    const firstCall = readme.search(/```sh\n(?:[^`]*\n)?gymctl /);
    expect(firstCall).toBeGreaterThan(0);
    expect(readme.slice(0, firstCall)).toContain('npm link');
  });

  it('links only to files and headings that exist, from the README, CONTRIBUTING.md and docs/', () => {
    const slugsOf = (text: string) => {
      const seen = new Map<string, number>();
      return new Set(
        prose(text)
          .filter((line) => /^#{1,6} /.test(line))
          .map((line) => {
            const slug = line
              .replace(/^#+ /, '')
              .trim()
              .toLowerCase()
              .replace(/[^\p{L}\p{N}_\- ]/gu, '')
              .replaceAll(' ', '-');
            const count = seen.get(slug) ?? 0;
            seen.set(slug, count + 1);
            return count ? `${slug}-${count}` : slug;
          }),
      );
    };
    const files = ['README.md', 'CONTRIBUTING.md', ...readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((name) => name.endsWith('.md'));
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      const links = prose(text)
        .join('\n')
        .matchAll(/\]\(([^)\s]+)\)/g);
      for (const [, target] of links) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [where, anchor] = target!.split('#');
        const resolved = where ? path.join(path.dirname(path.join(ROOT, file)), where) : path.join(ROOT, file);
        if (!existsSync(resolved)) broken.push(`${file}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !slugsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
