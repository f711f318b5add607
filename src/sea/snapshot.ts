/**
 * The single executable with a start-up snapshot (the default build):
 * dist/gymctl.cjs is run at build time, inside the snapshot, so a run
 * starts with it loaded. At run time it is registered as the folder's
 * `gymctl.cjs` (so side files' `require('../gymctl.cjs')` take the same
 * modules, not a second copy) and gymctl starts as dist/boot.cjs starts it:
 * streams guarded, the top-level help written as built; no code cache (the snapshot holds the
 * compiled code). The main file has run `whoami --json` once (warm.ts)
 * before the snapshot was taken.
 */
import { topLevelHelp } from '../argv.js';
import { seaMain } from './main.js';
import { warmUp } from './warm.js';
import { guardStreams } from '../startup/boot.js';

/** dist/gymctl.cjs, as a CommonJS module's function (build-sea.mjs puts it here). */
declare const __GYMCTL_MAIN_FILE__: (exports: object, require: (id: string) => unknown, module: { exports: object }, filename: string, dirname: string) => void;
/** The sandbox's answer to GET /me, for the warm-up run (warm.ts). */
declare const __GYMCTL_WARM_UP_ME__: string;

type MainExports = { main(argv: string[]): Promise<boolean> };

const mainModule: { exports: object } = { exports: {} };
/** Relative requires of the main file (its side files) go to the folder, once it is known. */
let folderRequire: NodeJS.Require | undefined;
/** Makes and checks the folder (main.ts), the first time a file of it is needed. */
let ensureFolder: () => void = () => {};
const requireHere = (id: string): unknown => {
  if (!id.startsWith('.')) return require(id);
  if (!folderRequire) throw new Error(`${id} was required while the snapshot was made`);
  ensureFolder();
  return folderRequire(id);
};
__GYMCTL_MAIN_FILE__(mainModule.exports, requireHere, mainModule, '/gymctl.cjs', '/');

/** Node's CommonJS Module class, with the internals this needs. */
type ModuleClass = {
  new (id: string, parent: null): { filename: string; exports: object; loaded: boolean; paths: string[] };
  _cache: Record<string, unknown>;
  _nodeModulePaths(dir: string): string[];
  createRequire(file: string): NodeJS.Require;
};

/** Registers the snapshot's main file as `dir/gymctl.cjs`. */
function bindMainFile(dir: string): void {
  const Module = process.getBuiltinModule('node:module') as unknown as ModuleClass;
  const file = require('node:path').join(dir, 'gymctl.cjs') as string;
  const registered = new Module(file, null);
  registered.filename = file;
  registered.exports = mainModule.exports;
  registered.loaded = true;
  registered.paths = Module._nodeModulePaths(dir);
  Module._cache[file] = registered;
  folderRequire = Module.createRequire(file);
}

function start(dir: string, argv: string[], ensure: () => void): void {
  ensureFolder = ensure;
  guardStreams();
  if (topLevelHelp(argv) && (process.stdout.columns === undefined || process.stdout.columns === 80)) {
    process.stdout.write(process.getBuiltinModule('node:sea').getAsset('help.txt', 'utf8'));
    return;
  }
  bindMainFile(dir);
  void (mainModule.exports as MainExports).main(argv);
}

process.getBuiltinModule('node:v8').startupSnapshot.setDeserializeMainFunction(() => seaMain({ start }));
// The snapshot is taken once this has run (and the event loop is empty): a failed warm-up fails the build.
void warmUp((mainModule.exports as MainExports).main, __GYMCTL_WARM_UP_ME__);
