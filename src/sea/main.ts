/**
 * The single executable's run (docs/sea-notes.md, "Run"): `--version` from a constant, the keyring agent when given its
 * path alone, anything else from the snapshot (snapshot.ts). gymctl's JavaScript comes from the binary's bytes alone;
 * Node's loader is closed to disk but for the keyring addon, the exact file the binary unpacked and checked.
 */
import { seaDir } from '../files/folders.js';
import { HomeFolderError } from '../files/system.js';
import { guardStreams } from '../startup/boot.js';
import { FolderUnavailable, type Manifest, SeaError, unpacked, verify } from './unpack.js';

declare const __GYMCTL_VERSION__: string;
declare const __GYMCTL_SEA_BUILD__: string;
declare const __GYMCTL_SEA_MANIFEST__: Manifest;

const path = process.getBuiltinModule('node:path');
const sea = () => process.getBuiltinModule('node:sea');

/** The keyring's native addon, as the binary holds it and unpacks it (scripts/build-sea.mjs). */
const ADDON = 'node_modules/@napi-rs/keyring/index.node';

/** Node's CommonJS Module class, with the internals used here (not part of its typed API). */
const moduleClass = () =>
  process.getBuiltinModule('node:module') as unknown as {
    _extensions: Record<string, (module: unknown, filename: string) => unknown>;
    _resolveFilename(request: string, ...rest: unknown[]): string;
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

/** The folder as this run found it: on disk and checked, or not to be had (why), once asked for. */
let folder: { onDisk: true } | { onDisk: false; unavailable: FolderUnavailable } | undefined;

/** Makes or checks the folder `dir`, once a run: a refusal ends the run in one line; a folder that cannot be made (a read-only or full cache) does not. */
function ensureFolder(dir: string): NonNullable<typeof folder> {
  if (folder) return folder;
  try {
    const asset = (name: string) => new Uint8Array(sea().getRawAsset(name) as ArrayBuffer);
    if (realFolder(unpacked({ root: seaDir(process.env), build: __GYMCTL_SEA_BUILD__, manifest: __GYMCTL_SEA_MANIFEST__, asset })) !== dir)
      throw new Error('the build folder moved');
    folder = { onDisk: true };
  } catch (error) {
    if (error instanceof FolderUnavailable) folder = { onDisk: false, unavailable: error };
    else if (error instanceof SeaError) {
      process.stderr.write(`gymctl: ${error.message}\n`);
      process.exit(1);
    } else throw error;
  }
  return folder;
}

/** The asset name of `file` when it is one of the binary's files in `dir`; else undefined. */
function assetName(dir: string, file: string): string | undefined {
  const relative = path.relative(dir, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const name = relative.split(path.sep).join('/');
  return name in __GYMCTL_SEA_MANIFEST__ ? name : undefined;
}

/**
 * Closes Node's loader to files on disk for the whole run (Node would run any file a `package.json` or a path led it
 * to): the one addon, `<dir>/node_modules/@napi-rs/keyring/index.node`, is resolved to that exact file and checked
 * against the binary's SHA-256 before it is loaded.
 */
function closeDiskLoader(dir: string): void {
  const Module = moduleClass();
  const addon = path.join(dir, ...ADDON.split('/'));
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request !== '@napi-rs/keyring') return resolve.call(this, request, ...rest);
    if (ADDON in __GYMCTL_SEA_MANIFEST__ && folder?.onDisk) return addon;
    throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
  };
  const loaders = Module._extensions;
  const native = loaders['.node']!;
  for (const extension of Object.keys(loaders)) {
    loaders[extension] = (module, filename) => {
      if (extension !== '.node' || filename !== addon) throw new SeaError(`${filename}: the single executable runs nothing from disk but its own keyring module`);
      verifyOnce(dir, ADDON);
      return native.call(loaders, module, filename);
    };
  }
}

/**
 * gymctl's CommonJS files in `dir`, run from the binary's bytes as Node would run them from disk (`__filename`,
 * relative and built-in `require`), compiled with `vm`, so no compile cache (NODE_COMPILE_CACHE) is ever read. `known`:
 * modules already loaded, by file (the main file, from the snapshot). Returns `require` as seen from `from`.
 */
export function binaryModules(dir: string, known: Record<string, object>): (from: string) => (id: string) => unknown {
  const modules = new Map<string, { exports: unknown }>(Object.entries(known).map(([file, exports]) => [file, { exports }]));
  const builtin = (id: string) => {
    const found = process.getBuiltinModule(id);
    if (found === undefined) throw Object.assign(new Error(`Cannot find module '${id}': the single executable holds no package but its own`), { code: 'MODULE_NOT_FOUND' });
    return found;
  };
  const load = (file: string): unknown => {
    const loaded = modules.get(file);
    if (loaded) return loaded.exports;
    const name = assetName(dir, file);
    if (name === undefined || !/\.c?js$/.test(name)) throw new SeaError(`${file} is not a file of this gymctl`);
    const module = { exports: {} as unknown, filename: file, id: file, loaded: false };
    modules.set(file, module);
    try {
      const wrapper = `(function (exports, require, module, __filename, __dirname) { ${sea().getAsset(name, 'utf8')}\n})`;
      const compiled = new (process.getBuiltinModule('node:vm').Script)(wrapper, { filename: file }).runInThisContext() as (...args: unknown[]) => void;
      compiled.call(module.exports, module.exports, requireFrom(file), module, file, path.dirname(file));
    } catch (error) {
      modules.delete(file);
      throw error;
    }
    module.loaded = true;
    return module.exports;
  };
  const requireFrom =
    (from: string) =>
    (id: string): unknown =>
      id.startsWith('./') || id.startsWith('../') ? load(path.join(path.dirname(from), id)) : builtin(id);
  return requireFrom;
}

/** `start` runs gymctl from the snapshot with the folder's path, calling `ensure` (is the folder on disk?) before it first needs a file of it. */
export function seaMain(start: (dir: string, argv: string[], ensure: () => boolean) => void): void {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    guardStreams();
    process.stdout.write(`${__GYMCTL_VERSION__}\n`);
    return;
  }
  // Node's compile cache runs whatever code its folder holds: jq's worker, whose script Node compiles, must not take it
  // from this variable (a worker inherits it). gymctl's own files are compiled with vm, which never reads it.
  delete process.env.NODE_COMPILE_CACHE;
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
  closeDiskLoader(dir);
  const agent = path.join(dir, 'keyring-agent.cjs');
  if (argv.length !== 1 || argv[0] !== agent) {
    start(dir, argv, () => ensureFolder(dir).onDisk);
    return;
  }
  // The keyring agent. Its answers, when it cannot be run, are its own (the agent would say only that there is no keyring module).
  const trouble = (message: string) => process.stdout.write(`${JSON.stringify({ ok: false, trouble: 'unavailable', message })}\n`);
  const found = ensureFolder(dir);
  if (!found.onDisk) {
    const { root, reason } = found.unavailable;
    trouble(`the keyring module must be a file on disk, and gymctl cannot write it into ${root} (${reason}): set XDG_CACHE_HOME to a writable folder of your own`);
    return;
  }
  try {
    if (ADDON in __GYMCTL_SEA_MANIFEST__) verifyOnce(dir, ADDON);
  } catch (error) {
    trouble((error as SeaError).message);
    return;
  }
  // As `node keyring-agent.cjs`: the agent resolves its module from its own path (resolved above to the exact file).
  process.argv[1] = agent;
  binaryModules(dir, {})(agent)('./keyring-agent.cjs');
}
