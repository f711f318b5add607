// The single executable's rows of npm run bench (dist/sea/gymctl, from
// npm run build:sea), beside the npm build run by the same Node binary the
// executable embeds (dist/sea/build.json names it): whoami --json against
// that Node's one-call floor, --version against its `node -e 0`, peak
// memory, and the file's size. "not built" when there is no binary.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TARGETS } from './targets.mjs';

/** A difference with its sign: `+18`, `-18`. */
export const signed = (difference, digits = 0) => `${difference < 0 ? '-' : '+'}${Math.abs(difference).toFixed(digits)}`;

/** The binary and the Node it embeds, or a reason it cannot be measured. */
export function seaBuild(root) {
  const binary = path.join(root, 'dist', 'sea', process.platform === 'win32' ? 'gymctl.exe' : 'gymctl');
  const info = path.join(root, 'dist', 'sea', 'build.json');
  if (!existsSync(binary) || !existsSync(info)) return { missing: 'not built (npm run build:sea)' };
  const build = JSON.parse(readFileSync(info, 'utf8'));
  if (!existsSync(build.node)) return { missing: `built with ${build.node} (${build.nodeVersion}), which is no longer there` };
  return { binary, ...build };
}

/**
 * Measures the binary (`sea`, from seaBuild) with the bench's helpers
 * (`time`, `interleaved`, `median`), and returns the table's rows and
 * whether a target was missed.
 */
export function measureSea(sea, { bin, here, baseUrl, key, runs, time, interleaved, median }) {
  const node = sea.node;
  const start = [
    { name: `node -e 0 (${sea.nodeVersion}, the binary's Node)`, command: node, args: ['-e', '0'] },
    { name: 'npm build --version', command: node, args: [bin, '--version'] },
    { name: 'binary --version', command: sea.binary, args: ['--version'] },
    { name: 'one-call floor (floor-one.cjs)', command: node, args: [path.join(here, 'floor-one.cjs'), baseUrl, key] },
    { name: 'npm build whoami --json', command: node, args: [bin, 'whoami', '--json'] },
    { name: 'binary whoami --json', command: sea.binary, args: ['whoami', '--json'] },
  ];
  // Warm the file cache, the code cache and the binary's unpacked folder.
  for (let i = 0; i < 3; i++) for (const c of start) time(c.command, c.args);
  const [base, npmVersion, seaVersion, floor, npmWhoami, seaWhoami] = interleaved(start, runs, 'single executable');
  // Peak memory, both builds alike: the child's ru_maxrss, as GNU time reports it. The binary reads no NODE_OPTIONS,
  // so nothing can be preloaded into it to say it from inside, as max-rss.cjs does for the npm build's other rows.
  const gnuTime = '/usr/bin/time';
  const scratch = mkdtempSync(path.join(tmpdir(), 'gymctl-bench-rss-'));
  const rssOf = (command, args) => {
    if (!existsSync(gnuTime)) return Number.NaN;
    const out = path.join(scratch, 'rss');
    const once = () => {
      time(gnuTime, ['-o', out, '-f', '%M', command, ...args]);
      return Number(readFileSync(out, 'utf8').trim()) / 1024;
    };
    return median(Array.from({ length: 5 }, once));
  };
  let npmRss;
  let seaRss;
  try {
    npmRss = rssOf(node, [bin, 'whoami', '--json']);
    seaRss = rssOf(sea.binary, ['whoami', '--json']);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const mb = (value) => (Number.isNaN(value) ? `n/a (needs ${gnuTime})` : value.toFixed(0));
  const ratio = (a, b) => (a / b).toFixed(2);
  const verdict = (value, target) => (value <= target ? 'pass' : 'FAIL');
  const rows = [
    [start[0].name, base.toFixed(1), '1.00', '', ''],
    [start[1].name, npmVersion.toFixed(1), ratio(npmVersion, base), '', ''],
    [start[2].name, seaVersion.toFixed(1), ratio(seaVersion, base), `≤ ${TARGETS.seaVersion}× node -e 0`, verdict(seaVersion / base, TARGETS.seaVersion)],
    [start[3].name, floor.toFixed(1), '1.00', '', ''],
    [start[4].name, npmWhoami.toFixed(1), ratio(npmWhoami, floor), '', ''],
    [start[5].name, seaWhoami.toFixed(1), ratio(seaWhoami, floor), `≤ ${TARGETS.seaWhoami}× one-call floor`, verdict(seaWhoami / floor, TARGETS.seaWhoami)],
    ['peak memory, npm build whoami --json (MB)', mb(npmRss), '', '', ''],
    ['peak memory, binary whoami --json (MB)', mb(seaRss), Number.isNaN(seaRss) ? '' : `${signed(seaRss - npmRss)} MB`, '', ''],
    [`binary size (MiB; ${sea.stripped ? 'stripped' : 'not stripped'})`, (sea.size / 2 ** 20).toFixed(1), '', '', ''],
  ];
  return { rows, failed: rows.some((row) => row[4] === 'FAIL') };
}
