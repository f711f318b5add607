/** The README's exit-code table says what the one table in the code says. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/failures.js';
import { ROOT } from '../helpers/cli.js';

describe('README', () => {
  it('its exit-code table is the table help exit-codes is made from', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.split('\n## Errors and exit codes\n')[1]!.split('\n## ')[0]!;
    const rows = [...section.matchAll(/^\| (\d+) \| ?(\w*) ?\| (.+) \|$/gm)].map(([, code, kind, when]) => ({
      code: Number(code),
      kind: kind || undefined,
      when,
    }));
    expect(rows).toEqual(EXIT_CODES.map(({ code, kind, when }) => ({ code, kind, when })));
  });
});
