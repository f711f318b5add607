// What the npm build (build/index.mjs) and the single executable's build (scripts/build-sea.mjs) share: the
// package's version, esbuild's common options, and the build's only interventions in third-party code.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
export const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

/** esbuild's `define` of plain values: each as its JSON. */
export const defines = (values) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, JSON.stringify(value)]));

export const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', define: defines({ __GYMCTL_VERSION__: version }), logLevel: 'warning' };

/** A path inside package `name` in node_modules, with either separator (a Windows build host has `\`). */
export const inPackage = (name) => new RegExp(`node_modules[\\\\/]${name.replace('/', '[\\\\/]')}[\\\\/]`);

// The interventions in third-party code, each checked by test/unit/bundle.test.ts against the package's source
// (UPSTREAM: the file, and what it must still contain for the intervention to take).
export const UPSTREAM = {
  whenExit: ['node_modules/atomically/dist/utils/temp.js', "from 'when-exit'"],
  jqSink: ['node_modules/jq-wasm/dist/index.cjs', 'if (byte != null) stdoutSink.push(byte);'],
  childProcess: ['node_modules/commander/lib/command.js', "require('node:child_process')"],
};

// conf writes through atomically, whose when-exit hooks SIGINT, SIGTERM and other signals on the first write and,
// on one, sends it to the process again: gymctl took the echo for a second Ctrl-C and ended at once. atomically gets
// gymctl's when-exit (src/config/when-exit.ts), the same function run on exit alone, so that signals stay gymctl's.
export const whenExitOnExitOnly = {
  name: 'when-exit-on-exit-only',
  setup(build) {
    build.onResolve({ filter: /^when-exit$/ }, (args) => (inPackage('atomically').test(args.importer) ? { path: path.join(root, 'src/config/when-exit.ts') } : undefined));
  },
};

// commander requires child_process at load, for stand-alone executable subcommands, which gymctl does not have; it
// gets a stand-in that loads the real module only if it is used, which keeps child_process out of the single
// executable's snapshot (docs/sea-notes.md, "child_process").
export const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (inPackage('commander').test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });",
      loader: 'js',
    }));
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
