// Preloaded (node --require) into a gymctl under test: once gymctl listens
// for SIGINT and SIGTERM, writes a file with the build's own conf
// (dist/side/config-conf.cjs, what `auth login` or `config set` load for
// their first write), then writes "ready" on fd 3. A signal sent then comes
// after a config write. At exit, writes on fd 3 how many signals reached
// the process's handlers, and how many handlers of SIGINT and SIGTERM are
// left once gymctl has removed its own ("signals N, left A B"): none, so
// that no one else takes a signal or sends it again.
const { writeSync } = require('node:fs');
const path = require('node:path');

let signals = 0;
const emit = process.emit;
process.emit = function (event, ...rest) {
  if (event === 'SIGINT' || event === 'SIGTERM') signals += 1;
  return emit.call(this, event, ...rest);
};

const on = process.on;
process.on = function (event, listener) {
  const result = on.call(this, event, listener);
  if (event === 'SIGTERM') {
    process.on = on;
    const { Conf } = require(path.join(__dirname, '..', '..', 'dist', 'side', 'config-conf.cjs'));
    const conf = new Conf({ cwd: process.env.GYMCTL_CONFIG_DIR, configName: 'written', configFileMode: 0o600 });
    conf.set('written', true);
    process.once('exit', () => writeSync(3, `signals ${signals}, left ${process.listenerCount('SIGINT')} ${process.listenerCount('SIGTERM')}\n`));
    writeSync(3, 'ready\n');
  }
  return result;
};
