// Builds dist/sea/gymctl(.exe) for this machine's platform from dist/, in the steps of docs/sea-notes.md's "Build".
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { common, dependencies, defines, root, SIDE_FILES, version, withOwnHome } from '../build/common.mjs';
import { bundledPackages, compiledIntoJq, noticesText } from './notices.mjs';
import { runNpm } from './npm.mjs';

const NODE_PACKAGE = 'node@26';
const dist = path.join(root, 'dist');
const out = path.join(dist, 'sea');
const windows = process.platform === 'win32';
const exe = windows ? 'gymctl.exe' : 'gymctl';
const run = (command, args, options = {}) => spawnSync(command, args, { encoding: 'utf8', ...options });

const fail = (message) => {
  process.stderr.write(`build:sea: ${message}\n`);
  process.exit(1);
};

// A Node not installed (offline, say): what npm left in .sea-node/ is removed, not to be taken for a Node next time.
process.on('exit', (code) => {
  if (code === 0 || given || existsSync(node)) return;
  rmSync(prefix, { recursive: true, force: true });
  process.stderr.write('build:sea: offline? Name a Node 24 or later already on this machine: GYMCTL_SEA_NODE=/path/to/node npm run build:sea\n');
});

const given = process.env.GYMCTL_SEA_NODE && path.resolve(process.env.GYMCTL_SEA_NODE);
if (given && !existsSync(given)) fail(`GYMCTL_SEA_NODE names ${given}, which is not there: name a node binary, or unset it to use ${NODE_PACKAGE} from the npm registry`);
const prefix = path.join(root, '.sea-node');
const node = given || path.join(prefix, 'node_modules', 'node', 'bin', windows ? 'node.exe' : 'node');
if (!existsSync(node)) {
  try {
    runNpm(['install', '--no-save', '--no-package-lock', '--prefix', prefix, NODE_PACKAGE], { stdio: 'inherit' });
  } catch (error) {
    fail(`${error.message}: move the clone to a folder without one, or set GYMCTL_SEA_NODE`);
  }
}
if (!existsSync(node)) fail(`could not install ${NODE_PACKAGE} into ${prefix}`);
const nodeVersion = run(node, ['--version']).stdout?.trim() ?? '';
if (!/^v\d+\./.test(nodeVersion)) fail(`${node} does not run as Node`);
if (Number(nodeVersion.slice(1).split('.')[0]) < 24) fail(`${node} is Node ${nodeVersion}: the single executable needs Node 24 or later`);

// The assets: name in the binary and its folder → file here. Not boot.cjs: the snapshot starts gymctl.
const names = ['gymctl.cjs', 'help.txt', 'jq.wasm', 'jq-wasm.cjs', 'keyring-agent.cjs'];
for (const folder of ['side', 'licenses']) if (existsSync(path.join(dist, folder))) names.push(...readdirSync(path.join(dist, folder)).map((name) => `${folder}/${name}`));
const files = Object.fromEntries(names.sort().map((name) => [name, path.join(dist, name)]));
for (const [name, file] of Object.entries(files)) if (!existsSync(file)) fail(`dist/${name} is missing: run npm run build first`);
const newest = (file) => (statSync(file).isDirectory() ? Math.max(0, ...readdirSync(file).map((name) => newest(path.join(file, name)))) : statSync(file).mtimeMs);
const stale = ['src', 'build', 'package.json'].find((source) => newest(path.join(root, source)) > newest(path.join(dist, 'meta-shipped.json')));
if (stale) fail(`dist/ is older than ${stale}: run npm run build first`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The binary has no node_modules: a dependency's side file (undici) bundles the package, its notice joined to the npm build's.
const metafiles = [JSON.parse(readFileSync(path.join(dist, 'meta-shipped.json'), 'utf8'))];
for (const [name, source] of Object.entries(SIDE_FILES).filter(([, source]) => Object.hasOwn(dependencies, source))) {
  const outfile = path.join(out, `side-${name}.cjs`);
  const { metafile } = await build({ ...common, absWorkingDir: root, entryPoints: [source], outfile, minify: true, metafile: true });
  files[`side/${name}.cjs`] = outfile;
  metafiles.push(metafile);
}
files['licenses/THIRD-PARTY-NOTICES'] = path.join(out, 'THIRD-PARTY-NOTICES');
writeFileSync(files['licenses/THIRD-PARTY-NOTICES'], noticesText(bundledPackages(metafiles, root), compiledIntoJq(root)));
// The keyring's native addon for this platform (the package @napi-rs/keyring loads), where the agent's require('@napi-rs/keyring') finds it.
const scope = path.join(root, 'node_modules', '@napi-rs');
const addonPackage = `keyring-${process.platform}-${process.arch}`;
const libc = process.platform !== 'linux' ? '' : process.report?.getReport().header.glibcVersionRuntime ? '-gnu' : '-musl';
const addonFolder = existsSync(scope) && readdirSync(scope).find((name) => (name === addonPackage || name.startsWith(`${addonPackage}-`)) && name.endsWith(libc));
const addon = addonFolder && readdirSync(path.join(scope, addonFolder)).find((name) => name.endsWith('.node'));
if (addon) files['node_modules/@napi-rs/keyring/index.node'] = path.join(scope, addonFolder, addon);
else process.stderr.write(`no @napi-rs/keyring addon for ${process.platform}-${process.arch} in node_modules: the binary will have no keyring\n`);
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const manifest = Object.fromEntries(Object.entries(files).map(([name, file]) => [name, sha256(readFileSync(file))]));

const me = withOwnHome((env) => run(process.execPath, [path.join(root, 'bin', 'gymctl.cjs'), 'api', '/me', '--sandbox'], { env }), { PATH: process.env.PATH, NO_COLOR: '1' });
if (me.status !== 0 || !me.stdout.startsWith('{"data":')) fail(`could not get the sandbox's /me for the warm-up: ${me.stderr}`);

// Linux: Node stripped first, never the binary made of it (docs/sea-notes.md, "Strip"); macOS and Windows: signed, left alone.
let executable = node;
if (process.platform === 'linux' && process.env.GYMCTL_SEA_STRIP !== '0') {
  executable = path.join(out, 'node-stripped');
  const stripped = run('strip', ['-o', executable, node]);
  if (stripped.status !== 0 || run(executable, ['-e', '0']).status !== 0) {
    process.stderr.write(`strip failed (${(stripped.stderr || stripped.error?.message || '').trim()}): the binary keeps Node's symbols\n`);
    executable = node;
  }
}
const output = path.join(out, exe);
// Node 25.5 and later build the binary themselves; Node 24 writes the blob, which postject puts into a copy of Node.
const buildsItself = run(node, ['--help']).stdout.includes('--build-sea');

// No NODE_OPTIONS, no inspector on SIGUSR1 (docs/sea-notes.md, "Nothing from the environment"); one V8 helper thread, not four (docs/sea-notes.md, "Cost").
const runtime = { disableExperimentalSEAWarning: true, useSnapshot: true, useCodeCache: false, execArgv: ['--disable-sigusr1', '--v8-pool-size=1'], execArgvExtension: 'none' };
// Nothing of the build's moment in the snapshot: V8's random seed fixed, and no warning naming the pid (docs/sea-notes.md, "Reproducible").
const builderFlags = ['--random-seed=20260101', '--disable-warning=ExperimentalWarning'];

// The main script, dist/sea/main.cjs (kept for a stack trace's line numbers), its build id the hash of what the binary is made of.
const PLACEHOLDER = 'gymctl-sea-build-id-placeholder';
// dist/gymctl.cjs, as the CommonJS module function the snapshot calls (__GYMCTL_MAIN_FILE__), ahead of the main script.
const mainFile = `var __GYMCTL_MAIN_FILE__ = function (exports, require, module, __filename, __dirname) {\n${readFileSync(path.join(dist, 'gymctl.cjs'), 'utf8')}\n};`;
const define = { ...common.define, ...defines({ __GYMCTL_SEA_BUILD__: PLACEHOLDER, __GYMCTL_SEA_MANIFEST__: manifest, __GYMCTL_WARM_UP_ME__: me.stdout.trim() }) };
const snapshot = { entryPoints: [path.join(root, 'src/sea/snapshot.ts')], outfile: path.join(out, 'main.cjs'), target: 'node24', banner: { js: mainFile }, define };
const mainText = (await build({ ...common, ...snapshot, write: false })).outputFiles[0].text;
// Node's loader reads files from disk: an import() in the binary would reach it (src/sea/main.ts closes require's).
if (/[^\w$.]import\(/.test(mainText)) fail("the single executable's main script has an import(), which would load a module from disk: load it with require");
const placed = JSON.stringify(PLACEHOLDER);
if (!mainText.includes(placed)) fail('the build id has no place in the main script');
const route = buildsItself ? '--build-sea' : '--experimental-sea-config, postject';
const parts = { node: sha256(readFileSync(executable)), route, runtime: JSON.stringify(runtime), builder: JSON.stringify(builderFlags), main: sha256(mainText) };
for (const name of Object.keys(manifest).sort()) parts[`asset ${name}`] = manifest[name];
const described = Object.entries(parts).map(([part, value]) => `${part} ${value}\n`);
const buildId = `${version}-${sha256(described.join('')).slice(0, 16)}`;
writeFileSync(path.join(out, 'main.cjs'), mainText.replaceAll(placed, JSON.stringify(buildId)));
// Node's main script, given as /dev/stdin (the snapshot's layout follows its path): a loader that compiles main.cjs under one name.
const SCRIPT_NAME = 'dist/sea/main.cjs';
const loader = `process.getBuiltinModule('node:vm').compileFunction(require('node:fs').readFileSync(process.env.GYMCTL_SEA_MAIN, 'utf8'), ['require', '__filename', '__dirname'], { filename: ${JSON.stringify(SCRIPT_NAME)} })(require, ${JSON.stringify(SCRIPT_NAME)}, '.');\n`;
const start = path.join(out, 'start.cjs');
writeFileSync(start, loader);

const [blob, configFile] = [path.join(out, 'sea-prep.blob'), path.join(out, 'sea-config.json')];
// Run in dist/sea, the config named from there: the snapshot keeps Node's options, the config's path among them.
const config = { main: windows ? path.basename(start) : '/dev/stdin', executable, output, ...runtime, assets: files };
writeFileSync(configFile, JSON.stringify(buildsItself ? config : { ...config, output: blob, executable: undefined }));
const flag = buildsItself ? '--build-sea' : '--experimental-sea-config';
// stdin a file (a pipe is a socket, which /dev/stdin cannot open).
const loaderFd = openSync(start, 'r');
const builder = (env) => ({ stdio: [loaderFd, 'inherit', 'inherit'], cwd: out, env: { ...env, GYMCTL_SEA_MAIN: path.join(out, 'main.cjs') } });
const built = withOwnHome((env) => run(node, [...builderFlags, flag, path.basename(configFile)], builder(env)));
closeSync(loaderFd);
if (built.status !== 0) fail(`node ${flag} failed`);
if (!buildsItself) {
  copyFileSync(executable, output);
  chmodSync(output, 0o755);
  const { inject } = await import('postject');
  const macho = process.platform === 'darwin' ? { machoSegmentName: 'NODE_SEA' } : {};
  await inject(output, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2', ...macho });
}
for (const file of [start, configFile, blob, path.join(out, 'node-stripped'), ...Object.values(files).filter((file) => path.dirname(file) === out)]) rmSync(file, { force: true });
// A Node that does not know execArgvExtension would let NODE_OPTIONS in: a module it names to preload must not run.
const optionsIgnored = withOwnHome((env) => run(output, ['--version'], { env: { ...env, NODE_OPTIONS: `--require=${path.join(out, 'not-there.cjs')}` } }));
if (optionsIgnored.status !== 0 || optionsIgnored.stdout !== `${version}\n`) {
  rmSync(output, { force: true });
  fail(`Node ${nodeVersion} made a binary that reads NODE_OPTIONS (no execArgvExtension): build with a later Node 24, or Node 26`);
}
const size = statSync(output).size;
const digest = sha256(readFileSync(output));
writeFileSync(path.join(out, `${exe}.sha256`), `${digest}  ${exe}\n`);
writeFileSync(path.join(out, 'build.json'), `${JSON.stringify({ version, build: buildId, node, nodeVersion, stripped: executable !== node, size, sha256: digest }, null, 2)}\n`);
process.stdout.write(
  `dist/sea/${exe}: gymctl ${version} on Node ${nodeVersion}, with a start-up snapshot, ${(size / 2 ** 20).toFixed(1)} MiB\nsha256 ${digest} (dist/sea/${exe}.sha256)\n`,
);
