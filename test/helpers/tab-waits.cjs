/**
 * Preloaded (--require) into the built gymctl by the tests of Tab in real
 * shells: Tab waits for every answer, however slow the machine, instead of
 * gymctl's half second. It replaces the deadline of the complete command's
 * module (dist/side/complete.cjs: `tabWait`, the seam the in-process tests
 * use too) as that module is loaded. What gymctl offers when the server is
 * too slow is tested in-process, with a deadline the test ends.
 */
const Module = require('node:module');

const load = Module._load;
Module._load = function (...args) {
  const exports = load.apply(this, args);
  if (exports && typeof exports === 'object' && 'VALUES_WAIT_MS' in exports && exports.tabWait) {
    exports.tabWait.deadline = () => new AbortController().signal;
  }
  return exports;
};
