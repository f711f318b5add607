// Builds dist/sea/gymctl (gymctl.exe on Windows): gymctl as one file that
// runs without Node, for the machine it runs on. `npm run build:sea`, after
// `npm run build`. It embeds a pinned Node (the npm registry's `node`
// package, installed once into .sea-node/), or the Node binary named by
// GYMCTL_SEA_NODE (Node 24 or later); the built dist/ files ride along as assets, and the main
// file is loaded (and warmed: src/sea/warm.ts) inside a start-up
// snapshot, so that no JavaScript of gymctl's is ever read from disk.
// GYMCTL_SEA_STRIP=0 keeps the Node binary's symbols.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** The Node the binary is made of: a major line, installed from the npm registry when no GYMCTL_SEA_NODE is given. */
const NODE_PACKAGE = 'node@26';
const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'sea');
const exe = process.platform === 'win32' ? 'gymctl.exe' : 'gymctl';
const run = (command, args, options = {}) => spawnSync(command, args, { encoding: 'utf8', ...options });

/** A reason the build cannot go on, said in one line (anything else keeps its stack). */
class BuildError extends Error {}
process.setUncaughtExceptionCaptureCallback((error) => {
  process.stderr.write(error instanceof BuildError ? `build:sea: ${error.message}\n` : `${error?.stack ?? error}\n`);
  process.exit(1);
});

function pinnedNode() {
  if (process.env.GYMCTL_SEA_NODE) {
    const given = path.resolve(process.env.GYMCTL_SEA_NODE);
    if (!existsSync(given))
      throw new BuildError(`GYMCTL_SEA_NODE names ${given}, which is not there: name a node binary, or unset it to use ${NODE_PACKAGE} from the npm registry`);
    return given;
  }
  const prefix = path.join(root, '.sea-node');
  const bin = path.join(prefix, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (!existsSync(bin)) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const installed = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--prefix', prefix, NODE_PACKAGE], { stdio: 'inherit', shell: process.platform === 'win32' });
    if (installed.status !== 0 || !existsSync(bin)) throw new BuildError(`could not install ${NODE_PACKAGE} into ${prefix}`);
  }
  return bin;
}

/** The keyring's native addon for this platform (the package @napi-rs/keyring loads), or undefined when none is installed. */
function keyringAddon() {
  const scope = path.join(root, 'node_modules', '@napi-rs');
  const prefix = `keyring-${process.platform}-${process.arch}`;
  const glibc = process.platform === 'linux' && Boolean(process.report?.getReport().header.glibcVersionRuntime);
  const candidates = existsSync(scope) ? readdirSync(scope).filter((name) => name === prefix || name.startsWith(`${prefix}-`)) : [];
  const fits = (name) => process.platform !== 'linux' || name.endsWith(glibc ? '-gnu' : '-musl');
  const folder = candidates.find(fits);
  if (!folder) return undefined;
  const file = readdirSync(path.join(scope, folder)).find((name) => name.endsWith('.node'));
  return file && path.join(scope, folder, file);
}

/** The assets: name in the binary (and in the unpacked folder) → file on this machine. */
function assets() {
  const names = ['boot.cjs', 'gymctl.cjs', 'help.txt', 'jq.wasm', 'jq-wasm.cjs', 'keyring-agent.cjs'];
  for (const name of readdirSync(path.join(dist, 'side')).sort()) names.push(`side/${name}`);
  for (const name of readdirSync(path.join(dist, 'licenses')).sort()) names.push(`licenses/${name}`);
  const files = Object.fromEntries(names.map((name) => [name, path.join(dist, name)]));
  for (const [name, file] of Object.entries(files)) if (!existsSync(file)) throw new BuildError(`dist/${name} is missing: run npm run build first`);
  // Where the agent's require('@napi-rs/keyring') finds it: a folder's index.node.
  const addon = keyringAddon();
  if (addon) files['node_modules/@napi-rs/keyring/index.node'] = addon;
  else process.stderr.write(`no @napi-rs/keyring addon for ${process.platform}-${process.arch} in node_modules: the binary will have no keyring\n`);
  return files;
}

/** Files run from their copy on disk (a worker's require, WebAssembly): checked when a file naming them loads. */
const RUN_FROM_DISK = ['jq.wasm', 'jq-wasm.cjs'];

const node = pinnedNode();
const asked = run(node, ['--version']);
if (asked.status !== 0 || !/^v\d+\./.test(asked.stdout ?? '')) throw new BuildError(`${node} does not run as Node (${asked.error?.message ?? `exit ${asked.status}`})`);
const nodeVersion = asked.stdout.trim();
// Node 25.5 and later build the binary themselves; Node 24 makes a blob that postject puts into a copy of it.
const buildSea = run(node, ['--help']).stdout.includes('--build-sea');
if (Number(nodeVersion.slice(1).split('.')[0]) < 24) throw new BuildError(`${node} is Node ${nodeVersion}: the single executable needs Node 24 or later`);

const files = assets();
const manifest = Object.fromEntries(Object.entries(files).map(([name, file]) => [name, createHash('sha256').update(readFileSync(file)).digest('hex')]));
const reads = {};
for (const name of Object.keys(files).filter((name) => name.endsWith('.cjs'))) {
  const source = readFileSync(files[name], 'utf8');
  const named = RUN_FROM_DISK.filter((data) => source.includes(`../${data}`) || source.includes(`./${data}`));
  if (named.length > 0) reads[name] = named;
}
if (!Object.values(reads).flat().includes('jq.wasm')) throw new BuildError('no side file names ../jq.wasm: the check of jq before it runs would never happen');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// One folder per build in the user's cache: named after the files, the Node that runs them, and the kind of build.
const hash = createHash('sha256').update(`${nodeVersion}\n`);
for (const name of Object.keys(manifest).sort()) hash.update(`${name} ${manifest[name]}\n`);
const buildId = `${version}-${hash.digest('hex').slice(0, 16)}`;

// The warm-up run's answer (src/sea/warm.ts): what the sandbox answers to GET /me.
const me = run(process.execPath, [path.join(root, 'bin', 'gymctl.cjs'), 'api', '/me', '--sandbox'], { env: { PATH: process.env.PATH, NO_COLOR: '1' } });
if (me.status !== 0 || !me.stdout.startsWith('{"data":')) throw new BuildError(`could not get the sandbox's /me for the warm-up: ${me.stderr}`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const bundled = await build({
  stdin: {
    contents: "import './src/sea/snapshot.ts';",
    resolveDir: root,
    sourcefile: 'sea-entry.ts',
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  write: false,
  logLevel: 'warning',
  define: {
    __GYMCTL_VERSION__: JSON.stringify(version),
    __GYMCTL_SEA_BUILD__: JSON.stringify(buildId),
    __GYMCTL_SEA_MANIFEST__: JSON.stringify(manifest),
    __GYMCTL_SEA_READS__: JSON.stringify(reads),
    __GYMCTL_WARM_UP_ME__: JSON.stringify(me.stdout.trim()),
  },
});
let main = bundled.outputFiles[0].text;
{
  const calls = main.split('__GYMCTL_MAIN_FILE__(').length - 1;
  if (calls !== 1) throw new BuildError(`the snapshot entry should call __GYMCTL_MAIN_FILE__ once, not ${calls} times`);
  const mainFile = readFileSync(path.join(dist, 'gymctl.cjs'), 'utf8');
  main = main.replace('__GYMCTL_MAIN_FILE__(', () => `(function (exports, require, module, __filename, __dirname) {\n${mainFile}\n})(`);
}
writeFileSync(path.join(out, 'main.cjs'), main);

// Linux: the Node binary without its symbols (a third of its size). Stripping the built binary instead breaks it
// (its .note.node.sea section lies outside any segment); macOS and Windows binaries are signed: left alone.
let executable = node;
if (process.platform === 'linux' && process.env.GYMCTL_SEA_STRIP !== '0') {
  executable = path.join(out, 'node-stripped');
  const stripped = run('strip', ['-o', executable, node]);
  if (stripped.status !== 0 || run(executable, ['-e', '0']).status !== 0) {
    process.stderr.write(`strip failed (${(stripped.stderr || stripped.error?.message || '').trim()}): the binary keeps Node's symbols\n`);
    rmSync(executable, { force: true });
    executable = node;
  }
}
const config = {
  main: path.join(out, 'main.cjs'),
  executable,
  output: path.join(out, exe),
  disableExperimentalSEAWarning: true,
  useSnapshot: true,
  useCodeCache: false,
  assets: files,
};
if (buildSea) {
  writeFileSync(path.join(out, 'sea-config.json'), `${JSON.stringify(config, null, 2)}\n`);
  const made = run(node, ['--build-sea', path.join(out, 'sea-config.json')], { stdio: 'inherit' });
  if (made.status !== 0) throw new BuildError('node --build-sea failed');
} else {
  // Node before 25.5: the documented route. The blob from --experimental-sea-config, put into a copy of Node by postject.
  const blob = path.join(out, 'sea-prep.blob');
  writeFileSync(path.join(out, 'sea-config.json'), `${JSON.stringify({ ...config, output: blob, executable: undefined }, null, 2)}\n`);
  const made = run(node, ['--experimental-sea-config', path.join(out, 'sea-config.json')], { stdio: 'inherit' });
  if (made.status !== 0) throw new BuildError('node --experimental-sea-config failed');
  copyFileSync(executable, config.output);
  chmodSync(config.output, 0o755);
  const { inject } = await import('postject');
  await inject(config.output, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    ...(process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
}
for (const name of ['main.cjs', 'sea-config.json', 'sea-prep.blob', 'node-stripped', 'build.json']) rmSync(path.join(out, name), { force: true });
const size = statSync(path.join(out, exe)).size;
// What the binary is made of, for npm run bench (which times it beside the floor run by the same Node).
writeFileSync(path.join(out, 'build.json'), `${JSON.stringify({ version, build: buildId, node, nodeVersion, stripped: executable !== node, size }, null, 2)}\n`);
process.stdout.write(`dist/sea/${exe}: gymctl ${version} on Node ${nodeVersion}, with a start-up snapshot, ${(size / 2 ** 20).toFixed(1)} MiB\n`);
