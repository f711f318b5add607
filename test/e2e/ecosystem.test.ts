/**
 * The built help, end to end: the text the entry point prints without the
 * parser is the parser's. Completion in real shells is in
 * test/e2e/completion.test.ts; the rest of what gh users take for granted
 * is tested in-process (test/commands/ecosystem.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

describe('the built help', () => {
  it('gymctl --help is the same text whether it comes from the build or from the parser', async () => {
    const config = tempConfigDir();
    try {
      const built = await runCli(['--help'], config.dir);
      const parsed = await runCli(['help'], config.dir);
      expect(built.stdout).toBe(parsed.stdout);
      expect(built.stdout).toContain('Examples:');
    } finally {
      config.remove();
    }
  });
});
