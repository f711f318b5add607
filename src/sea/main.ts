/** The single executable's run (docs/sea-notes.md, "Run"): `--version`, the keyring agent, or gymctl from the snapshot (snapshot.ts). */
import { once } from '../api/once.js';
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

/** `folder` with its links resolved as far as it exists: Node's loader names each file by its real path. */
function realFolder(folder: string): string {
  try {
    return process.getBuiltinModule('node:fs').realpathSync.native(folder);
  } catch {
    const parent = path.dirname(folder);
    return parent === folder ? folder : path.join(realFolder(parent), path.basename(folder));
  }
}

/** The folder as this run found it, once asked for: on disk and checked (true), or not to be had (why). */
let folder: true | FolderUnavailable | undefined;

/** Makes or checks the folder `dir`, once a run: a refusal ends the run in one line; a folder that cannot be made (a read-only or full cache) does not. */
function ensureFolder(dir: string): true | FolderUnavailable {
  if (folder) return folder;
  try {
    const asset = (name: string) => new Uint8Array(sea().getRawAsset(name) as ArrayBuffer);
    const found = realFolder(unpacked({ root: seaDir(process.env), build: __GYMCTL_SEA_BUILD__, manifest: __GYMCTL_SEA_MANIFEST__, asset }));
    if (found !== dir) throw new SeaError(`the path of ${dir} now leads to ${found} (a link on it changed while gymctl ran): run gymctl again`);
    folder = true;
  } catch (error) {
    if (error instanceof FolderUnavailable) folder = error;
    else if (error instanceof SeaError) {
      process.stderr.write(`gymctl: ${error.message}\n`);
      process.exit(1);
    } else throw error;
  }
  return folder;
}

/** Closes Node's loader to files on disk (it would run any file a `package.json` led it to), but for the keyring addon, resolved to its exact file and checked before it is loaded. */
function closeDiskLoader(dir: string, verifyAddon: () => void): void {
  const Module = process.getBuiltinModule('node:module') as unknown as {
    _extensions: Record<string, (module: unknown, filename: string) => unknown>;
    _resolveFilename(request: string, ...rest: unknown[]): string;
  };
  const addon = path.join(dir, ...ADDON.split('/'));
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request !== '@napi-rs/keyring') return resolve.call(this, request, ...rest);
    if (ADDON in __GYMCTL_SEA_MANIFEST__ && folder === true) return addon;
    throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
  };
  const loaders = Module._extensions;
  const native = loaders['.node']!;
  for (const extension of Object.keys(loaders)) {
    loaders[extension] = (module, filename) => {
      if (extension !== '.node' || filename !== addon) throw new SeaError(`${filename}: the single executable runs nothing from disk but its own keyring module`);
      verifyAddon();
      return native.call(loaders, module, filename);
    };
  }
}

/**
 * gymctl's CommonJS files in `dir`, from the binary's bytes as Node would run them from disk, compiled with `vm`, which never
 * reads a compile cache; `known`: those already loaded, by file. Returns `require` (relative, or Node's built-ins) from a file.
 */
export function binaryModules(dir: string, known: Record<string, object>): (from: string) => (id: string) => unknown {
  const modules = new Map<string, { exports: unknown }>(Object.entries(known).map(([file, exports]) => [file, { exports }]));
  const load = (file: string): unknown => {
    const loaded = modules.get(file);
    if (loaded) return loaded.exports;
    ensureFolder(dir);
    const name = path.relative(dir, file).split(path.sep).join('/');
    if (!(name in __GYMCTL_SEA_MANIFEST__) || !/\.c?js$/.test(name)) throw new SeaError(`${file} is not a file of this gymctl`);
    const module = { exports: {} as unknown, filename: file, id: file };
    modules.set(file, module);
    try {
      const wrapper = `(function (exports, require, module, __filename, __dirname) { ${sea().getAsset(name, 'utf8')}\n})`;
      const compiled = new (process.getBuiltinModule('node:vm').Script)(wrapper, { filename: file }).runInThisContext() as (...args: unknown[]) => void;
      compiled.call(module.exports, module.exports, requireFrom(file), module, file, path.dirname(file));
    } catch (error) {
      modules.delete(file);
      throw error;
    }
    return module.exports;
  };
  const requireFrom = (from: string) => (id: string) => {
    if (id.startsWith('./') || id.startsWith('../')) return load(path.join(path.dirname(from), id));
    const found = process.getBuiltinModule(id);
    if (found === undefined) throw Object.assign(new Error(`Cannot find module '${id}': the single executable holds no package but its own`), { code: 'MODULE_NOT_FOUND' });
    return found;
  };
  return requireFrom;
}

/** `start` runs gymctl from the snapshot with the folder's path. */
export function seaMain(start: (dir: string, argv: string[]) => void): void {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    guardStreams();
    process.stdout.write(`${__GYMCTL_VERSION__}\n`);
    return;
  }
  // Node's compile cache runs whatever code its folder holds: jq's worker, whose script Node compiles, would inherit it.
  delete process.env.NODE_COMPILE_CACHE;
  let root: string;
  try {
    root = seaDir(process.env);
  } catch (error) {
    if (!(error instanceof HomeFolderError)) throw error;
    guardStreams();
    process.stderr.write(`gymctl: ${error.message}\n`);
    process.exit(1);
  }
  const dir = path.join(realFolder(root), __GYMCTL_SEA_BUILD__);
  const verifyAddon = once(() => verify(dir, ADDON, __GYMCTL_SEA_MANIFEST__));
  closeDiskLoader(dir, verifyAddon);
  const agent = path.join(dir, 'keyring-agent.cjs');
  if (argv.length !== 1 || argv[0] !== agent) {
    start(dir, argv);
    return;
  }
  // The keyring agent. Its answers, when it cannot be run, are its own (the agent would say only that there is no keyring module).
  const found = ensureFolder(dir);
  try {
    if (found !== true)
      throw new Error(
        `the keyring module must be a file on disk, and gymctl cannot write it into ${found.root} (${found.reason}): set XDG_CACHE_HOME to a writable folder of your own`,
      );
    if (ADDON in __GYMCTL_SEA_MANIFEST__) verifyAddon();
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ ok: false, trouble: 'unavailable', message: (error as Error).message })}\n`);
    return;
  }
  // As `node keyring-agent.cjs`: the agent resolves its module from its own path (resolved above to the exact file).
  process.argv[1] = agent;
  binaryModules(dir, {})(agent)('./keyring-agent.cjs');
}
