#!/usr/bin/env node
// npm run test:mutation: Stryker (stryker.config.mjs), with the temporary folder of the tests it runs made here and
// removed after. Stryker ends a mutant's run that loops or hangs by killing its test process, so that test's own
// clean-up never runs: whatever it had made in the temporary folder goes with this one instead.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const scratch = mkdtempSync(path.join(tmpdir(), 'gymctl-mutation-'));
let status = 1;
try {
  // `stryker` is on the PATH npm run gives a script (node_modules/.bin).
  const run = spawnSync('stryker', ['run', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: scratch },
    shell: process.platform === 'win32',
  });
  status = run.status ?? 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(status);
