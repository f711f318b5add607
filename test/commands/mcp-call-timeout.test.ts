/** `gymctl mcp --call-timeout`: a limit over 55 s is taken, with one warning naming the 60 s common clients wait; 55 s or less, none. */
import { describe, expect, it } from 'vitest';
import { gymctl } from '../helpers/harness.js';

describe('gymctl mcp --call-timeout', () => {
  it.each(['56s', '120s', '2m'])('%s is taken, with one warning on stderr naming the 60 s common clients wait', async (value) => {
    const { code, stdout, stderr } = await gymctl(['mcp', '--sandbox', '--call-timeout', value], { stdin: '' });
    expect(code).toBe(0);
    expect(stdout).toBe('');
    const warnings = stderr.split('\n').filter((line) => line.includes('warning'));
    expect(warnings).toEqual([
      `gymctl mcp: warning: --call-timeout ${value} is over 55 s: common MCP clients (the official SDK's among them) give up on a call after 60 s unless the client asks for progress, so a call that long may end without its answer`,
    ]);
    expect(stderr).toMatch(/serving [0-9]+ tools/);
  });

  it.each(['45s', '55s', '55000ms'])('%s is taken without a warning', async (value) => {
    const { code, stderr } = await gymctl(['mcp', '--sandbox', '--call-timeout', value], { stdin: '' });
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/warning|60 s/);
  });
});
