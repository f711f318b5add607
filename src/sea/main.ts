/**
 * The single executable's run (docs/sea-notes.md, "Run"): `--version` from a constant, the keyring agent when given its
 * path alone, anything else from the snapshot (snapshot.ts), whose folder is made, checked and hooked at first use.
 */
import { seaDir } from '../files/folders.js';
import { HomeFolderError } from '../files/system.js';
import { guardStreams } from '../startup/boot.js';
import { type Manifest, SeaError, unpacked, verify } from './unpack.js';

declare const __GYMCTL_VERSION__: string;
declare const __GYMCTL_SEA_BUILD__: string;
declare const __GYMCTL_SEA_MANIFEST__: Manifest;

const path = process.getBuiltinModule('node:path');
const sea = () => process.getBuiltinModule('node:sea');

/** Node's CommonJS Module class, with the internals used here (not part of its typed API). */
export const moduleClass = () =>
  process.getBuiltinModule('node:module') as unknown as {
    new (id: string, parent: null): { filename: string; exports: object; loaded: boolean; paths: string[] };
    _cache: Record<string, unknown>;
    _extensions: Record<string, (module: { _compile(source: string, filename: string): unknown }, filename: string) => unknown>;
    _nodeModulePaths(dir: string): string[];
    createRequire(file: string): NodeJS.Require;
  };

const verified = new Set<string>();
const verifyOnce = (dir: string, name: string): void => {
  if (!verified.has(name)) verify(dir, name, __GYMCTL_SEA_MANIFEST__);
  verified.add(name);
};

/** `folder` with its links resolved as far as it exists: Node's loader names each file by its real path. */
function realFolder(folder: string): string {
  try {
    return process.getBuiltinModule('node:fs').realpathSync.native(folder);
  } catch {
    const parent = path.dirname(folder);
    return parent === folder ? folder : path.join(realFolder(parent), path.basename(folder));
  }
}

/** Makes and checks the folder `dir` (a refusal ends the run, in one line), then hooks its files' loading: JavaScript from the binary, an addon once checked, nothing else. */
function ensureFolder(dir: string): void {
  try {
    const asset = (name: string) => new Uint8Array(sea().getRawAsset(name) as ArrayBuffer);
    if (realFolder(unpacked({ root: seaDir(process.env), build: __GYMCTL_SEA_BUILD__, manifest: __GYMCTL_SEA_MANIFEST__, asset })) !== dir)
      throw new Error('the build folder moved');
  } catch (error) {
    if (!(error instanceof SeaError)) throw error;
    process.stderr.write(`gymctl: ${error.message}\n`);
    process.exit(1);
  }
  /** The asset name of `filename` when it is in `dir`, else undefined. */
  const assetName = (filename: string): string | undefined => {
    const relative = path.relative(dir, filename);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    const name = relative.split(path.sep).join('/');
    if (name in __GYMCTL_SEA_MANIFEST__) return name;
    throw new SeaError(`${filename} is not a file this gymctl unpacked: remove ${dir}, and run gymctl again`);
  };
  const loaders = moduleClass()._extensions;
  const [javascript, native] = [loaders['.js']!, loaders['.node']!];
  loaders['.js'] = function (this: unknown, module, filename) {
    const name = assetName(filename);
    if (name === undefined) return javascript.call(this, module, filename);
    return module._compile(sea().getAsset(name, 'utf8'), filename);
  };
  loaders['.node'] = function (this: unknown, module, filename) {
    const name = assetName(filename);
    if (name !== undefined) verifyOnce(dir, name);
    return native.call(this, module, filename);
  };
}

/** `start` runs gymctl from the snapshot with the folder's path, calling `ensure` before anything is loaded from it. */
export function seaMain(start: (dir: string, argv: string[], ensure: () => void) => void): void {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    guardStreams();
    process.stdout.write(`${__GYMCTL_VERSION__}\n`);
    return;
  }
  let root: string;
  try {
    root = seaDir(process.env);
  } catch (error) {
    // No home folder to unpack into: one line, as every refusal of the folder.
    if (!(error instanceof HomeFolderError)) throw error;
    guardStreams();
    process.stderr.write(`gymctl: ${error.message}\n`);
    process.exit(1);
  }
  const dir = path.join(realFolder(root), __GYMCTL_SEA_BUILD__);
  const agent = path.join(dir, 'keyring-agent.cjs');
  if (argv.length !== 1 || argv[0] !== agent) {
    start(dir, argv, () => ensureFolder(dir));
    return;
  }
  ensureFolder(dir);
  // A changed addon is said as such, in the agent's answer (the agent would say only that there is no keyring module).
  const addon = 'node_modules/@napi-rs/keyring/index.node';
  try {
    if (addon in __GYMCTL_SEA_MANIFEST__) verifyOnce(dir, addon);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ ok: false, trouble: 'unavailable', message: (error as SeaError).message })}\n`);
    return;
  }
  // As `node keyring-agent.cjs`: the agent resolves its module from its own path.
  process.argv[1] = agent;
  moduleClass().createRequire(agent)('./keyring-agent.cjs');
}
