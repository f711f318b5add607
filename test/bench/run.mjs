#!/usr/bin/env node
// npm run bench: gymctl's start-up and batch speed against `node -e 0`, on
// this machine. Starts the sandbox, stores its demo key in a throwaway
// config, then times every case interleaved with the baseline (so that the
// machine's noise falls on all of them alike) and prints medians and ratios.
//
//   BENCH_RUNS=N    runs of each start-up case (default 25)
//   BENCH_BATCH=N   runs of each batch case (default 3)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin', 'gymctl.js');
const maxRss = path.join(root, 'test', 'bench', 'max-rss.cjs');
const runs = Number(process.env.BENCH_RUNS ?? 25);
const batchRuns = Number(process.env.BENCH_BATCH ?? 3);
const KEY = 'demo_key_all_academies';

const work = mkdtempSync(path.join(tmpdir(), 'gymctl-bench-'));
const env = { ...process.env, GYMCTL_CONFIG_DIR: path.join(work, 'config'), NO_COLOR: '1' };
for (const name of ['GYMCTL_API_KEY', 'GYMCTL_BASE_URL', 'GYMCTL_PROFILE', 'GYMCTL_FORCE_TTY', 'GYMCTL_DEBUG', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) {
  delete env[name];
}

// The sandbox, as its own process, the way a user runs it.
const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  sandbox.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /listening on (\S+)/.exec(out);
    if (match) resolve(match[1]);
  });
  sandbox.on('exit', () => reject(new Error('the sandbox did not start')));
});
const stop = () => {
  sandbox.stdout.destroy();
  sandbox.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
};

const login = spawnSync(process.execPath, [bin, 'auth', 'login', '--with-key', '--base-url', baseUrl], { env, input: KEY });
if (login.status !== 0) {
  stop();
  throw new Error(`login failed: ${login.stderr}`);
}

/** Runs a command once; returns milliseconds, and peak memory in MB when measured. */
function time(command, args, input, measureMemory = false) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, measureMemory ? ['--require', maxRss, ...args] : args, {
    env,
    input,
    stdio: ['pipe', 'ignore', 'pipe', ...(measureMemory ? ['pipe'] : [])],
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  const rss = measureMemory ? Number(String(result.output[3]).trim()) / 1024 : undefined;
  return { ms, rss };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const node = process.execPath;
const startup = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'gymctl --version', args: [bin, '--version'], target: 1.2 },
  { name: 'gymctl --help', args: [bin, '--help'], target: 1.2 },
  { name: 'gymctl whoami --json', args: [bin, 'whoami', '--json'], target: 1.5 },
  { name: 'gymctl academy 1 (table)', args: [bin, 'academy', '1'], target: 1.7 },
];
const curl = spawnSync('curl', ['--version']).status === 0;
const curlArgs = (url) => ['-s', '-o', '/dev/null', '-H', `X-API-Key: ${KEY}`, url];
if (curl) startup.push({ name: 'curl GET /academies/1 (reference)', command: 'curl', args: curlArgs(`${baseUrl}/academies/1`) });

const samples = new Map(startup.map((c) => [c.name, []]));
for (let i = 0; i < 3; i++) for (const c of startup) time(c.command ?? node, c.args); // warm the file cache
for (let i = 0; i < runs; i++) {
  for (const c of startup) samples.get(c.name).push(time(c.command ?? node, c.args).ms);
}
const baseline = median(samples.get('node -e 0'));

// Batches: 2,000 ids through stdin against 2,000 curls, 8 at a time.
const ids = (n) => `${Array.from({ length: n }, (_, i) => (i % 4) + 1).join('\n')}\n`;
const batch = { gymctl: [], curl: [], rss2k: [], rss20k: [], rss40k: [] };
for (let i = 0; i < batchRuns; i++) {
  const run = time(node, [bin, 'academy', '-', '--format', 'ndjson'], ids(2000), true);
  batch.gymctl.push(run.ms);
  batch.rss2k.push(run.rss);
  if (curl) {
    const script = `xargs -P 8 -I{} curl -s -o /dev/null -H 'X-API-Key: ${KEY}' '${baseUrl}/academies/{}'`;
    batch.curl.push(time('sh', ['-c', script], ids(2000)).ms);
  }
  batch.rss20k.push(time(node, [bin, 'academy', '-', '--format', 'ndjson'], ids(20000), true).rss);
  batch.rss40k.push(time(node, [bin, 'academy', '-', '--format', 'ndjson'], ids(40000), true).rss);
}

const rows = [];
for (const c of startup) {
  const ms = median(samples.get(c.name));
  const ratio = ms / baseline;
  rows.push([c.name, ms.toFixed(1), ratio.toFixed(2), c.target ? `≤ ${c.target}×` : '', c.target ? (ratio <= c.target ? 'pass' : 'FAIL') : '']);
}
const gymctlBatch = median(batch.gymctl);
if (curl) {
  const curlBatch = median(batch.curl);
  const speedup = curlBatch / gymctlBatch;
  rows.push(['gymctl academy - (2,000 ids, ndjson)', gymctlBatch.toFixed(0), '', '', '']);
  rows.push(['xargs -P 8 curl (2,000 calls)', curlBatch.toFixed(0), '', '', '']);
  rows.push(['  speed-up over curl', '', `${speedup.toFixed(1)}×`, '≥ 8×', speedup >= 8 ? 'pass' : 'FAIL']);
} else {
  rows.push(['gymctl academy - (2,000 ids, ndjson)', gymctlBatch.toFixed(0), '', '≥ 8× curl', 'no curl here']);
}
// Peak memory: under the bound at 20,000 ids, and flat from there on (the
// heap settles at its working size; results are streamed, not kept).
const rss2k = median(batch.rss2k);
const rss20k = median(batch.rss20k);
const rss40k = median(batch.rss40k);
rows.push(['peak memory, 2,000 ids (MB)', rss2k.toFixed(0), '', '', '']);
rows.push(['peak memory, 20,000 ids (MB)', rss20k.toFixed(0), '', '< 120 MB', rss20k < 120 ? 'pass' : 'FAIL']);
rows.push(['peak memory, 40,000 ids (MB)', rss40k.toFixed(0), `${(rss40k / rss20k).toFixed(2)}× 20,000`, 'flat: ≤ 1.1×', rss40k <= rss20k * 1.1 ? 'pass' : 'FAIL']);

const header = ['case', 'median ms', 'ratio to node -e 0', 'target', 'result'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ${runs} interleaved runs per start-up case, ${batchRuns} per batch case`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
stop();
process.exitCode = rows.some((row) => row[4] === 'FAIL') ? 1 : 0;
