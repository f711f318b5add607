// Where a bench case's time goes: one more run of it under V8's sampling
// profiler (--cpu-prof), its samples summed by where their code came from.
// gymctl's own code by source file and each bundled package as a whole, read
// through the build's source maps (dist/maps/, written beside every build);
// Node's own modules by module; time in native functions (fs calls,
// compiling) goes to the JavaScript that called them. The bench prints it for
// every case that misses its target.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');

const VM_FRAMES = {
  '(garbage collector)': 'garbage collection',
  '(idle)': 'idle: waiting for the network or the reader',
  '(program)': 'V8 and Node outside JavaScript (start-up, compiling, I/O)',
};

/** A file's source map, from dist/maps/, or undefined (a file of no build, or a build before maps). */
function mapsOf() {
  const maps = new Map();
  return (file) => {
    if (!maps.has(file)) {
      const map = path.join(dist, 'maps', `${path.relative(dist, file)}.map`);
      maps.set(file, file.startsWith(dist) && existsSync(map) ? new SourceMap(JSON.parse(readFileSync(map, 'utf8'))) : undefined);
    }
    return maps.get(file);
  };
}

/** Node's own modules, by what they do. */
const NODE_GROUPS = [
  [/^(modules|vm|bootstrap|main|process|source_map|url|util|options|fs|validators|errors)$/, 'Node: starting, loading modules, process, files'],
  [/^(_?https?|_http_.*|net|tls|dns|stream_base_commons|timers|async_hooks|perf|dgram)$/, 'Node: http, sockets, timers'],
  [/^(streams?|_stream_.*|tty|readline|events|buffer|string_decoder|encoding|webstreams)$/, 'Node: streams, events, buffers'],
  [/^(worker_threads|worker|crypto|wasm_web_api|abort_controller|event_target)$/, 'Node: workers, crypto, abort signals'],
];
const nodeGroup = (module) => NODE_GROUPS.find(([pattern]) => pattern.test(module))?.[1] ?? `Node: ${module}`;

/** `undici` of `../node_modules/undici/lib/x.js`, `@inquirer/core` of a scoped path, `src/output/csv.ts` of gymctl's own. */
export function sourceGroup(source) {
  const parts = source.replaceAll('\\', '/').split('node_modules/');
  if (parts.length > 1) {
    const [first, second] = parts.at(-1).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  // gymctl's own code by folder: src/output, src/api/transport…
  const own = /(?:^|\/)(src\/.+)$/.exec(parts[0]);
  return own ? `${path.posix.dirname(own[1])}/${own[1].split('/').length > 2 ? '' : '*.ts'}`.replace(/\/$/, '') : parts[0].replace(/^(\.\.\/)+/, '');
}

/** The group of one profile frame with a URL. */
function frameGroup(callFrame, mapOf) {
  const { url, lineNumber, columnNumber } = callFrame;
  if (url.startsWith('node:'))
    return nodeGroup(
      url
        .slice('node:'.length)
        .replace(/^internal\//, '')
        .split('/')[0],
    );
  const file = url.startsWith('file:') ? fileURLToPath(url) : url;
  const map = mapOf(file);
  if (!map) return path.relative(root, file);
  const entry = map.findEntry(lineNumber, columnNumber);
  // What maps to no source is esbuild's own wrapper of each bundled module: the time of loading it.
  return entry?.originalSource ? sourceGroup(entry.originalSource) : `${path.relative(root, file)}: loading bundled modules`;
}

/** Milliseconds by group, largest first, from a .cpuprofile. */
export function timeByGroup(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const mapOf = mapsOf();
  /** The group of the nearest frame with code of its own: native functions count for the JavaScript that called them. */
  const codeGroup = (id) => {
    const node = nodes.get(id);
    if (node.group === undefined) {
      const parent = parents.get(id);
      node.group = node.callFrame.url ? frameGroup(node.callFrame, mapOf) : parent === undefined ? 'other' : codeGroup(parent);
    }
    return node.group;
  };
  const groups = new Map();
  profile.samples.forEach((id, i) => {
    const { callFrame } = nodes.get(id);
    const group = VM_FRAMES[callFrame.functionName] ?? (callFrame.url ? codeGroup(id) : `${codeGroup(id)} (native calls)`);
    groups.set(group, (groups.get(group) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...groups].sort((a, b) => b[1] - a[1]);
}

/**
 * Runs `node args` once under the profiler (with the same environment and stdin the bench gives it) and returns
 * the table rows of where its time went: the largest groups, the rest summed.
 */
export function whereTimeGoes(node, args, { env, input, top = 12 }) {
  const dir = mkdtempSync(path.join(path.dirname(env.GYMCTL_CONFIG_DIR), 'profile-'));
  try {
    // A sample each 100 µs: a start-up case lasts some 50 ms.
    const run = spawnSync(node, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '100', ...args], {
      env,
      input,
      stdio: ['pipe', 'ignore', 'pipe'],
      maxBuffer: 1 << 30,
    });
    if (run.status !== 0) throw new Error(`the profiled run failed (${run.status}): ${run.stderr}`);
    const files = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
    if (files.length === 0) throw new Error('the profiled run wrote no profile');
    // One profile per thread that ran JavaScript (jq's worker writes its own): all of them, summed.
    const totals = new Map();
    for (const name of files) for (const [group, ms] of timeByGroup(JSON.parse(readFileSync(path.join(dir, name), 'utf8')))) totals.set(group, (totals.get(group) ?? 0) + ms);
    const sorted = [...totals].sort((a, b) => b[1] - a[1]);
    const all = sorted.reduce((sum, [, ms]) => sum + ms, 0);
    const shown = sorted.slice(0, top);
    const rest = sorted.slice(top).reduce((sum, [, ms]) => sum + ms, 0);
    if (rest > 0) shown.push([`${sorted.length - top} other groups`, rest]);
    return shown.map(([group, ms]) => [group, ms.toFixed(1), `${((ms / all) * 100).toFixed(0)} %`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
