/**
 * Messages about what the user typed: the rule an id breaks, a --jq filter's
 * error in the filter's own terms, and the next command keeping the profile.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const gymctl = (args: string[], options: GymctlOptions = {}) => inProcess(args, { configDir: world.config.dir, ...options });
const apiEnv = () => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });

describe('an id with a leading zero', () => {
  it('is said to be one, with the id meant, for academy and member ids alike, before anything is sent', async () => {
    world.requests.length = 0;
    expect(await gymctl(['academy', '07'], { env: apiEnv() })).toMatchObject({ code: 2, stdout: '', stderr: 'gymctl: invalid academy id "07": no leading zeros (write 7)\n' });
    expect(await gymctl(['family', '1,007'], { env: apiEnv() })).toMatchObject({ code: 2, stdout: '', stderr: 'gymctl: invalid member id "007": no leading zeros (write 7)\n' });
    expect(world.requests).toHaveLength(0);
  });
});

describe('a --jq filter that does not compile', () => {
  const reason = async (filter: string) => {
    const result = await gymctl(['academy', '1', '--jq', filter], { env: apiEnv() });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    return (JSON.parse(result.stderr) as { error: { message: string } }).error.message;
  };

  it('is said in terms of what was typed, never of text gymctl adds around it', async () => {
    world.requests.length = 0;
    const said = {
      '.name |': 'syntax error, something is missing at the end of the filter',
      '.a |\n .b |': 'syntax error, something is missing at the end of the filter',
      '(.name': "syntax error, expecting '|' or ',' or ')' at the end of the filter",
      '[.name': "syntax error, expecting '|' or ',' or ']' at the end of the filter",
      '.name)': "syntax error, unexpected ')' at line 1, column 6",
      '.a |\n .b]': "syntax error, unexpected ']' at line 2, column 4",
      'if .a then 1': 'syntax error, something is missing at the end of the filter',
      '.name |||': "syntax error, unexpected '|' at line 1, column 8",
      'def f: 1;': 'Top-level program not given (try ".")',
    };
    for (const [filter, message] of Object.entries(said)) expect(await reason(filter), filter).toBe(`invalid --jq filter: ${message}`);
    expect(world.requests).toHaveLength(0);
  });
});
