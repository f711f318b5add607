/**
 * Shell completion in real bash, zsh and fish, and the built help: the
 * built binary, end to end. The rest of what gh users take for granted is
 * tested in-process (test/commands/ecosystem.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_DATA, DEMO_KEY, DEMO_KEY_NO_ACADEMIES } from '../../src/sandbox/demo-data.js';
import { useSandboxAndConfig } from '../helpers/world.js';
import { BIN, ROOT, cleanEnv, runCli, type CliResult, type RunOptions } from '../helpers/cli.js';

const world = useSandboxAndConfig();

const env = (key = DEMO_KEY) => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: key });
const gymctl = (args: string[], options: RunOptions = {}) => runCli(args, world.config.dir, options);
const login = (profile: string, key = DEMO_KEY) =>
  gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url, '--profile', profile], { stdin: key });

function expectFailure(result: CliResult, code: number, message: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
}

describe('the built help', () => {
  it('gymctl --help is the same text whether it comes from the build or from the parser', async () => {
    const built = await gymctl(['--help']);
    const parsed = await gymctl(['help']);
    expect(built.stdout).toBe(parsed.stdout);
    expect(built.stdout).toContain('Examples:');
  });
});

describe('shell completion', () => {
  let bin: string;
  beforeEach(() => {
    // gymctl on PATH, as it is for a user, for the profile names the scripts ask for.
    bin = path.join(world.config.dir, '..', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'gymctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
    chmodSync(path.join(bin, 'gymctl'), 0o755);
  });
  const shellEnv = () => cleanEnv(world.config.dir, { PATH: `${bin}:${process.env.PATH}` });
  const complete = (shell: string, script: string) => spawnSync(shell, ['-c', script], { env: shellEnv(), encoding: 'utf8' });

  it('bash: the script registers gymctl and completes commands, options, formats and profile names', async () => {
    await login('work');
    await login('home');
    const script = (await gymctl(['completion', 'bash'])).stdout;
    writeFileSync(path.join(bin, 'gymctl.bash'), script);
    const result = complete(
      'bash',
      `source '${path.join(bin, 'gymctl.bash')}'
complete -p gymctl
t() { COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _gymctl_completions; echo "\${COMPREPLY[*]}"; }
t gymctl aca
t gymctl auth ""
t gymctl whoami --for
t gymctl academy 1 --format ""
t gymctl --profile ""
t gymctl config set ""
t gymctl completion ""`,
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      'complete -F _gymctl_completions gymctl',
      'academy academies',
      'login status logout',
      '--format',
      'table json ndjson csv',
      'home work',
      'base-url format timeout retries default-profile',
      'bash zsh fish',
      '',
    ]);
  });

  it('zsh: the script registers gymctl through bashcompinit and offers the same words', async () => {
    await login('work');
    const script = (await gymctl(['completion', 'zsh'])).stdout;
    writeFileSync(path.join(bin, '_gymctl'), script);
    const result = complete(
      'zsh',
      `source '${path.join(bin, '_gymctl')}'
print -r -- \${_comps[gymctl]}
COMP_WORDS=(gymctl auth ""); COMP_CWORD=2; _gymctl_completions; print -r -- "\${COMPREPLY[*]}"
COMP_WORDS=(gymctl --profile ""); COMP_CWORD=2; _gymctl_completions; print -r -- "\${COMPREPLY[*]}"`,
    );
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('_bash_complete -F _gymctl_completions');
    expect(lines[1]).toBe('login status logout');
    expect(lines[2]).toBe('work');
  });

  it('fish: the script completes commands, subcommands, formats and profile names', async () => {
    await login('work');
    const script = (await gymctl(['completion', 'fish'])).stdout;
    writeFileSync(path.join(bin, 'gymctl.fish'), script);
    const words = (line: string) =>
      complete('fish', `source '${path.join(bin, 'gymctl.fish')}'; complete -C '${line}'`).stdout.trimEnd().split('\n').map((w) => w.split('\t')[0]);
    expect(words('gymctl acad')).toEqual(['academies', 'academy']);
    expect(words('gymctl auth ')).toEqual(['login', 'logout', 'status']);
    expect(words('gymctl whoami --format ')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(words('gymctl --profile ')).toEqual(['work']);
  });

  it('an unknown shell is a usage error', async () => {
    expectFailure(await gymctl(['completion', 'tcsh']), 2, /no completion for "tcsh"/);
  });
});

