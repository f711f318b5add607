// What build/index.mjs and scripts/build-sea.mjs share, and the build's interventions in third-party code (CONTRIBUTING.md).
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
export const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

/** esbuild's `define` of plain values: each as its JSON. */
export const defines = (values) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, JSON.stringify(value)]));

export const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', define: defines({ __GYMCTL_VERSION__: version }), logLevel: 'warning' };

/** A path inside package `name` in node_modules, with either separator (a Windows build host has `\`). */
export const inPackage = (name) => new RegExp(`node_modules[\\\\/]${name.replace('/', '[\\\\/]')}[\\\\/]`);

// What each intervention needs its package's file to contain, which test/unit/bundle.test.ts checks in node_modules.
export const UPSTREAM = {
  whenExit: ['node_modules/atomically/dist/utils/temp.js', "from 'when-exit'"],
  jqSink: ['node_modules/jq-wasm/dist/index.cjs', 'if (byte != null) stdoutSink.push(byte);'],
  childProcess: ['node_modules/commander/lib/command.js', "require('node:child_process')"],
  envPaths: ['node_modules/conf/dist/source/index.js', 'if (!options.cwd) {'],
};

// atomically (conf's writer) gets gymctl's when-exit (src/config/when-exit.ts), run on exit alone: the package's hooks
// signals on the first write and sends each to the process again, which gymctl took for a second Ctrl-C.
export const whenExitOnExitOnly = {
  name: 'when-exit-on-exit-only',
  setup(build) {
    build.onResolve({ filter: /^when-exit$/ }, (args) => (inPackage('atomically').test(args.importer) ? { path: path.join(root, 'src/config/when-exit.ts') } : undefined));
  },
};

// commander requires child_process at load, for executable subcommands, which gymctl has none of: a stand-in loads it
// on first use, which keeps it out of the single executable's snapshot (docs/sea-notes.md, "child_process").
export const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (inPackage('commander').test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined));
    const contents = "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });";
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({ contents, loader: 'js' }));
  },
};

// conf imports env-paths, which reads os.homedir() as it loads: where Node has no home to give (a USERPROFILE of 260
// characters or more, ENOBUFS; a uid with no home), loading conf threw, and every write of the config failed. conf
// asks it for a folder only without a cwd, which gymctl always gives (src/config/store.ts): a stand-in that says so.
export const envPathsUnused = {
  name: 'env-paths-unused',
  setup(build) {
    build.onResolve({ filter: /^env-paths$/ }, (args) => (inPackage('conf').test(args.importer) ? { path: 'env-paths', namespace: 'unused' } : undefined));
    const contents = "module.exports = () => { throw new Error('conf asked env-paths for its folder: gymctl gives conf its cwd'); };";
    build.onLoad({ filter: /.*/, namespace: 'unused' }, () => ({ contents, loader: 'js' }));
  },
};

// jq-wasm keeps jq's output in a buffer until jq ends; for `--jq 'range(1e9)' | head -3` to print as it goes, each
// byte goes instead to a function the worker sets, when it sets one (src/output/jq.ts).
export const jqOutputAsItComes = {
  name: 'jq-output-as-it-comes',
  setup(build) {
    build.onLoad({ filter: /jq-wasm[\\/]dist[\\/]index\.cjs$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const sink = UPSTREAM.jqSink[1];
      if (!source.includes(sink)) throw new Error(`jq-wasm changed: ${sink} is not in ${args.path}`);
      const contents = source.replace(sink, 'if (byte != null) { if (globalThis.__gymctlJqOutput) globalThis.__gymctlJqOutput(byte); else stdoutSink.push(byte); }');
      return { contents, loader: 'js' };
    });
  },
};
