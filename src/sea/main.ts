/**
 * The single executable's main script (scripts/build-sea.mjs bundles it,
 * with the built dist/ files as assets). `--version` is answered from here;
 * every other run starts gymctl from the start-up snapshot (snapshot.ts),
 * with this build's folder (unpack.ts) made and checked before anything is
 * loaded from it, when the first side file is required: a call that needs
 * none (whoami, academy) never looks at the disk.
 *
 * Files of the folder are compiled from the binary's own bytes: Node's
 * CommonJS loader resolves them on disk (so side files, `__filename` and
 * relative paths work as in the npm build), and this file's hook hands it
 * the asset instead of the file. What is read from disk and run is checked
 * against the binary's SHA-256 first: a side file's data files (jq's
 * WebAssembly and its loader, for the side file that names them) when the
 * side file loads, and the keyring's native addon before it is opened.
 *
 * The keyring agent is this binary too: the keyring client runs
 * `process.execPath` with the agent's path, as it runs `node agent.cjs`.
 * Its native module is unpacked as `node_modules/@napi-rs/keyring/index.node`
 * in the folder, so the agent's own `require('@napi-rs/keyring')` finds it.
 */
import { seaDir } from '../files/folders.js';
import { type Manifest, SeaError, unpacked, verify } from './unpack.js';

declare const __GYMCTL_VERSION__: string;
declare const __GYMCTL_SEA_BUILD__: string;
declare const __GYMCTL_SEA_MANIFEST__: Manifest;
/** For each file run from the binary, the data files it reads from disk and runs: checked when it loads. */
declare const __GYMCTL_SEA_READS__: Readonly<Record<string, readonly string[]>>;

const path = process.getBuiltinModule('node:path');

/** How the snapshot starts gymctl in `dir` (snapshot.ts), calling `ensureFolder` before anything is loaded from it. */
export interface SnapshotStart {
  start(dir: string, argv: string[], ensureFolder: () => void): void;
}

type Loader = (module: { _compile(source: string, filename: string): unknown }, filename: string) => unknown;

/** Node's CommonJS loader, for its hooks: `_extensions` is not part of its typed API. */
const moduleClass = (): { _extensions: Record<string, Loader>; createRequire(file: string): NodeJS.Require } =>
  process.getBuiltinModule('node:module') as unknown as { _extensions: Record<string, Loader>; createRequire(file: string): NodeJS.Require };

/** Whether `filename` is inside `dir`. */
function within(dir: string, filename: string): boolean {
  const relative = path.relative(dir, filename);
  return !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** The asset name of `filename` when it is a file of `dir`, else undefined. */
function assetIn(dir: string, filename: string): string | undefined {
  if (!within(dir, filename)) return undefined;
  const name = path.relative(dir, filename).split(path.sep).join('/');
  return name in __GYMCTL_SEA_MANIFEST__ ? name : undefined;
}

/** Files checked in this process already. */
const verified = new Set<string>();
const verifyOnce = (dir: string, name: string): void => {
  if (verified.has(name)) return;
  verify(dir, name, __GYMCTL_SEA_MANIFEST__);
  verified.add(name);
};

/** Where the keyring agent's require('@napi-rs/keyring') finds the addon. */
const KEYRING_ADDON = 'node_modules/@napi-rs/keyring/index.node';

/** Files of `dir` load from the binary (JavaScript) or after a check of their bytes (native addons). */
export function hookLoader(dir: string): void {
  const sea = process.getBuiltinModule('node:sea');
  const loaders = moduleClass()._extensions;
  const javascript = loaders['.js']!;
  loaders['.js'] = function (this: unknown, module, filename) {
    const name = assetIn(dir, filename);
    // A script in the folder that the binary did not put there (a package.json leading elsewhere, say) never runs.
    if (name === undefined && within(dir, filename)) throw new SeaError(`${filename} is not a file this gymctl unpacked: remove ${dir}, and run gymctl again`);
    if (name === undefined) return javascript.call(this, module, filename);
    for (const data of __GYMCTL_SEA_READS__[name] ?? []) verifyOnce(dir, data);
    return module._compile(sea.getAsset(name, 'utf8'), filename);
  };
  const native = loaders['.node']!;
  loaders['.node'] = function (this: unknown, module, filename) {
    const name = assetIn(dir, filename);
    if (name !== undefined) verifyOnce(dir, name);
    return native.call(this, module, filename);
  };
}

const folderRoot = (env: NodeJS.ProcessEnv): string => seaDir(env);

/**
 * `folder` with its links resolved, as far as it exists (the rest as given). Node's loader names every file it
 * loads by its real path, so the folder is known by its real path too: through a linked `~/.cache`, the files still
 * come from the binary, and the keyring agent is still recognised.
 */
function realFolder(folder: string): string {
  try {
    return process.getBuiltinModule('node:fs').realpathSync.native(folder);
  } catch {
    const parent = path.dirname(folder);
    return parent === folder ? folder : path.join(realFolder(parent), path.basename(folder));
  }
}

/** Where this build's files are, by their real path (a path is resolved; nothing is made). */
export const folderPath = (env: NodeJS.ProcessEnv): string => path.join(realFolder(folderRoot(env)), __GYMCTL_SEA_BUILD__);

/** The folder of this build's files, made if need be, and checked. */
export function buildFolder(env: NodeJS.ProcessEnv): string {
  const sea = process.getBuiltinModule('node:sea');
  return unpacked({
    root: folderRoot(env),
    build: __GYMCTL_SEA_BUILD__,
    manifest: __GYMCTL_SEA_MANIFEST__,
    asset: (name) => new Uint8Array(sea.getRawAsset(name) as ArrayBuffer),
  });
}

function printVersion(): void {
  // As bin/gymctl.cjs: a reader that stops early is not a failure; a full disk is, in one line.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') process.stderr.write(`gymctl: cannot write output (${error.code || error.message})\n`);
    process.exitCode = error.code === 'EPIPE' ? 0 : 1;
  });
  process.stdout.write(`${__GYMCTL_VERSION__}\n`);
}

/** The build's folder, made and checked (and its files hooked) the first time it is asked for; a folder refused ends the run, in one line. */
function folderOnce(dir: string): () => void {
  let ready = false;
  return () => {
    if (ready) return;
    try {
      if (realFolder(buildFolder(process.env)) !== dir) throw new Error('the build folder moved');
      hookLoader(dir);
    } catch (error) {
      if (!(error instanceof SeaError)) throw error;
      process.stderr.write(`gymctl: ${error.message}\n`);
      process.exit(1);
    }
    ready = true;
  };
}

export function seaMain(snapshot: SnapshotStart): void {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    printVersion();
    return;
  }
  const dir = folderPath(process.env);
  const ensureFolder = folderOnce(dir);
  const agent = path.join(dir, 'keyring-agent.cjs');
  // A run that needs no file from disk (whoami, academy…) never looks at the folder.
  if (!(argv.length === 1 && argv[0] === agent)) {
    snapshot.start(dir, argv, ensureFolder);
    return;
  }
  ensureFolder();
  {
    // A changed addon is said as such (the agent would say only that there is no keyring module), in the agent's answer.
    if (KEYRING_ADDON in __GYMCTL_SEA_MANIFEST__) {
      try {
        verifyOnce(dir, KEYRING_ADDON);
      } catch (error) {
        if (!(error instanceof SeaError)) throw error;
        process.stdout.write(`${JSON.stringify({ ok: false, trouble: 'unavailable', message: error.message })}\n`);
        return;
      }
    }
    // As `node keyring-agent.cjs`: the agent resolves its module from its own path.
    process.argv[1] = agent;
    moduleClass().createRequire(agent)('./keyring-agent.cjs');
  }
}
