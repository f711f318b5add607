'use strict';
// The single executable's main script (npm run build:sea embeds it, with the
// built dist/ files as assets). `--version` is answered from here; every
// other run puts the built files in a per-build folder of the user's cache
// (0700, the user's own, written once, atomically) and starts dist/boot.cjs
// from there, as bin/gymctl.cjs does. The keyring agent is this binary too:
// the keyring client runs process.execPath (this file) with the agent's path.
const VERSION = __GYMCTL_VERSION__;
const BUILD = __GYMCTL_SEA_BUILD__;
const FILES = __GYMCTL_SEA_FILES__;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') process.stderr.write(`gymctl: cannot write output (${error.code || error.message})\n`);
    process.exitCode = error.code === 'EPIPE' ? 0 : 1;
  });
  process.stdout.write(`${VERSION}\n`);
} else {
  const dir = extracted();
  const { createRequire } = require('node:module');
  const path = require('node:path');
  const load = createRequire(path.join(dir, 'boot.cjs'));
  if (argv.length === 1 && argv[0] === path.join(dir, 'keyring-agent.cjs')) load('./keyring-agent.cjs');
  else if (typeof bindMainFile === 'function') {
    bindMainFile(dir);
    startFromSnapshot(argv);
  } else load('./boot.cjs').start(argv);
}

/** The folder holding this build's files: made on the first run, checked on every run. */
function extracted() {
  const fs = require('node:fs');
  const path = require('node:path');
  const os = require('node:os');
  const env = process.env;
  const cache = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(env.HOME || os.homedir(), '.cache');
  const root = path.join(cache, 'gymctl', 'sea');
  const dir = path.join(root, BUILD);
  const fail = (message) => {
    process.stderr.write(`gymctl: ${message}\n`);
    process.exit(1);
  };
  const trusted = (folder) => {
    let stat;
    try {
      stat = fs.lstatSync(folder);
    } catch (error) {
      if (error.code === 'ENOENT') return false;
      fail(`cannot read ${folder} (${error.code || error.message}): set XDG_CACHE_HOME to a folder of your own`);
    }
    if (!stat.isDirectory()) fail(`${folder} is not a folder (a link, or a file): remove it, or set XDG_CACHE_HOME`);
    if (typeof process.getuid === 'function' && (stat.uid !== process.getuid() || (stat.mode & 0o077) !== 0)) {
      fail(`${folder} is not yours alone (0700), so gymctl will not run code from it: remove it, or set XDG_CACHE_HOME`);
    }
    return true;
  };
  if (trusted(dir)) return dir;
  try {
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    trusted(root);
    const sea = require('node:sea');
    const temporary = fs.mkdtempSync(path.join(root, `.${BUILD}-`));
    fs.chmodSync(temporary, 0o700);
    for (const name of FILES) {
      const target = path.join(temporary, name);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, new Uint8Array(sea.getRawAsset(name)), { mode: 0o600 });
    }
    try {
      fs.renameSync(temporary, dir);
    } catch (error) {
      // Another run put the same build there first: it is the same files.
      fs.rmSync(temporary, { recursive: true, force: true });
      if (!trusted(dir)) throw error;
    }
  } catch (error) {
    fail(`cannot unpack gymctl into ${root} (${error.code || error.message}): set XDG_CACHE_HOME to a writable folder of your own`);
  }
  return dir;
}
