#!/usr/bin/env node
// npm run bench: gymctl's speed as users' machines see it, against floors:
// the smallest Node programs that do the same job (floor-one.cjs,
// floor-batch.cjs), all against the same sandbox, interleaved in one run so
// that the machine's noise falls on all of them alike. Medians and ratios.
//
//   BENCH_NODE=/path/to/node22:/path/to/node24   also measure these Node binaries
//   BENCH_RUNS=N      runs of each start-up case (default 20)
//   BENCH_BATCH=N     runs of each batch case (default 3)
//   BENCH_IDS=N       ids in the batch cases (default 20000)
//   BENCH_CURL=1      also time xargs -P 8 curl over 2,000 ids (once; opt-in)
//   BENCH_PROFILE=1   say where the time goes for every case with a target, not only those that miss it
//   BENCH_ONLY=sea    only the single executable's rows
//   BENCH_BASE=DIR    also time another built checkout of gymctl (an A/B: its whoami, batch and memory rows,
//                     interleaved with this one's)
//
// Where a case misses its target, the bench runs it once more under V8's
// profiler and prints where its time went, by source folder, bundled package
// and part of Node (profile.mjs).
//
// When dist/sea/gymctl is built (npm run build:sea), its rows follow
// (sea.mjs), against the Node binary it embeds.
//
// Progress goes to stderr as it runs; the tables to stdout. One Node takes
// about a minute and a half on 2 cores.
//
// On Node 22.1 and later gymctl loads its main file through Node's compile
// cache (in $XDG_CACHE_HOME/gymctl-code-cache, here inside the bench's own
// folder). "whoami --json" is the usual, warm case; "cold" removes the
// cache before every run, as a first run after an install or upgrade.
//
// The terminal-table rows draw 10,000 and 20,000 rows as on a terminal
// (GYMCTL_FORCE_TTY), beside the same 10,000 ids in a pipe.
//
// Every timed command runs with NODE_EXTRA_CA_CERTS unset: when set (as on
// some CI machines) Node parses the whole CA bundle at every start, which
// users rarely pay and which would flatter every ratio.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { whereTimeGoes } from './profile.mjs';
import { measureSea, seaBuild, signed } from './sea.mjs';
import { TARGETS } from './targets.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const bin = path.join(root, 'bin', 'gymctl.cjs');
const baseBin = process.env.BENCH_BASE ? path.join(path.resolve(process.env.BENCH_BASE), 'bin', 'gymctl.cjs') : undefined;
const maxRss = path.join(here, 'max-rss.cjs');
const runs = Number(process.env.BENCH_RUNS ?? 20);
const batchRuns = Number(process.env.BENCH_BATCH ?? 3);
const batchIds = Number(process.env.BENCH_IDS ?? 20_000);
const KEY = 'demo_key_all_academies';
const nodes = [process.execPath, ...(process.env.BENCH_NODE ?? '').split(path.delimiter).filter(Boolean)];

const work = mkdtempSync(path.join(tmpdir(), 'gymctl-bench-'));
/** The other build's code cache, apart: the cold case empties this build's before each of its runs. */
const BASE_OPTIONS = { extraEnv: { XDG_CACHE_HOME: path.join(work, 'base-cache') } };
// Nothing of the caller's that would change what is timed: every GYMCTL_ setting, the proxy variables, NODE_OPTIONS and NODE_EXTRA_CA_CERTS.
const kept = Object.entries(process.env).filter(([name]) => !/^(GYMCTL_\w+|NODE_OPTIONS|NODE_EXTRA_CA_CERTS|(https?|all|no)_proxy)$/i.test(name));
const env = { ...Object.fromEntries(kept), GYMCTL_CONFIG_DIR: path.join(work, 'config'), XDG_CACHE_HOME: path.join(work, 'cache'), NO_COLOR: '1' };

/** Runs a command once; returns milliseconds, and peak memory in MB when asked (`memory: 'env'`: the command preloads max-rss.cjs itself, through NODE_OPTIONS). */
function time(command, args, { input, stdinFile, memory = false, extraEnv } = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, memory === true ? ['--require', maxRss, ...args] : args, {
    env: extraEnv ? { ...env, ...extraEnv } : env,
    input,
    stdio: ['pipe', 'ignore', 'pipe', ...(memory ? ['pipe'] : [])],
    maxBuffer: 1 << 30,
    ...(stdinFile ? { input: readIds(stdinFile) } : {}),
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return { ms, rss: memory ? Number(String(result.output[3]).trim()) / 1024 : undefined };
}

function readIds(file) {
  if (!idCache.has(file)) idCache.set(file, readFileSync(file));
  return idCache.get(file);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const progress = (text) => process.stderr.write(`bench: ${text}\n`);

/** Runs each case `n` times, interleaved; returns the median ms of each. A case may have a `before` step, run untimed. */
function interleaved(cases, n, label) {
  const samples = cases.map(() => []);
  for (let i = 0; i < n; i++) {
    if (label && (i === 0 || (i + 1) % Math.max(1, Math.round(n / 4)) === 0)) progress(`${label}: round ${i + 1} of ${n}`);
    cases.forEach((c, j) => {
      c.before?.();
      samples[j].push(time(c.command, c.args, c.options).ms);
    });
  }
  return samples.map(median);
}

/** Removes gymctl's code cache (a cold start). */
const coldStart = () => rmSync(path.join(work, 'cache', 'gymctl-code-cache'), { recursive: true, force: true });

function table(rows, header = ['case', 'median ms', 'ratio', 'target', 'result']) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells) => `| ${cells.map((cell, i) => String(cell ?? '').padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
  console.log('');
}

const verdict = (ratio, target, atMost = true) => ((atMost ? ratio <= target : ratio >= target) ? 'pass' : 'FAIL');

async function measure(node, baseUrl, idsFile) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const major = Number(version.slice(1).split('.')[0]);
  progress(`Node ${version}`);
  console.log(`Node ${version}`);
  const start = [
    { name: 'node -e 0', command: node, args: ['-e', '0'] },
    { name: 'gymctl --version', command: node, args: [bin, '--version'] },
    { name: 'one-call floor (floor-one.cjs)', command: node, args: [path.join(here, 'floor-one.cjs'), baseUrl, KEY] },
    { name: 'gymctl whoami --json', command: node, args: [bin, 'whoami', '--json'] },
    { name: 'gymctl whoami --json, cold (no code cache)', command: node, args: [bin, 'whoami', '--json'], before: coldStart },
    { name: 'gymctl whoami --jq .name', command: node, args: [bin, 'whoami', '--jq', '.name'] },
    // The top-level help written at build time, against the same text from the parser.
    { name: 'gymctl --help (dist/help.txt)', command: node, args: [bin, '--help'] },
    { name: 'gymctl help (the parser)', command: node, args: [bin, 'help'] },
    ...(baseBin ? [{ name: 'BENCH_BASE: gymctl whoami --json', command: node, args: [baseBin, 'whoami', '--json'], options: BASE_OPTIONS }] : []),
  ];
  // Warm the file cache; the warm case's code cache is written by the run before it.
  for (let i = 0; i < 3; i++) for (const c of start) time(c.command, c.args, c.options);
  const [base, version_, floor, whoami, cold, jq, helpText, helpParsed, baseWhoami] = interleaved(start, runs, 'start-up');
  const whoamiTarget = major <= 20 ? TARGETS.whoamiNode20 : TARGETS.whoami;
  const ids = idsFile(batchIds);
  const batch = [
    { name: `batch floor (floor-batch.cjs), ${batchIds} ids`, command: node, args: [path.join(here, 'floor-batch.cjs'), baseUrl, KEY], options: { stdinFile: ids } },
    { name: `gymctl academy - --format ndjson, ${batchIds} ids`, command: node, args: [bin, 'academy', '-', '--format', 'ndjson'], options: { stdinFile: ids } },
    ...(baseBin
      ? [
          {
            name: `BENCH_BASE: gymctl academy - --format ndjson, ${batchIds} ids`,
            command: node,
            args: [baseBin, 'academy', '-', '--format', 'ndjson'],
            options: { stdinFile: ids, ...BASE_OPTIONS },
          },
        ]
      : []),
  ];
  const [batchFloor, batchGymctl, baseBatch] = interleaved(batch, batchRuns, `batch of ${batchIds} ids`);
  // A long terminal table (cli-table3, drawn in chunks) beside the same batch in a pipe, and twice as long: linear in rows.
  const terminal = { GYMCTL_FORCE_TTY: '1', GYMCTL_NO_PROGRESS: '1' };
  const tables = [
    { name: 'gymctl academy - in a pipe, 10000 ids', command: node, args: [bin, 'academy', '-'], options: { stdinFile: idsFile(10_000) } },
    { name: 'gymctl academy - as a terminal table, 10000 ids', command: node, args: [bin, 'academy', '-'], options: { stdinFile: idsFile(10_000), extraEnv: terminal } },
    { name: 'gymctl academy - as a terminal table, 20000 ids', command: node, args: [bin, 'academy', '-'], options: { stdinFile: idsFile(20_000), extraEnv: terminal } },
  ];
  const [pipe10k, table10k, table20k] = interleaved(tables, batchRuns, 'terminal tables');
  progress('peak memory');
  const rss = (n, of = bin) =>
    median(
      Array.from(
        { length: batchRuns },
        () => time(node, [of, 'academy', '-', '--format', 'ndjson'], { stdinFile: idsFile(n), memory: true, ...(of === bin ? {} : BASE_OPTIONS) }).rss,
      ),
    );
  const rss50k = rss(50_000);
  const rss100k = rss(100_000);
  const baseRss100k = baseBin && rss(100_000, baseBin);
  const rows = [
    [start[0].name, base.toFixed(1), '1.00', '', ''],
    [start[1].name, version_.toFixed(1), (version_ / base).toFixed(2), `≤ ${TARGETS.version}× node -e 0`, verdict(version_ / base, TARGETS.version)],
    [start[2].name, floor.toFixed(1), '1.00', '', ''],
    [start[3].name, whoami.toFixed(1), (whoami / floor).toFixed(2), `≤ ${whoamiTarget}× one-call floor`, verdict(whoami / floor, whoamiTarget)],
    // The first run after an install writes the cache: what it costs over a warm run.
    [start[4].name, cold.toFixed(1), `${(cold / floor).toFixed(2)} (${signed(cold - whoami)} ms)`, '', ''],
    // jq is real jq in WebAssembly, loaded only for --jq: what it adds to a call.
    [start[5].name, jq.toFixed(1), `${signed(jq - whoami)} ms`, '', ''],
    [start[6].name, helpText.toFixed(1), `${(helpText / base).toFixed(2)} (${signed(helpText - helpParsed)} ms)`, '', ''],
    [start[7].name, helpParsed.toFixed(1), (helpParsed / base).toFixed(2), '', ''],
    [batch[0].name, batchFloor.toFixed(0), '1.00', '', ''],
    [batch[1].name, batchGymctl.toFixed(0), (batchGymctl / batchFloor).toFixed(2), `≤ ${TARGETS.batch}× batch floor`, verdict(batchGymctl / batchFloor, TARGETS.batch)],
    [tables[0].name, pipe10k.toFixed(0), '1.00', '', ''],
    [tables[1].name, table10k.toFixed(0), `${(table10k / pipe10k).toFixed(2)}× pipe`, '', ''],
    [tables[2].name, table20k.toFixed(0), `${(table20k / table10k).toFixed(2)}× 10000`, `≤ ${TARGETS.table}× 10000 rows`, verdict(table20k / table10k, TARGETS.table)],
    ['peak memory, 50,000 ids (MB)', rss50k.toFixed(0), '', '', ''],
    [
      'peak memory, 100,000 ids (MB)',
      rss100k.toFixed(0),
      `${(rss100k / rss50k).toFixed(2)}× 50,000`,
      `< ${TARGETS.memoryMb} MB, flat (≤ ${TARGETS.memoryFlat}×)`,
      rss100k < TARGETS.memoryMb && rss100k <= rss50k * TARGETS.memoryFlat ? 'pass' : 'FAIL',
    ],
  ];
  if (baseBin) {
    rows.push(
      [start[8].name, baseWhoami.toFixed(1), `${(baseWhoami / floor).toFixed(2)} (this: ${signed(whoami / floor - baseWhoami / floor, 2)})`, '', ''],
      [batch[2].name, baseBatch.toFixed(0), `${(baseBatch / batchFloor).toFixed(2)} (this: ${signed(batchGymctl / batchFloor - baseBatch / batchFloor, 2)})`, '', ''],
      ['BENCH_BASE: peak memory, 100,000 ids (MB)', baseRss100k.toFixed(0), '', '', ''],
    );
  }
  table(rows);
  // The cases with a time target, by their row: where the time of each that misses goes.
  const targeted = new Map([
    [start[1].name, start[1]],
    [start[3].name, start[3]],
    [batch[1].name, batch[1]],
    [tables[2].name, tables[2]],
  ]);
  for (const row of rows) {
    const timed = targeted.get(row[0]);
    if (!timed || (row[4] !== 'FAIL' && process.env.BENCH_PROFILE !== '1')) continue;
    // The batch beside its floor, in the same run: what gymctl adds is the difference, part by part.
    for (const profiled of timed === batch[1] ? [batch[0], timed] : [timed]) {
      progress(`profiling: ${profiled.name}`);
      const { stdinFile, extraEnv } = profiled.options ?? {};
      console.log(`Where the time goes: ${profiled.name} (one run under the profiler, which slows it)`);
      table(whereTimeGoes(node, profiled.args, { env: extraEnv ? { ...env, ...extraEnv } : env, input: stdinFile && readIds(stdinFile) }), ['where', 'ms', 'share']);
    }
  }
  lastBatch ??= batchGymctl;
  return rows.some((row) => row[4] === 'FAIL');
}

/** Opt-in (BENCH_CURL=1), and small: curl starts a process per id, so 2,000 ids take as long as gymctl's 20,000. */
const CURL_IDS = 2000;

function curlComparison(baseUrl, ids) {
  // Once, with the machine's Node's batch beside it (scaled to the same count): curl's time does not depend on Node.
  progress(`xargs -P 8 curl, ${CURL_IDS} ids`);
  const script = `xargs -P 8 -I{} curl -s -o /dev/null -H 'X-API-Key: ${KEY}' '${baseUrl}/academies/{}'`;
  const curl = time('sh', ['-c', script], { stdinFile: ids }).ms;
  const speedup = ((curl / CURL_IDS) * batchIds) / lastBatch;
  table([
    [`xargs -P 8 curl, ${CURL_IDS} ids (once)`, curl.toFixed(0), '', '', ''],
    ["  gymctl's speed-up over curl, per id (first Node above)", '', `${speedup.toFixed(1)}×`, `≥ ${TARGETS.curlSpeedup}×`, verdict(speedup, TARGETS.curlSpeedup, false)],
  ]);
  return speedup < TARGETS.curlSpeedup;
}

const idCache = new Map();
/** The machine's Node's batch time, for the comparison with curl. */
let lastBatch;
let sandbox;
try {
  sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const baseUrl = await new Promise((resolve, reject) => {
    let out = '';
    sandbox.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    sandbox.on('exit', () => reject(new Error('the sandbox did not start')));
  });
  const login = spawnSync(process.execPath, [bin, 'auth', 'login', '--with-key', '--base-url', baseUrl], { env, input: KEY });
  if (login.status !== 0) throw new Error(`login failed: ${login.stderr}`);
  const idsFile = (n) => {
    const file = path.join(work, `ids-${n}.txt`);
    writeFileSync(file, `${Array.from({ length: n }, (_, i) => (i % 4) + 1).join('\n')}\n`);
    return file;
  };

  console.log(`${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; NODE_EXTRA_CA_CERTS unset for every timed command`);
  console.log(`${runs} interleaved runs per start-up case, ${batchRuns} per batch case, ${batchIds} ids a batch\n`);
  let failed = false;
  if (process.env.BENCH_ONLY !== 'sea') for (const node of nodes) failed = (await measure(node, baseUrl, idsFile)) || failed;
  const sea = seaBuild(root);
  console.log(`Single executable (dist/sea/gymctl): ${sea.missing ?? `gymctl ${sea.version} on Node ${sea.nodeVersion}`}`);
  if (!sea.missing) {
    const measured = measureSea(sea, { bin, here, baseUrl, key: KEY, runs, time, interleaved, median });
    table(measured.rows);
    console.log("The binary's peak memory counts its file's pages mapped from the page cache: a freshly written file's may be 2 MB folios (see docs/sea-notes.md).\n");
    failed = measured.failed || failed;
  } else console.log('');
  if (process.env.BENCH_CURL === '1') {
    if (spawnSync('curl', ['--version']).status !== 0) throw new Error('BENCH_CURL=1 needs curl, which this machine lacks');
    failed = curlComparison(baseUrl, idsFile(CURL_IDS)) || failed;
  }
  process.exitCode = failed ? 1 : 0;
} finally {
  sandbox?.stdout?.destroy();
  sandbox?.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
}
