#!/usr/bin/env node
// npm run test:mutation: Stryker (test/mutation/stryker.config.mjs) on the guarded modules (test/mutation/modules.mjs), or on those
// named with --mutate, then the gate (scripts/mutation-gate.mjs) on its JSON report, reports/mutation/mutation.json,
// which stays there to be read (timeouts included).
// Each mutant that timed out is run again apart from the first run (two at once, one a core), with RERUN_TIMEOUT_MS: on
// a busy machine a survivor can time out, and a time-out counts as detected. Stryker is named each one by its span, which takes in every mutant inside
// it too, so it is also given the first run's report without its time-outs as its incremental file
// (reports/mutation/incremental.json, removed after): each other mutant keeps its first result, and only those that
// timed out run. That run's report is reports/mutation/rerun.json.
// The tests Stryker runs get a temporary folder made here and removed after: Stryker ends a mutant's run that loops or
// hangs by killing its test process, so that test's own clean-up never runs, and what it had made goes with this folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { judge, RERUN_TIMEOUT_MS, statusOf, withoutTimeouts } from './mutation-gate.mjs';
import { MODULES, PENDING } from '../test/mutation/modules.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const REPORT = path.join(ROOT, 'reports/mutation/mutation.json');
const RERUN = path.join(ROOT, 'reports/mutation/rerun.json');
const INCREMENTAL = 'reports/mutation/incremental.json';
const args = process.argv.slice(2);

// The modules asked for: --mutate's (or -m's), comma-separated, each a guarded module by its path, whole or a range of
// its lines (file:A-B, as Stryker takes it); every one otherwise.
let expected = Object.keys(MODULES);
/** The line ranges asked for, per module given only as ranges: the gate judges only the listings inside them. */
let ranges = {};
for (let i = 0; i < args.length; i++) {
  const match = /^(?:--mutate|-m)(?:=(.*))?$/.exec(args[i]);
  if (!match) continue;
  const value = match[1] ?? args[i + 1] ?? '';
  const whole = new Set();
  ranges = {};
  expected = value.split(',').map((entry) => {
    const range = /^(.*?):(\d+)(?::\d+)?-(\d+)(?::\d+)?$/.exec(entry);
    if (!range) {
      whole.add(entry);
      return entry;
    }
    ranges[range[1]] = [...(ranges[range[1]] ?? []), [Number(range[2]), Number(range[3])]];
    return range[1];
  });
  for (const module of whole) delete ranges[module];
  expected = [...new Set(expected)];
  const unknown = expected.filter((module) => !(module in MODULES));
  if (unknown.length > 0) {
    console.error(`Not a guarded module: ${unknown.join(', ')}. Name modules by their path, as test/mutation/modules.mjs lists them.`);
    process.exit(1);
  }
}

/** Every `Stryker disable` comment in src/, which the gate fails unless test/mutation/equivalent.json lists it. */
function disableComments() {
  return readdirSync(path.join(ROOT, 'src'), { recursive: true })
    .filter((name) => /\.[cm]?[jt]sx?$/.test(name))
    .flatMap((name) => {
      const file = `src/${name.split(path.sep).join('/')}`;
      return readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((text, index) => (/stryker\s+disable/i.test(text) ? [{ file, line: index + 1, text }] : []));
    });
}

/** Runs Stryker with `extra` arguments; its exit status. */
function stryker(extra) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'gymctl-mutation-'));
  try {
    // `stryker` is on the PATH npm run gives a script (node_modules/.bin).
    const run = spawnSync('stryker', ['run', 'test/mutation/stryker.config.mjs', ...extra], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, TMPDIR: scratch, GYMCTL_MUTATE: expected.join(',') },
      shell: process.platform === 'win32',
    });
    return run.status ?? 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const read = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);

rmSync(REPORT, { force: true });
rmSync(RERUN, { force: true });
rmSync(path.join(ROOT, INCREMENTAL), { force: true });
let status = stryker(args);
if (status !== 0) {
  console.error(`Stryker exited with ${status}: the gate was not judged.`);
  process.exit(status);
}
const report = read(REPORT);
if (!report) console.error(`Stryker wrote no report at ${path.relative(ROOT, REPORT)} (is the json reporter on?)`);

// Each mutant that timed out, by its span (Stryker's columns start at 0, the report's at 1), run again.
const timedOut = Object.entries(report?.files ?? {})
  .filter(([file]) => expected.includes(file))
  .flatMap(([file, entry]) =>
    entry.mutants.filter((m) => statusOf(m) === 'Timeout').map(({ location: { start, end } }) => `${file}:${start.line}:${start.column - 1}-${end.line}:${end.column}`),
  );
let rerun;
if (timedOut.length > 0) {
  console.log(`\n${timedOut.length} mutants timed out: each is run again, two at once, with ${RERUN_TIMEOUT_MS / 1000} s.\n`);
  writeFileSync(path.join(ROOT, INCREMENTAL), JSON.stringify(withoutTimeouts(report)));
  renameSync(REPORT, `${REPORT}.first`);
  try {
    const spans = [...new Set(timedOut)].join(',');
    status = stryker(['--mutate', spans, '--incremental', '--incrementalFile', INCREMENTAL, '--concurrency', '2', '--timeoutMS', String(RERUN_TIMEOUT_MS)]);
    if (existsSync(REPORT)) renameSync(REPORT, RERUN);
  } finally {
    renameSync(`${REPORT}.first`, REPORT);
    rmSync(path.join(ROOT, INCREMENTAL), { force: true });
  }
  if (status !== 0) {
    console.error(`Stryker exited with ${status} on the mutants that timed out: the gate was not judged.`);
    process.exit(status);
  }
  rerun = read(RERUN);
}

const equivalents = JSON.parse(readFileSync(path.join(ROOT, 'test/mutation/equivalent.json'), 'utf8'));
const { lines, failed } = judge({
  report,
  rerun,
  ranges,
  disables: disableComments(),
  expected,
  equivalents,
  pending: PENDING,
  exists: (file) => existsSync(path.join(ROOT, file)),
});
console.log(`\nMutation score per module (each must reach 90%; the report: ${path.relative(ROOT, REPORT)}):\n${lines.join('\n')}\n`);
process.exit(failed || !report ? 1 : 0);
