// Preloaded into gymctl by the start-up guard test (node --require): writes
// every file of dist/ that the run loaded (the main file, which the boot
// loads through its code cache, and each side file it required), one a
// line, on file descriptor 3 at exit.
const fs = require('node:fs');
process.on('exit', () => {
  const files = Object.keys(require.cache).filter((file) => file.includes(`${require('node:path').sep}dist${require('node:path').sep}`));
  try {
    fs.writeSync(3, `${files.join('\n')}\n`);
  } catch {}
});
