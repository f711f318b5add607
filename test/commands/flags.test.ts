/**
 * One table of global flags (src/flags.ts): for every command the parser
 * defines, a global flag shows in its help, is accepted, and is offered by
 * Tab exactly when the table says it applies; anywhere else it is a usage
 * error (exit 2) that names where it does apply, before anything is done.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createFactory } from '../../src/factory.js';
import { appliesTo, GLOBAL_FLAGS, longOf } from '../../src/flags.js';
import { buildProgram } from '../../src/program.js';
import { createIO } from '../../src/terminal/io.js';
import { fakeStreams, gymctl } from '../helpers/harness.js';

const io = createIO(fakeStreams().streams, { env: {} });
const program = await buildProgram({ io, factory: () => createFactory({ io, env: {}, signal: new AbortController().signal, flags: {}, disposers: [] }), parsed: () => {} });

/** Every command the parser defines, by path, with a word for each argument it requires. */
function commands(parent: Command, prefix: string[] = []): Array<{ path: string[]; command: Command; args: string[] }> {
  return parent.commands
    .filter((command) => command.name() !== '__complete')
    .flatMap((command) => {
      const path = [...prefix, command.name()];
      const args = command.registeredArguments.filter((argument) => argument.required).map(() => 'x');
      return [{ path, command, args }, ...commands(command, path)];
    });
}
const ALL = commands(program);
/** A value for a flag that takes one. */
const withValue = (flag: (typeof GLOBAL_FLAGS)[number]) => (flag.flags.includes('<') ? [longOf(flag), '1'] : [longOf(flag)]);

describe('the flag table', () => {
  it('covers every global option the parser defines, and only those', () => {
    const defined = program.options.map((option) => option.long).filter((long) => long !== '--version' && long !== '--help');
    expect(defined.sort()).toEqual(GLOBAL_FLAGS.map(longOf).sort());
    expect(ALL.map(({ path }) => path.join(' '))).toEqual(expect.arrayContaining(['whoami', 'auth status', 'config path', 'completion', 'sandbox', 'cache clear']));
  });

  it('help shows a global flag exactly where the table says it applies', () => {
    for (const { path, command } of ALL) {
      const shown = command
        .createHelp()
        .visibleGlobalOptions(command)
        .map((option) => option.long);
      const expected = GLOBAL_FLAGS.map(longOf).filter((long) => appliesTo(long, path.join(' ')));
      expect(shown.sort(), path.join(' ')).toEqual(expected.sort());
    }
  });

  it('a flag given where it does not apply is a usage error, before anything is sent or written', async () => {
    let refused = 0;
    for (const { path, args } of ALL) {
      for (const flag of GLOBAL_FLAGS.filter((f) => !appliesTo(longOf(f), path.join(' ')))) {
        const result = await gymctl([...path, ...args, ...withValue(flag)]);
        expect({ code: result.code, stdout: result.stdout }, `${path.join(' ')} ${longOf(flag)}`).toEqual({ code: 2, stdout: '' });
        const reason = flag.refusals?.[path.join(' ')] ?? `${longOf(flag)} does not apply to \`gymctl ${path.join(' ')}\``;
        expect(result.stderr).toContain(reason);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(100);
  });

  it('the cases that were accepted silently are refused: completion --timeout, config path --profile, api --json', async () => {
    for (const args of [
      ['completion', 'bash', '--timeout', '1000'],
      ['config', 'path', '--profile', 'x'],
      ['api', '/me', '--json'],
    ]) {
      const result = await gymctl(args);
      expect(result.code, args.join(' ')).toBe(2);
      // With --json the error is a JSON line, as every error then is.
      expect(result.stderr).toMatch(/--\S+ does not apply to `gymctl [a-z ]+`: it applies to `gymctl whoami`/);
    }
  });

  it('Tab offers a global flag exactly where the command takes it', async () => {
    for (const { path } of ALL) {
      const offered = (await gymctl(['__complete', '--', ...path, '--'])).stdout.split('\n');
      for (const long of GLOBAL_FLAGS.map(longOf)) expect(offered.includes(long), `${path.join(' ')} ${long}`).toBe(appliesTo(long, path.join(' ')));
    }
    const sandbox = (await gymctl(['__complete', '--', 'sandbox', '--'])).stdout;
    for (const long of ['--jq', '--columns', '--cache', '--version']) expect(sandbox).not.toContain(long);
  });
});
