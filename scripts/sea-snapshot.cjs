// biome-ignore-all lint/correctness: a template: build-sea.mjs puts the main file and scripts/sea-main.cjs in its placeholders, which use what looks unused here
'use strict';
// Prototype (GYMCTL_SEA_SNAPSHOT=1 npm run build:sea): the single executable
// with a start-up snapshot. The main file is compiled and run at build time,
// so the snapshot holds it loaded; at run time the side files still come from
// the per-build folder (scripts/sea-main.cjs), which requires them relative
// to a registered copy of the main file. Not warmed yet; boot.cjs is skipped
// (no code cache, no help.txt shortcut, no young-generation bound for batches).
const v8 = require('node:v8');
const mainModule = { exports: {} };
let runtimeRequire;
const requireHere = (id) => (id.startsWith('.') ? runtimeRequire(id) : require(id));
((exports, require, module, __filename, __dirname) => {
  __GYMCTL_MAIN_SOURCE__;
})(mainModule.exports, requireHere, mainModule, '/gymctl.cjs', '/');

v8.startupSnapshot.setDeserializeMainFunction(() => {
  __GYMCTL_SEA_MAIN__;
});

/** Registers the snapshot's main file as dir/gymctl.cjs, so that side files take it (`require('../gymctl.cjs')`) and not a copy. */
function bindMainFile(dir) {
  const Module = require('node:module');
  const file = require('node:path').join(dir, 'gymctl.cjs');
  const real = new Module(file, null);
  real.filename = file;
  real.exports = mainModule.exports;
  real.loaded = true;
  real.paths = Module._nodeModulePaths(dir);
  Module._cache[file] = real;
  runtimeRequire = Module.createRequire(file);
}

function startFromSnapshot(argv) {
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`gymctl: cannot write output (${error.code ?? error.message})\n`);
    process.exit(1);
  });
  process.stderr.on('error', () => {});
  void mainModule.exports.main(argv);
}
