/**
 * The single executable's main script (scripts/build-sea.mjs bundles it). dist/gymctl.cjs runs, and is warmed (warm.ts),
 * while the start-up snapshot is built. At run time it is registered as the folder's `gymctl.cjs` (side files'
 * `require('../gymctl.cjs')` take the same modules) and starts as dist/boot.cjs starts it, without a code cache.
 */
import { topLevelHelp } from '../argv.js';
import { guardStreams } from '../startup/boot.js';
import { moduleClass, seaMain } from './main.js';
import { warmUp } from './warm.js';

/** dist/gymctl.cjs, as a CommonJS module's function (build-sea.mjs puts it here). */
declare const __GYMCTL_MAIN_FILE__: (exports: object, require: (id: string) => unknown, module: { exports: object }, filename: string, dirname: string) => void;
/** The sandbox's answer to GET /me, for the warm-up run (warm.ts). */
declare const __GYMCTL_WARM_UP_ME__: string;

const mainModule = { exports: {} as { main(argv: string[]): Promise<boolean> } };
/** Relative requires of the main file (its side files) go to the folder, made and checked (main.ts) when first needed. */
let folderRequire: NodeJS.Require | undefined;
let ensureFolder = (): void => {};
const requireHere = (id: string): unknown => {
  if (!id.startsWith('.')) return require(id);
  if (!folderRequire) throw new Error(`${id} was required while the snapshot was made`);
  ensureFolder();
  return folderRequire(id);
};
__GYMCTL_MAIN_FILE__(mainModule.exports, requireHere, mainModule, '/gymctl.cjs', '/');

function start(dir: string, argv: string[], ensure: () => void): void {
  ensureFolder = ensure;
  guardStreams();
  if (topLevelHelp(argv) && (process.stdout.columns === undefined || process.stdout.columns === 80)) {
    process.stdout.write(process.getBuiltinModule('node:sea').getAsset('help.txt', 'utf8'));
    return;
  }
  // The snapshot's main file, registered as `dir/gymctl.cjs`.
  const Module = moduleClass();
  const file = process.getBuiltinModule('node:path').join(dir, 'gymctl.cjs');
  const registered = Object.assign(new Module(file, null), { filename: file, exports: mainModule.exports, loaded: true, paths: Module._nodeModulePaths(dir) });
  Module._cache[file] = registered;
  folderRequire = Module.createRequire(file);
  void mainModule.exports.main(argv);
}

process.getBuiltinModule('node:v8').startupSnapshot.setDeserializeMainFunction(() => seaMain(start));
// The snapshot is taken once this has run (and the event loop is empty): a failed warm-up fails the build.
void warmUp(mainModule.exports.main, __GYMCTL_WARM_UP_ME__);
