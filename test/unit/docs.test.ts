/**
 * What the docs name exists: every `gymctl …` command line (in code blocks and
 * inline code) is a command of the parser with options it takes, every option
 * named is one gymctl has, every environment variable gymctl is said to read
 * is read in src/, and every repository path that a doc or a comment in src/,
 * test/, build/ or scripts/ names is there; docs/library.md lists the failure reasons the type declares.
 * The docs are README.md, CONTRIBUTING.md and docs/*.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { createIO } from '../../src/terminal/io.js';
import { ROOT } from '../helpers/cli.js';
import { fakeStreams } from '../helpers/harness.js';

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** The docs of changing, building and measuring gymctl: a variable they name may be read by the build, the scripts or the tests. */
const FOR_CONTRIBUTORS = new Set(['CONTRIBUTING.md', 'docs/sea-notes.md', 'docs/performance.md', 'docs/install-without-node.md']);
const text = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Every file under a folder of the repository, recursively. */
const filesIn = (folder: string): string[] =>
  readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesIn(relative);
    return [relative];
  });

/** A doc's fenced code blocks' lines, and the inline code of the rest, each with where it is. */
function codeOf(file: string): Array<{ code: string; where: string; block: boolean }> {
  const found: Array<{ code: string; where: string; block: boolean }> = [];
  let fenced = false;
  for (const [i, line] of text(file).split('\n').entries()) {
    const where = `${file}:${i + 1}`;
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (fenced) found.push({ code: line.replace(/^\s*\$ /, ''), where, block: true });
    else for (const [, , code] of line.matchAll(/(`+)(?!`)(.+?)(?<!`)\1(?!`)/g)) found.push({ code: code!.trim(), where, block: false });
  }
  return found;
}

/** A doc's prose: its lines outside code blocks, with inline code taken out. */
function proseOf(file: string): Array<{ line: string; where: string }> {
  let fenced = false;
  return text(file)
    .split('\n')
    .flatMap((line, i) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      else if (!fenced) return [{ line: line.replace(/(`+)(?!`).+?(?<!`)\1(?!`)/g, ' '), where: `${file}:${i + 1}` }];
      return [];
    });
}

/**
 * A shell line cut into the simple commands it runs, each a list of words:
 * quotes kept together, `<placeholder>` and `[optional | parts]` one word,
 * cut at pipes, `;`, `&`, redirections, `$(` and `<(`; a comment dropped.
 */
function simpleCommands(line: string): string[][] {
  const commands: string[][] = [[]];
  let word = '';
  let quote = '';
  let depth = 0;
  const push = () => {
    if (word) commands.at(-1)!.push(word);
    word = '';
  };
  const cut = () => {
    push();
    if (commands.at(-1)!.length) commands.push([]);
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
      else word += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '<' && /[^\s(]/.test(line[i + 1] ?? ' ') && line.indexOf('>', i) > i) {
      const end = line.indexOf('>', i);
      word += line.slice(i, end + 1);
      i = end;
    } else if (c === '[' || c === ']') {
      depth = Math.max(0, depth + (c === '[' ? 1 : -1));
      word += c;
    } else if (depth === 0 && c === '$' && line[i + 1] === '(') {
      cut();
      i++;
    } else if (depth === 0 && /[|;&()<>]/.test(c)) cut();
    else if (c === '#' && !word && depth === 0) break;
    else if (/\s/.test(c)) push();
    else word += c;
  }
  push();
  return commands.filter((words) => words.length);
}

/** The words of a simple command after gymctl, when it runs gymctl (`gymctl`, `node bin/gymctl.cjs`, the binary; after `xargs` or `VAR=value`). */
function gymctlWords(words: readonly string[]): string[] | undefined {
  let i = 0;
  while (i < words.length && (/^[A-Z_][A-Z0-9_]*=/.test(words[i]!) || words[i] === 'xargs')) i++;
  if (words[i] === 'node') for (i++; words[i]?.startsWith('-'); i++);
  return /^(?:gymctl|(?:[\w.~/\\-]*[/\\])?gymctl(?:\.cjs|\.cmd|\.exe)?)$/.test(words[i] ?? '') && words[i] !== 'gymctl.cjs' ? words.slice(i + 1) : undefined;
}

const io = createIO(fakeStreams().streams, { env: {} });
const program = await buildProgram({
  io,
  factory: () => {
    throw new Error('the docs test runs no command');
  },
  parsed: () => {},
});
const allCommands = (command: Command): Command[] => [command, ...command.commands.flatMap(allCommands)];
const namesOf = (command: Command): string[] => command.options.flatMap((option) => [option.long, option.short].filter((name): name is string => !!name));
/** Every option gymctl has, on any command. */
const EVERY_OPTION = new Set([...allCommands(program).flatMap(namesOf), '--help', '-h']);
/** The options a command takes: its own, and the global ones its help lists (where they apply). */
function optionsOf(command: Command): Set<string> {
  const help = command.createHelp();
  const global = help.visibleGlobalOptions(command).flatMap((option) => [option.long, option.short]);
  return new Set([...namesOf(command), ...global, '--help', '-h'].filter((name): name is string => !!name));
}
/** A placeholder where a command's name would be: `<command>`, `…`. */
const placeholder = (word: string) => /^(?:<.*>|…|\.\.\.)$/.test(word);
/** The options a word names: `--format=csv` is --format; `[--keyring` is --keyring. */
const optionsIn = (word: string) => (word.replace(/^\[/, '').startsWith('-') ? [...word.matchAll(/(?<![\w-])(--?[A-Za-z][\w-]*)/g)].map(([, name]) => name!) : []);

/** What is wrong with one gymctl command line (its words after gymctl), or nothing. */
function checkCommandLine(words: readonly string[]): string[] {
  let command: Command | undefined = program;
  let i = 0;
  for (; i < words.length && !words[i]!.startsWith('-') && !words[i]!.startsWith('['); i++) {
    const word = words[i]!;
    if (placeholder(word)) {
      command = undefined;
      break;
    }
    const sub: Command | undefined = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) command = sub;
    else if (command.commands.length) return [`"${word}" is not a command of \`gymctl ${words.slice(0, i).join(' ')}\``.replace(' `', ' `').replace(/ `$/, '`')];
    else break;
  }
  const takes = command ? optionsOf(command) : EVERY_OPTION;
  const named = command === program ? 'gymctl' : command ? `gymctl ${words.slice(0, i).join(' ')}` : 'any command';
  return words.flatMap(optionsIn).flatMap((option) => (takes.has(option) ? [] : [`${option} is not an option of ${named}`]));
}

describe('the docs name only what exists', () => {
  it('every gymctl command line names a command, with options it takes', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const file of DOCS) {
      for (const { code, where } of codeOf(file)) {
        for (const words of simpleCommands(code)) {
          const after = gymctlWords(words);
          if (!after) continue;
          checked++;
          for (const problem of checkCommandLine(after)) wrong.push(`${where}: ${problem} (${code})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('the check itself refuses what does not exist', () => {
    const check = (line: string) => checkCommandLine(gymctlWords(simpleCommands(line)[0]!)!);
    expect(check('gymctl academy 1 --sandbox --format csv')).toEqual([]);
    expect(check('gymctl config set timeout 10')).toEqual([]);
    expect(check('gymctl doctor --sandbox')).toEqual(['--sandbox is not an option of gymctl doctor']);
    expect(check('gymctl acadmy 1')).toEqual(['"acadmy" is not a command of `gymctl`']);
    expect(check('gymctl auth logn')).toEqual(['"logn" is not a command of `gymctl auth`']);
    expect(check('gymctl config path --profile x')).toEqual(['--profile is not an option of gymctl config path']);
    expect(check('gymctl <command> --hlep')).toEqual(['--hlep is not an option of any command']);
    expect(simpleCommands('echo k | gymctl auth login --with-key < key.txt # a comment')).toEqual([['echo', 'k'], ['gymctl', 'auth', 'login', '--with-key'], ['key.txt']]);
    expect(gymctlWords(['xargs', 'node', 'bin/gymctl.cjs', 'academy'])).toEqual(['academy']);
    expect(gymctlWords(['npm', 'install', '--omit=optional'])).toBeUndefined();
  });

  it('every option named on its own, in inline code or prose, is one gymctl has', () => {
    const wrong: string[] = [];
    for (const file of DOCS) {
      for (const { code, where, block } of codeOf(file)) {
        if (block) continue;
        // Inline code that is an option, or options (`--cache DURATION`, `--refresh`): another tool's is written with its name (`node --cpu-prof`).
        const [first] = simpleCommands(code);
        if (!first?.[0]?.replace(/^\[/, '').startsWith('-')) continue;
        for (const words of simpleCommands(code)) for (const option of words.flatMap(optionsIn)) if (!EVERY_OPTION.has(option)) wrong.push(`${where}: ${option}`);
      }
      for (const { line, where } of proseOf(file))
        for (const [option] of line.matchAll(/(?<![\w-])--[a-z][\w-]*/g)) if (!EVERY_OPTION.has(option)) wrong.push(`${where}: ${option}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every environment variable gymctl is said to read is read in src/', () => {
    const source = filesIn('src')
      .map((file) => readFileSync(path.join(ROOT, file), 'utf8'))
      .join('\n');
    const tooling = ['scripts', 'build', 'test']
      .flatMap(filesIn)
      .filter((file) => /\.(?:[cm]?[jt]s|sh)$/.test(file))
      .map((file) => readFileSync(path.join(ROOT, file), 'utf8'))
      .concat(text('package.json'))
      .join('\n');
    const readIn = (name: string, haystack: string) => new RegExp(`\\b${name}\\b`).test(haystack);
    const wrong: string[] = [];
    const fromTables = new Set<string>();
    for (const file of DOCS) {
      const doc = text(file);
      const named = new Set([...doc.matchAll(/\bGYMCTL_[A-Z0-9_]+\b/g)].map(([name]) => name));
      // The environment column of an options table: what gymctl is said to read.
      for (const table of doc.split(/\n\| option \| environment \| meaning \|\n/).slice(1)) {
        for (const row of table.split('\n\n')[0]!.split('\n')) {
          const cell = row.split('|')[2] ?? '';
          for (const [, name] of cell.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)(?:=[^`]*)?`/g)) {
            named.add(name!);
            fromTables.add(name!);
          }
        }
      }
      for (const name of named) {
        if (readIn(name, source)) continue;
        if (FOR_CONTRIBUTORS.has(file) && readIn(name, tooling)) continue;
        wrong.push(`${file}: ${name}`);
      }
    }
    expect(wrong).toEqual([]);
    expect([...fromTables]).toEqual(expect.arrayContaining(['GYMCTL_BASE_URL', 'NO_COLOR', 'HTTPS_PROXY', 'XDG_CACHE_HOME']));
  });

  /** Repository paths a text names: src/…, test/…, scripts/…, build/…, docs/…, bin/…. */
  const pathsIn = (body: string) => [...body.matchAll(/(?<![\w.~/\\$-])((?:src|test|scripts|build|docs|bin)\/(?:[\w.*-]+\/?)*)/g)].map(([, named]) => named!.replace(/\.+$/, ''));
  /** Whether a path exists; `*` is any one name. */
  function exists(named: string): boolean {
    const parts = named.replace(/\/$/, '').split('/');
    let found = [ROOT];
    for (const part of parts) {
      if (!part.includes('*')) found = found.map((folder) => path.join(folder, part)).filter((candidate) => existsSync(candidate));
      else {
        const pattern = new RegExp(`^${part.replaceAll('.', '\\.').replaceAll('*', '.*')}$`);
        found = found.flatMap((folder) => (statSync(folder).isDirectory() ? readdirSync(folder).filter((name) => pattern.test(name)) : []).map((name) => path.join(folder, name)));
      }
    }
    return found.length > 0;
  }

  it("the library's failure reasons are the FailureReason type's, every one", () => {
    const names = (pattern: RegExp, within: string, quote: RegExp) =>
      pattern
        .exec(within)![1]!
        .match(quote)!
        .map((name) => name.slice(1, -1));
    const declared = names(/export type FailureReason = ([^;]+);/, text('src/api/errors.ts'), /'\w+'/g);
    const listed = names(/`reason` tells failures of one kind apart \(([^)]+)\)/, text('docs/library.md').replace(/\s+/g, ' '), /`\w+`/g);
    expect(listed).toEqual(declared);
  });

  it("docs/performance.md states the bench's targets (test/bench/targets.mjs), each number once", async () => {
    const { TARGETS } = await import('../bench/targets.mjs');
    const doc = text('docs/performance.md');
    const cells = [...doc.matchAll(/^\| .+ \| (.+) \|$/gm)].map(([, target]) => target!).filter((target) => /[≤<]/.test(target));
    const curl = /over `xargs -P 8 curl`[^(]*\((≥ [\d.]+×)\)/.exec(doc.replace(/\s+/g, ' '))![1]!;
    const stated = [...cells, curl].flatMap((cell) => [...cell.matchAll(/[≤<≥] (\d+(?:\.\d+)?)/g)].map(([, number]) => Number(number)));
    const sorted = (numbers: number[]) => [...numbers].sort((a, b) => a - b);
    expect(sorted(stated)).toEqual(sorted(Object.values(TARGETS)));
  });

  it('every repository path a doc names is there', () => {
    const wrong: string[] = [];
    for (const file of DOCS) {
      for (const [i, line] of text(file).split('\n').entries()) for (const named of pathsIn(line)) if (!exists(named)) wrong.push(`${file}:${i + 1}: ${named}`);
    }
    expect(wrong).toEqual([]);
    expect(exists('src/commands/*/run.ts') && !exists('src/nothing-here.ts')).toBe(true);
  });

  it('every repository path a comment in src/, test/, build/ or scripts/ names is there', () => {
    const wrong: string[] = [];
    for (const file of ['src', 'test', 'build', 'scripts'].flatMap(filesIn).filter((name) => /\.(ts|mjs|cjs)$/.test(name))) {
      const comments = readFileSync(path.join(ROOT, file), 'utf8').match(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g) ?? [];
      for (const comment of comments) for (const named of pathsIn(comment)) if (!exists(named)) wrong.push(`${file}: ${named}`);
    }
    expect(wrong).toEqual([]);
  });
});
