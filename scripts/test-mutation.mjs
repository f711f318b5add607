#!/usr/bin/env node
// npm run test:mutation: Stryker (test/mutation/stryker.config.mjs) on the guarded modules (test/mutation/modules.mjs), or on those
// named with --mutate, then the gate (scripts/mutation-gate.mjs) on its JSON report, reports/mutation/mutation.json,
// which stays there to be read (timeouts included).
// The tests Stryker runs get a temporary folder made here and removed after: Stryker ends a mutant's run that loops or
// hangs by killing its test process, so that test's own clean-up never runs, and what it had made goes with this folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { judge } from './mutation-gate.mjs';
import { MODULES, PENDING } from '../test/mutation/modules.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const REPORT = path.join(ROOT, 'reports/mutation/mutation.json');
const args = process.argv.slice(2);

// The modules asked for: --mutate's (or -m's), comma-separated, each a guarded module by its path; every one otherwise.
let expected = Object.keys(MODULES);
for (let i = 0; i < args.length; i++) {
  const match = /^(?:--mutate|-m)(?:=(.*))?$/.exec(args[i]);
  if (!match) continue;
  const value = match[1] ?? args[i + 1] ?? '';
  expected = value.split(',').map((entry) => entry.replace(/:\d+(?::\d+)?-\d+(?::\d+)?$/, ''));
  const unknown = expected.filter((module) => !(module in MODULES));
  if (unknown.length > 0) {
    console.error(`Not a guarded module: ${unknown.join(', ')}. Name modules by their path, as test/mutation/modules.mjs lists them.`);
    process.exit(1);
  }
}

rmSync(REPORT, { force: true });
const scratch = mkdtempSync(path.join(tmpdir(), 'gymctl-mutation-'));
let status = 1;
try {
  // `stryker` is on the PATH npm run gives a script (node_modules/.bin).
  const run = spawnSync('stryker', ['run', 'test/mutation/stryker.config.mjs', ...args], {
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: scratch, GYMCTL_MUTATE: expected.join(',') },
    shell: process.platform === 'win32',
  });
  status = run.status ?? 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (status !== 0) {
  console.error(`Stryker exited with ${status}: the gate was not judged.`);
  process.exit(status);
}

const report = existsSync(REPORT) ? JSON.parse(readFileSync(REPORT, 'utf8')) : undefined;
if (!report) console.error(`Stryker wrote no report at ${path.relative(ROOT, REPORT)} (is the json reporter on?)`);
const equivalents = JSON.parse(readFileSync(path.join(ROOT, 'test/mutation/equivalent.json'), 'utf8'));
const { lines, failed } = judge({ report, expected, equivalents, pending: PENDING, exists: (file) => existsSync(path.join(ROOT, file)) });
console.log(`\nMutation score per module (each must reach 90%; the report: ${path.relative(ROOT, REPORT)}):\n${lines.join('\n')}\n`);
process.exit(failed || !report ? 1 : 0);
