// Preloaded (node --require) into a gymctl under test: writes "ready" on
// fd 3 once gymctl listens for SIGTERM, so that a test sends its signal
// when gymctl can handle it, however slowly a loaded machine started it.
// (Node catches SIGINT and SIGTERM itself from the start, so /proc shows
// nothing of gymctl's own handlers.)
const { writeSync } = require('node:fs');

const on = process.on;
process.on = function (event, listener) {
  const result = on.call(this, event, listener);
  if (event === 'SIGTERM') {
    process.on = on;
    try {
      writeSync(3, 'ready\n');
    } catch {
      // No fd 3: not started by a test that waits for it.
    }
  }
  return result;
};
