#!/usr/bin/env node
'use strict';
// The command as CommonJS, so that `gymctl --version`, which scripts call
// in loops, is answered before Node starts its ES module loader (about
// 10 ms on Node 20). Everything else is the ES module build, dist/cli.js.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // As in dist/cli.js: a reader that stops early is not a failure; a full disk is, in one line.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') process.stderr.write(`gymctl: cannot write output (${error.code || error.message})\n`);
    process.exitCode = error.code === 'EPIPE' ? 0 : 1;
  });
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  import('../dist/cli.js').then(({ main }) => main(argv));
}
