#!/usr/bin/env node
'use strict';
// `gymctl --version`, which scripts call in loops, is answered here with nothing else loaded; all else starts in dist/boot.cjs.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // As in dist/boot.cjs: a reader that stops early (EPIPE, or EOF on Windows) is not a failure; a full disk is, in one line.
  process.stdout.on('error', (error) => {
    const gone = error.code === 'EPIPE' || error.code === 'EOF';
    if (!gone) process.stderr.write(`gymctl: cannot write output (${error.code || error.message})\n`);
    process.exitCode = gone ? 0 : 1;
  });
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  let boot;
  try {
    boot = require('../dist/boot.cjs');
  } catch (error) {
    // A clone not yet built: say what to do, not Node's stack.
    if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('boot.cjs')) {
      process.stderr.write('gymctl: gymctl is not built: run npm ci && npm run build\n');
      process.exit(1);
    }
    throw error;
  }
  boot.start(argv);
}
