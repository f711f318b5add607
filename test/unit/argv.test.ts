/**
 * The pre-scan of argv (src/argv.ts), one table for its one set of rules,
 * the parser's own for the global options: `--`, `=` forms, short flags,
 * unknown flags, values that look like commands, `-` as an operand. Then
 * its users, each a row or two: the program (the one command to build) and main (the flags errors are
 * reported with before parsing, the --json FIELDS hint).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanArgv, VALUE_FLAGS } from '../../src/argv.js';
import { topLevelHelp } from '../../src/startup/boot.js';
import { GLOBAL_FLAGS, longOf } from '../../src/flags.js';
import { namedCommand } from '../../src/program.js';
import { fieldListHint } from '../../src/run/json-hint.js';
import { scannedFlags } from '../../src/run/report.js';

import { ROOT } from '../helpers/cli.js';
import { gymctl } from '../helpers/harness.js';

interface Row {
  argv: string[];
  operands?: string[];
  command?: string;
  values?: Record<string, string>;
  /** Options that must be, or (with a leading !) must not be, among those given. */
  options?: string[];
  help?: boolean;
  after?: Record<string, string>;
}

const TABLE: Array<[rule: string, Row]> = [
  ['no words', { argv: [], operands: [], help: false }],
  ['the command is the first operand', { argv: ['academy', '1', '2'], operands: ['academy', '1', '2'], command: 'academy' }],
  ['options anywhere, as the parser takes global options', { argv: ['academy', '1', '--json', '--debug'], command: 'academy', options: ['--json', '--debug'] }],

  // `--`
  ['`--` ends the options', { argv: ['academy', '--', '--json', '-h'], operands: ['academy', '--json', '-h'], options: ['!--json', '!-h'], help: false }],
  ['`--` first: the command still comes after it, as the parser dispatches it', { argv: ['--', 'version'], command: 'version' }],
  ['only the first `--` is special', { argv: ['api', '--', '--', '/me'], operands: ['api', '--', '/me'] }],
  ['a value option takes `--` as its value', { argv: ['--jq', '--', 'academy'], values: { '--jq': '--' }, command: 'academy' }],

  // values, and `=` forms
  ['a value option takes the next word', { argv: ['academies', '--format', 'csv'], values: { '--format': 'csv' }, operands: ['academies'] }],
  ['--opt=value', { argv: ['--format=json', 'academies', '--jq=.id'], values: { '--format': 'json', '--jq': '.id' }, command: 'academies' }],
  ['--opt= is an empty value', { argv: ['whoami', '--format='], values: { '--format': '' } }],
  ['a value with = in it', { argv: ['academies', '--jq', 'select(.a=="x")'], values: { '--jq': 'select(.a=="x")' } }],
  ['the last value given wins', { argv: ['--format', 'csv', 'academies', '--format', 'json'], values: { '--format': 'json' } }],
  ['a value option with nothing after it is given, without a value', { argv: ['academies', '--jq'], options: ['--jq'], values: {} }],
  ['a flag without a value, written with =, is not that flag', { argv: ['version', '--json=x'], options: ['!--json', '--json=x'] }],

  // short flags
  ['-q is --jq', { argv: ['-q', '.name', 'academy', '1'], values: { '--jq': '.name' }, command: 'academy', options: ['--jq', '!-q'] }],
  ['-q with its value in the same word', { argv: ['academy', '1', '-q.name'], values: { '--jq': '.name' }, operands: ['academy', '1'] }],
  ['-h asks for help, before or after the command', { argv: ['academy', '-h'], help: true, command: 'academy' }],
  ['--help asks for help', { argv: ['--help', 'academies'], help: true, command: 'academies' }],
  ['-h as a value asks for nothing', { argv: ['academy', '--jq', '-h'], help: false, values: { '--jq': '-h' } }],
  ['-V is a flag that takes no value', { argv: ['-V', 'whoami'], options: ['-V'], command: 'whoami' }],

  // unknown flags
  ['an unknown flag takes no value', { argv: ['--bogus', 'academy', '1'], command: 'academy', options: ['--bogus'] }],
  ["a command's own option is unknown here: its value reads as an operand", { argv: ['sandbox', '--port', '0'], operands: ['sandbox', '0'] }],
  ['an unknown short flag, and a negative number, take no value', { argv: ['academy', '-x', '-5', '2'], operands: ['academy', '2'], options: ['-x', '-5'] }],

  // values that look like commands, or like flags
  ['a --format value that is a command name is not the command', { argv: ['--format', 'academy', 'academies'], command: 'academies' }],
  ['a --profile value that is a command name is not the command', { argv: ['--profile', 'academy', 'whoami'], command: 'whoami' }],
  ['a value that looks like a flag is a value', { argv: ['academy', '--jq', '--json', '1'], values: { '--jq': '--json' }, options: ['!--json'], operands: ['academy', '1'] }],

  // `-`
  ['`-` is an operand: ids from stdin', { argv: ['academy', '-'], operands: ['academy', '-'] }],
  ['`-` after `--` is an operand too', { argv: ['family', '--', '-'], operands: ['family', '-'] }],
  ['`-` as a value is no operand', { argv: ['academy', '1', '--jq', '-'], values: { '--jq': '-' }, operands: ['academy', '1'] }],
  ['`--profile -` is no operand either', { argv: ['family', '--profile', '-', '501'], operands: ['family', '501'] }],

  // the operand right after a flag (--json FIELDS)
  ['the operand after --json', { argv: ['academies', '--json', 'id,name'], after: { '--json': 'id,name' } }],
  ['not when --json is a value', { argv: ['academies', '--profile', '--json', 'x'], after: {} }],
  ['not across `--`', { argv: ['academies', '--json', '--', 'id'], after: {} }],
];

describe('the pre-scan of argv, one rule set', () => {
  for (const [rule, row] of TABLE) {
    it(`${rule}: ${JSON.stringify(row.argv)}`, () => {
      const scan = scanArgv(row.argv);
      if (row.operands) expect(scan.operands).toEqual(row.operands);
      if ('command' in row) expect(scan.command).toBe(row.command);
      if (row.values) expect(Object.fromEntries(scan.values)).toEqual(row.values);
      for (const option of row.options ?? []) expect(scan.options.has(option.replace(/^!/, '')), option).toBe(!option.startsWith('!'));
      if (row.help !== undefined) expect(scan.help).toBe(row.help);
      if (row.after) expect(Object.fromEntries(scan.operandAfter)).toEqual(row.after);
    });
  }

  it('knows every global option that takes a value, by each of its names, from the flag table', () => {
    const names = GLOBAL_FLAGS.filter((flag) => flag.flags.includes('<')).flatMap((flag) => flag.flags.split(/[ ,]+/).filter((word) => word.startsWith('-')));
    expect(Object.keys(VALUE_FLAGS).sort()).toEqual(names.sort());
    expect(VALUE_FLAGS['-q']).toBe('--jq');
    for (const flag of GLOBAL_FLAGS) expect(VALUE_FLAGS[longOf(flag)] !== undefined, flag.flags).toBe(flag.flags.includes('<'));
    // An optional value (`[value]`) would need the parser's other rule (the next word only when it is no option).
    expect(GLOBAL_FLAGS.filter((flag) => flag.flags.includes('['))).toEqual([]);
  });

  it('the top-level help is argv of nothing, -h or --help alone', () => {
    for (const argv of [[], ['-h'], ['--help']]) expect(topLevelHelp(argv), JSON.stringify(argv)).toBe(true);
    for (const argv of [['--help', '--json'], ['academy', '-h'], ['-hq'], ['--', '--help']]) expect(topLevelHelp(argv), JSON.stringify(argv)).toBe(false);
  });

  it('the version alone is --version or -V alone: bin/gymctl.cjs answers it', () => {
    expect(readFileSync(path.join(ROOT, 'bin', 'gymctl.cjs'), 'utf8')).toContain("argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')");
  });
});

describe('its users', () => {
  it('the program builds the command argv names, and every command for help', () => {
    expect(namedCommand(scanArgv(['--format', 'academy', 'academies']))).toBe('academies');
    expect(namedCommand(scanArgv(['--', 'version']))).toBe('version');
    expect(namedCommand(scanArgv(['academy', '--help']))).toBeUndefined();
    expect(namedCommand(scanArgv(['academy', '1', '--jq', '-h']))).toBe('academy');
    expect(namedCommand(scanArgv(['help', 'academy']))).toBeUndefined();
    expect(namedCommand(scanArgv(['--bogus', 'academy']))).toBe('academy');
  });

  it('errors before parsing are reported with the flags the scan read, and no word after `--` or value taken for one', () => {
    expect(scannedFlags(scanArgv(['academies', '--json', '--debug']))).toEqual({ json: true, debug: true });
    expect(scannedFlags(scanArgv(['academies', '-q.id', '--format=csv']))).toEqual({ json: false, debug: false, jq: '.id', format: 'csv' });
    expect(scannedFlags(scanArgv(['academies', '--jq']))).toEqual({ json: false, debug: false, jq: '' });
    expect(scannedFlags(scanArgv(['academies', '--format']))).toEqual({ json: false, debug: false });
    expect(scannedFlags(scanArgv(['whoami', '--', '--json', '--debug']))).toEqual({ json: false, debug: false });
    expect(scannedFlags(scanArgv(['whoami', '--jq', '--json']))).toEqual({ json: false, debug: false, jq: '--json' });
  });

  it('an error the parser reports is in the format the options ask for, whatever the words after `--` or the values say', async () => {
    expect(await gymctl(['whoami', '--', '--json'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^gymctl: too many arguments for 'whoami'/) });
    expect(await gymctl(['whoami', '--json', '--', 'x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^\{"error":\{"message":"too many arguments/) });
    expect(await gymctl(['whoami', '--profile', '--json', 'x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^gymctl: too many arguments for 'whoami'/) });
  });

  it('--json FIELDS is hinted at for the operand right after --json, unless it is one of the commands given', () => {
    const commands = ['academies', 'status'];
    expect(fieldListHint(scanArgv(['academies', '--json', 'id,address.city']), commands)?.message).toBe(
      `--json takes no field list (gh's --json FIELDS): use --jq '{id, "address.city": .address.city}' for JSON of those fields, or --columns id,address.city for a table or CSV`,
    );
    expect(fieldListHint(scanArgv(['--json', 'academies']), commands)).toBeUndefined();
    expect(fieldListHint(scanArgv(['academy', '--json', '1']), commands)).toBeUndefined();
    expect(fieldListHint(scanArgv(['whoami', '--profile', '--json', 'x']), commands)).toBeUndefined();
  });
});

describe('an option and its value in one word', () => {
  it('--format=csv and -q.id are read as the option and its value, so the command after them is still found', () => {
    const scan = scanArgv(['--format=csv', '-q.id', '--profile', 'work', 'academy', '7']);
    expect(scan.values.get('--format')).toBe('csv');
    expect(scan.values.get('--jq')).toBe('.id');
    expect(scan.values.get('--profile')).toBe('work');
    expect(scan.command).toBe('academy');
    expect(scan.operands).toEqual(['academy', '7']);
    // A short option's value is the rest of its word, = included, as the parser reads it.
    expect(scanArgv(['-q=.id']).values.get('--jq')).toBe('=.id');
    expect(scanArgv(['-q--']).values.get('--jq')).toBe('--');
  });

  it('a value option with its value on the next word takes that word, wherever it is; -- ends the options', () => {
    const scan = scanArgv(['--jq', '.name', 'whoami', '--', '--format']);
    expect(scan.values.get('--jq')).toBe('.name');
    expect(scan.operands).toEqual(['whoami', '--format']);
  });
});
