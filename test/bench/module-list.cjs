// Preloaded into gymctl by the start-up guard test (node --require): writes
// the built-in modules Node loaded, one a line, on file descriptor 3 at exit.
const fs = require('node:fs');
process.on('exit', () => {
  try {
    fs.writeSync(3, `${process.moduleLoadList.join('\n')}\n`);
  } catch {}
});
