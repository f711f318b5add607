// Builds dist/sea/gymctl (gymctl.exe on Windows): gymctl as one file that
// runs without Node, for the machine it runs on. `npm run build:sea`, after
// `npm run build`. It embeds a pinned Node (the npm registry's `node`
// package, installed once into .sea-node/), or the Node binary named by
// GYMCTL_SEA_NODE; the built dist/ files ride along as assets.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The Node the binary is made of: a major line, installed from the npm registry when no GYMCTL_SEA_NODE is given. */
const NODE_PACKAGE = 'node@26';
const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'sea');
const exe = process.platform === 'win32' ? 'gymctl.exe' : 'gymctl';

function pinnedNode() {
  if (process.env.GYMCTL_SEA_NODE) return path.resolve(process.env.GYMCTL_SEA_NODE);
  const prefix = path.join(root, '.sea-node');
  const bin = path.join(prefix, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (!existsSync(bin)) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const installed = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--prefix', prefix, NODE_PACKAGE], { stdio: 'inherit', shell: process.platform === 'win32' });
    if (installed.status !== 0 || !existsSync(bin)) throw new Error(`could not install ${NODE_PACKAGE} into ${prefix}`);
  }
  return bin;
}

/** The files the command reads at run time, relative to dist/. */
function runtimeFiles() {
  const files = ['boot.cjs', 'gymctl.cjs', 'help.txt', 'jq.wasm', 'jq-wasm.cjs', 'keyring-agent.cjs'];
  for (const name of readdirSync(path.join(dist, 'side')).sort()) files.push(`side/${name}`);
  for (const name of files) if (!existsSync(path.join(dist, name))) throw new Error(`dist/${name} is missing: run npm run build first`);
  return files;
}

const node = pinnedNode();
const help = spawnSync(node, ['--help'], { encoding: 'utf8' });
if (!help.stdout.includes('--build-sea'))
  throw new Error(`${node} (${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}) has no --build-sea: use Node 25.5 or later`);
const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

const files = runtimeFiles();
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// One folder per build in the user's cache: named after the files, and the Node that runs them.
const hash = createHash('sha256').update(nodeVersion);
for (const name of files) hash.update(name).update(readFileSync(path.join(dist, name)));
const build = `${version}-${hash.digest('hex').slice(0, 16)}`;

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const main = readFileSync(path.join(root, 'scripts', 'sea-main.cjs'), 'utf8')
  .replace('__GYMCTL_VERSION__', JSON.stringify(version))
  .replace('__GYMCTL_SEA_BUILD__', JSON.stringify(build))
  .replace('__GYMCTL_SEA_FILES__', JSON.stringify(files));
// GYMCTL_SEA_SNAPSHOT=1: a start-up snapshot holding the loaded main file (a prototype: see docs/sea-notes.md).
const snapshot = Boolean(process.env.GYMCTL_SEA_SNAPSHOT);
writeFileSync(
  path.join(out, 'main.cjs'),
  snapshot
    ? readFileSync(path.join(root, 'scripts', 'sea-snapshot.cjs'), 'utf8')
        .replace('__GYMCTL_MAIN_SOURCE__;', () => readFileSync(path.join(dist, 'gymctl.cjs'), 'utf8'))
        .replace('__GYMCTL_SEA_MAIN__;', () => main.replace("'use strict';", ''))
    : main,
);
const config = {
  main: path.join(out, 'main.cjs'),
  executable: node,
  output: path.join(out, exe),
  disableExperimentalSEAWarning: true,
  useSnapshot: snapshot,
  useCodeCache: false,
  assets: Object.fromEntries(files.map((name) => [name, path.join(dist, name)])),
};
writeFileSync(path.join(out, 'sea-config.json'), `${JSON.stringify(config, null, 2)}\n`);
const made = spawnSync(node, ['--build-sea', path.join(out, 'sea-config.json')], { stdio: 'inherit' });
if (made.status !== 0) throw new Error('node --build-sea failed');
// Strip where the platform allows: Linux only here (macOS and Windows binaries must be signed again after any change).
if (process.env.GYMCTL_SEA_STRIP && process.platform === 'linux') {
  const stripped = spawnSync('strip', [path.join(out, exe)], { stdio: 'inherit' });
  if (stripped.status !== 0) process.stderr.write('strip failed: the binary is left as built\n');
}
rmSync(path.join(out, 'main.cjs'));
rmSync(path.join(out, 'sea-config.json'));
const size = statSync(path.join(out, exe)).size;
process.stdout.write(`dist/sea/${exe}: gymctl ${version} on Node ${nodeVersion}, ${(size / 2 ** 20).toFixed(1)} MiB\n`);
