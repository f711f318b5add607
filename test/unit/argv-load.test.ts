// The pre-scan's table of value options is built when src/argv.ts loads: loaded here inside the test, so that a
// mistake in building it fails this test rather than the collection of a file (which a mutation run reads as no test).
import { expect, it } from 'vitest';

it('every global option that takes a value is known to the pre-scan by its long name, -q as --jq, and -o and --output as --format', async () => {
  const { VALUE_FLAGS } = await import('../../src/argv.js');
  expect(VALUE_FLAGS).toEqual({
    '-q': '--jq',
    '--format': '--format',
    '-o': '--format',
    '--output': '--format',
    '--jq': '--jq',
    '--columns': '--columns',
    '--cache': '--cache',
    '--base-url': '--base-url',
    '--profile': '--profile',
    '--timeout': '--timeout',
    '--retries': '--retries',
  });
});
