/**
 * A filter refused by a jq whose messages are not quite jq 1.8's (another build, a later version): gymctl still says it
 * is refused, and takes jq's first error for the reason, not a line about something else. The jq that checks the
 * filter is faked here for the filters below; any other is checked by the real one.
 */
import { describe, expect, it, vi } from 'vitest';
import { compileJq } from '../../src/output/jq.js';
import { refused } from '../helpers/jq.js';

const SAID: Record<string, string> = {
  'no reason': 'jq: 1 compile error',
  'a warning first': 'jq: warning: something is deprecated\njq: error: nothing/0 is not defined at <top-level>, line 1, column 3:\n  a warning first\n  ^\njq: 1 compile error',
  'a place with no colon': 'jq: error: syntax error, unexpected INVALID_CHARACTER at <top-level>, line 1, column 3\njq: 1 compile error',
};

/** What each check's jq was loaded with. */
const loaded: unknown[] = [];

vi.mock('jq-wasm', async (original) => {
  const real = await original<typeof import('jq-wasm')>();
  return {
    ...real,
    loadJq: async (options: Parameters<typeof real.loadJq>[0]) => {
      loaded.push(options);
      const jq = await real.loadJq(options);
      return {
        ...jq,
        raw: (input: string, expression: string, flags?: string[]) =>
          SAID[expression] === undefined ? jq.raw(input, expression, flags) : { stdout: '', stderr: SAID[expression], exitCode: 3 },
      };
    },
  };
});

describe('a filter refused by a jq that says it differently', () => {
  it('with no reason given, it is still a usage error: the filter does not compile', async () => {
    expect(await refused('no reason')).toBe('invalid --jq filter: it does not compile');
  });

  it('a warning before the error is not taken for the reason', async () => {
    expect(await refused('a warning first')).toBe('invalid --jq filter: nothing/0 is not defined at line 1, column 3');
  });

  it('a place said without the colon that ends it in jq 1.8 is still the place, and its character is shown', async () => {
    expect(await refused('a place with no colon')).toBe("invalid --jq filter: syntax error, unexpected 'p' at line 1, column 3");
  });

  it('any other filter is checked by jq itself', async () => {
    expect(await refused('.a |||')).toBe("invalid --jq filter: syntax error, unexpected '|' at line 1, column 5");
  });

  it('the check runs the WebAssembly gymctl compiled from its own copy (the single executable has no other)', async () => {
    loaded.length = 0;
    await (await compileJq('.')).close();
    expect(loaded).toHaveLength(1);
    expect((loaded[0] as { wasmModule?: unknown }).wasmModule).toBeInstanceOf(WebAssembly.Module);
  });
});
