// What a run exits with once the parser or a command has thrown (src/run/settle.ts), in-process: help is not a
// failure, a mistake in the arguments is a usage error (exit 2) followed by the command's usage line, and a secret
// typed in the wrong place is never echoed.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { GymApiError } from '../../src/api/errors.js';
import { AlreadyReported, Interrupted } from '../../src/failures.js';
import { settle } from '../../src/run/settle.js';
import { gymctl } from '../helpers/harness.js';

/** A commander error, as the parser throws it. */
const parserError = (code: string, exitCode: number, message = 'error: x') => Object.assign(new Error(message), { code, exitCode });

describe('what a run exits with', () => {
  it('gymctl <cmd> --help exits 0, its help on stdout', async () => {
    for (const argv of [['academy', '--help'], ['help', 'academy'], ['--version']]) {
      const result = await gymctl(argv);
      expect(result, argv.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.length, argv.join(' ')).toBeGreaterThan(0);
    }
  });

  it('a command group called alone shows its help and exits 0; its help shown for a mistake exits 2', () => {
    const program = new Command('gymctl');
    expect(settle(parserError('commander.help', 0), ['auth'], program)).toBe(0);
    expect(settle(parserError('commander.help', 1), ['auth'], program)).toBe(2);
    expect(settle(parserError('commander.helpDisplayed', 0), ['--help'], program)).toBe(0);
    expect(settle(parserError('commander.version', 0), ['--version'], program)).toBe(0);
  });

  it('a missing argument is a usage error followed by the usage line of the command it is about', async () => {
    expect(await gymctl(['academy'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "gymctl: missing required argument 'academyId'; usage: gymctl academy [options] <academyId...>\n",
    });
    expect((await gymctl(['auth', 'login', '--profile'])).stderr).toBe("gymctl: option '--profile <name>' argument missing; usage: gymctl auth login [options]\n");
    expect((await gymctl(['whoami', 'extra'])).stderr).toBe("gymctl: too many arguments for 'whoami'. Expected 0 arguments but got 1; usage: gymctl whoami [options]\n");
  });

  it('an unknown option or command is a usage error without a usage line', async () => {
    expect(await gymctl(['nope'])).toMatchObject({ code: 2, stderr: "gymctl: unknown command 'nope'\n" });
  });

  it('a secret typed as the value of a misspelt option is never echoed, whatever quotes it holds', async () => {
    const result = await gymctl(['academy', '1', '--api-kee=s3cret"x\'y']);
    expect(result).toMatchObject({ code: 2, stderr: "gymctl: unknown option '--api-kee=…'\n" });
  });

  it('gymctl -v is told about --version', async () => {
    expect(await gymctl(['-v'])).toMatchObject({ code: 2, stderr: "gymctl: unknown option '-v' (Did you mean --version?)\n" });
    expect((await gymctl(['academy', '-v'])).stderr).not.toContain('Did you mean');
  });

  it("a parser's message on several lines is reported on one", () => {
    const failure = settle(parserError('commander.unknownCommand', 1, "error: unknown command 'nope'\n  (Did you mean x?)"), ['nope'], new Command('gymctl'));
    expect(failure).toMatchObject({ kind: 'usage', message: "unknown command 'nope' (Did you mean x?)" });
  });

  it('an interrupt or a failure already reported exits with its own code; any other failure is handed on to be reported', () => {
    const program = new Command('gymctl');
    expect(settle(new Interrupted('SIGINT'), [], program)).toBe(130);
    expect(settle(new AlreadyReported('not_found'), [], program)).toBe(3);
    const failure = new GymApiError('not_found', 'academy 9: not found');
    expect(settle(failure, [], program)).toBe(failure);
    expect(settle(Object.assign(new Error('not the parser'), { code: 'ENOENT' }), [], program)).toMatchObject({ kind: 'internal' });
  });

  it("a missing argument of a command that is not the first of its group is followed by that command's usage line", async () => {
    expect((await gymctl(['config', 'set', 'format'])).stderr).toMatch(/; usage: gymctl config set \[options\] <key> <value>\n$/);
    expect((await gymctl(['config', 'get'])).stderr).toMatch(/; usage: gymctl config get \[options\] <key>\n$/);
  });

  it('every kind of argument error the parser raises is followed by the usage line; others are not', () => {
    const program = new Command('gymctl');
    program.command('academy').argument('<academyId...>');
    for (const code of ['commander.missingArgument', 'commander.excessArguments', 'commander.optionMissingArgument', 'commander.missingMandatoryOptionValue']) {
      expect(settle(parserError(code, 1, 'error: wrong.'), ['academy'], program), code).toMatchObject({ message: 'wrong; usage: gymctl academy [options] <academyId...>' });
    }
    expect(settle(parserError('commander.invalidArgument', 1, 'error: wrong.'), ['academy'], program)).toMatchObject({ message: 'wrong.' });
  });

  it('what the user typed is quoted as typed: an operand with = is no option, and error: inside it stays', () => {
    const program = new Command('gymctl');
    expect(settle(parserError('commander.unknownCommand', 1, "error: unknown command 'a=b'"), ['a=b'], program)).toMatchObject({ message: "unknown command 'a=b'" });
    expect(settle(parserError('commander.unknownCommand', 1, "unknown command 'error: x'"), ['error: x'], program)).toMatchObject({
      message: "unknown command 'error: x'",
    });
  });

  it('-v is told about --version only when the parser did not know it as an option', () => {
    const failure = settle(parserError('commander.unknownCommand', 1, "error: unknown command 'x'"), ['-v', 'x'], new Command('gymctl'));
    expect(failure).toMatchObject({ message: "unknown command 'x'" });
  });

  it('a command that throws nothing at all (undefined) is reported as an unexpected error, not a crash', () => {
    expect(settle(undefined, [], new Command('gymctl'))).toMatchObject({ kind: 'internal' });
  });
});
