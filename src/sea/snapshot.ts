/** The single executable's main script: dist/gymctl.cjs, loaded and warmed (warm.ts) while the snapshot is built (docs/sea-notes.md, "Snapshot start"). */
import { once } from '../api/once.js';
import { exitWhenIdle, guardStreams, topLevelHelp } from '../startup/boot.js';
import { binaryModules, seaMain } from './main.js';
import { warmUp } from './warm.js';

/** dist/gymctl.cjs, as a CommonJS module's function (build-sea.mjs defines it, ahead of this script). */
declare const __GYMCTL_MAIN_FILE__: (exports: object, require: (id: string) => unknown, module: { exports: object }, filename: string, dirname: string) => void;
/** The sandbox's answer to GET /me, for the warm-up run. */
declare const __GYMCTL_WARM_UP_ME__: string;

const mainModule = { exports: {} as { main(argv: string[]): Promise<void> } };
/** Where the main file's relative requires (its side files) go: the binary's own files, once a run has started. */
let fromMain: (() => (id: string) => unknown) | undefined;
const requireHere = (id: string): unknown => {
  if (!id.startsWith('.')) return require(id);
  if (!fromMain) throw new Error(`${id} was required while the snapshot was made`);
  return fromMain()(id);
};
__GYMCTL_MAIN_FILE__(mainModule.exports, requireHere, mainModule, '/gymctl.cjs', '/');

function start(dir: string, argv: string[]): void {
  guardStreams();
  if (topLevelHelp(argv, process.stdout.columns)) return void process.stdout.write(process.getBuiltinModule('node:sea').getAsset('help.txt', 'utf8'));
  const file = process.getBuiltinModule('node:path').join(dir, 'gymctl.cjs');
  fromMain = once(() => binaryModules(dir, { [file]: mainModule.exports })(file));
  exitWhenIdle();
  void mainModule.exports.main(argv);
}

const { startupSnapshot } = process.getBuiltinModule('node:v8');
startupSnapshot.setDeserializeMainFunction(() => seaMain(start));
// Nothing of the building process in the snapshot (docs/sea-notes.md, "Reproducible"): Node sets these again for each run.
startupSnapshot.addSerializeCallback(() => {
  const blank = { pid: 0, argv: [], argv0: '', execArgv: [], execPath: '', title: '' };
  for (const [name, value] of Object.entries(blank)) Object.defineProperty(process, name, { ...Object.getOwnPropertyDescriptor(process, name), value });
  // Nor the warm-up's config file, whose inode and times node:fs keeps from its last stat, as it would keep them for the next.
  (process as unknown as { binding(name: 'fs'): { statValues: Float64Array } }).binding('fs').statValues.fill(0);
});
// The snapshot is taken once this has run (and the event loop is empty): a failed warm-up fails the build.
void warmUp(mainModule.exports.main, __GYMCTL_WARM_UP_ME__);
