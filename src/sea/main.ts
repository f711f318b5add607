/**
 * The single executable's run (docs/sea-notes.md): `--version` from a constant, anything else from the start-up snapshot
 * (snapshot.ts). This build's folder (unpack.ts) is made, checked and hooked only when a file of it is first needed: a
 * call in a pipe never looks at the disk. Its JavaScript is compiled from the binary's bytes; what is read from disk and
 * run (jq's WebAssembly and loader, the keyring's addon) is checked against the binary's SHA-256 first. The keyring
 * agent is this binary too, run with the agent's path as its one argument.
 */
import { once } from '../api/once.js';
import { seaDir } from '../files/folders.js';
import { type Manifest, SeaError, unpacked, verify } from './unpack.js';

declare const __GYMCTL_VERSION__: string;
declare const __GYMCTL_SEA_BUILD__: string;
declare const __GYMCTL_SEA_MANIFEST__: Manifest;
/** For each file run from the binary, the data files it reads from disk and runs: checked when it loads. */
declare const __GYMCTL_SEA_READS__: Readonly<Record<string, readonly string[]>>;

const path = process.getBuiltinModule('node:path');
const sea = () => process.getBuiltinModule('node:sea');

/** Where the keyring agent's require('@napi-rs/keyring') finds the addon. */
const KEYRING_ADDON = 'node_modules/@napi-rs/keyring/index.node';

type Loader = (module: { _compile(source: string, filename: string): unknown }, filename: string) => unknown;
/** Node's CommonJS Module class, with the internals the single executable uses (not part of its typed API). */
export type ModuleClass = {
  new (id: string, parent: null): { filename: string; exports: object; loaded: boolean; paths: string[] };
  _cache: Record<string, unknown>;
  _extensions: Record<string, Loader>;
  _nodeModulePaths(dir: string): string[];
  createRequire(file: string): NodeJS.Require;
};
export const moduleClass = () => process.getBuiltinModule('node:module') as unknown as ModuleClass;

/** Whether `filename` is inside `dir`. */
const within = (dir: string, filename: string): boolean => !path.relative(dir, filename).startsWith('..') && !path.isAbsolute(path.relative(dir, filename));

/** The asset name of `filename` when it is a file of `dir`, else undefined. */
function assetIn(dir: string, filename: string): string | undefined {
  const name = path.relative(dir, filename).split(path.sep).join('/');
  return within(dir, filename) && name in __GYMCTL_SEA_MANIFEST__ ? name : undefined;
}

const verified = new Set<string>();
const verifyOnce = (dir: string, name: string): void => {
  if (!verified.has(name)) verify(dir, name, __GYMCTL_SEA_MANIFEST__);
  verified.add(name);
};

/** Files of `dir` load from the binary (JavaScript) or after a check of their bytes (native addons). */
function hookLoader(dir: string): void {
  const loaders = moduleClass()._extensions;
  const javascript = loaders['.js']!;
  loaders['.js'] = function (this: unknown, module, filename) {
    const name = assetIn(dir, filename);
    // A script in the folder that the binary did not put there (a package.json leading elsewhere, say) never runs.
    if (name === undefined && within(dir, filename)) throw new SeaError(`${filename} is not a file this gymctl unpacked: remove ${dir}, and run gymctl again`);
    if (name === undefined) return javascript.call(this, module, filename);
    for (const data of __GYMCTL_SEA_READS__[name] ?? []) verifyOnce(dir, data);
    return module._compile(sea().getAsset(name, 'utf8'), filename);
  };
  const native = loaders['.node']!;
  loaders['.node'] = function (this: unknown, module, filename) {
    const name = assetIn(dir, filename);
    if (name !== undefined) verifyOnce(dir, name);
    return native.call(this, module, filename);
  };
}

/**
 * `folder` with its links resolved, as far as it exists (the rest as given). Node's loader names every file it loads
 * by its real path, so the folder is known by its real path too: through a linked `~/.cache`, the files still come
 * from the binary, and the keyring agent is still recognised.
 */
function realFolder(folder: string): string {
  try {
    return process.getBuiltinModule('node:fs').realpathSync.native(folder);
  } catch {
    const parent = path.dirname(folder);
    return parent === folder ? folder : path.join(realFolder(parent), path.basename(folder));
  }
}

/** Makes and checks the build's folder `dir`, and hooks its files; a folder refused ends the run, in one line. */
function ensureFolder(dir: string): void {
  try {
    const asset = (name: string) => new Uint8Array(sea().getRawAsset(name) as ArrayBuffer);
    if (realFolder(unpacked({ root: seaDir(process.env), build: __GYMCTL_SEA_BUILD__, manifest: __GYMCTL_SEA_MANIFEST__, asset })) !== dir)
      throw new Error('the build folder moved');
    hookLoader(dir);
  } catch (error) {
    if (!(error instanceof SeaError)) throw error;
    process.stderr.write(`gymctl: ${error.message}\n`);
    process.exit(1);
  }
}

/** `start` runs gymctl from the snapshot with the folder's path, calling `ensureFolder` before anything is loaded from it. */
export function seaMain(start: (dir: string, argv: string[], ensureFolder: () => void) => void): void {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    // As bin/gymctl.cjs: a reader that stops early is not a failure; a full disk is, in one line.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') process.stderr.write(`gymctl: cannot write output (${error.code || error.message})\n`);
      process.exitCode = error.code === 'EPIPE' ? 0 : 1;
    });
    process.stdout.write(`${__GYMCTL_VERSION__}\n`);
    return;
  }
  const dir = path.join(realFolder(seaDir(process.env)), __GYMCTL_SEA_BUILD__);
  const agent = path.join(dir, 'keyring-agent.cjs');
  if (argv.length !== 1 || argv[0] !== agent) {
    start(
      dir,
      argv,
      once(() => ensureFolder(dir)),
    );
    return;
  }
  ensureFolder(dir);
  // A changed addon is said as such, in the agent's answer (the agent would say only that there is no keyring module).
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
