// What build/index.mjs and scripts/build-sea.mjs share, and the build's interventions in third-party code (CONTRIBUTING.md).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
export const { version, dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
export const SIDE_FILES = JSON.parse(readFileSync(path.join(root, 'build', 'side-files.json'), 'utf8'));

export const defines = (values) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, JSON.stringify(value)]));

export const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', define: defines({ __GYMCTL_VERSION__: version }), logLevel: 'warning' };

// `run(env)`, a run of the CLI during the build: `env` is `base` without gymctl's own variables, every home folder in a temporary one, removed after.
export function withOwnHome(run, base = process.env) {
  const home = mkdtempSync(path.join(tmpdir(), 'gymctl-build-home-'));
  const at = (...parts) => path.join(home, ...parts);
  const env = Object.fromEntries(Object.entries(base).filter(([name]) => !/^(GYMCTL_|NODE_COMPILE_CACHE$)/.test(name)));
  Object.assign(env, { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: at('.config'), XDG_CACHE_HOME: at('.cache'), XDG_DATA_HOME: at('.local', 'share') });
  Object.assign(env, { XDG_STATE_HOME: at('.local', 'state'), APPDATA: at('AppData', 'Roaming'), LOCALAPPDATA: at('AppData', 'Local') });
  try {
    return run(env);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** A path inside package `name` in node_modules, with either separator (a Windows build host has `\`). */
export const inPackage = (name) => new RegExp(`node_modules[\\\\/]${name.replace('/', '[\\\\/]')}[\\\\/]`);

// The text in its package's file that each intervention relies on.
export const UPSTREAM = {
  whenExit: ['node_modules/atomically/dist/utils/temp.js', "from 'when-exit'"],
  jqSink: ['node_modules/jq-wasm/dist/index.cjs', 'if (byte != null) stdoutSink.push(byte);'],
  childProcess: ['node_modules/commander/lib/command.js', "require('node:child_process')"],
  envPaths: ['node_modules/conf/dist/source/index.js', 'if (!options.cwd) {'],
};

// An esbuild plugin that changes package code: `hook(build, applied, pkg)` sets it up, passing what it returns through applied() each
// time it takes. So that no change upstream silently undoes it, the build fails when `file` loads without `text` or the package loads but it never took.
const intervention = (name, [file, text], hook) => {
  const pkg = file.split('/')[1];
  const changed = (what) => new Error(`${pkg} changed: ${what}, which the build's ${name} relies on (build/common.mjs)`);
  return {
    name,
    setup(build) {
      const seen = new Set();
      build.onLoad({ filter: inPackage(pkg) }, (args) => {
        seen.add('loaded');
        if (args.path.replaceAll('\\', '/').endsWith(file) && !readFileSync(args.path, 'utf8').includes(text)) throw changed(`${file} no longer has ${text}`);
      });
      hook(build, (result) => seen.add('applied') && result, pkg);
      build.onEnd(() => {
        if (seen.has('loaded') && !seen.has('applied')) throw changed(`the build took in ${pkg} and ${name} never applied`);
      });
    },
  };
};
/** An intervention that resolves the package's import of what `filter` matches to `resolved`, with `contents` if a stand-in. */
const insteadOfImport = (name, upstream, filter, resolved, contents) =>
  intervention(name, upstream, (build, applied, pkg) => {
    build.onResolve({ filter }, (args) => (inPackage(pkg).test(args.importer) ? applied(resolved) : undefined));
    if (contents) build.onLoad({ filter: /.*/, namespace: resolved.namespace }, () => ({ contents, loader: 'js' }));
  });

// atomically's when-exit sends each signal to the process again, which gymctl took for a second Ctrl-C: it gets src/config/when-exit.ts.
export const whenExitOnExitOnly = insteadOfImport('when-exit-on-exit-only', UPSTREAM.whenExit, /^when-exit$/, { path: path.join(root, 'src/config/when-exit.ts') });

// commander requires child_process at load, for executable subcommands gymctl has none of: loaded on first use, it stays out of the snapshot.
const lazy = "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });";
export const lazyChildProcess = insteadOfImport('lazy-child-process', UPSTREAM.childProcess, /^(node:)?child_process$/, { path: 'child_process', namespace: 'lazy' }, lazy);

// conf's env-paths reads os.homedir() as it loads, which throws where there is none (a USERPROFILE of 260 characters or more, ENOBUFS):
// conf asks it only without a cwd, which gymctl always gives.
const unused = "module.exports = () => { throw new Error('conf asked env-paths for its folder: gymctl gives conf its cwd'); };";
export const envPathsUnused = insteadOfImport('env-paths-unused', UPSTREAM.envPaths, /^env-paths$/, { path: 'env-paths', namespace: 'unused' }, unused);

// jq-wasm buffers jq's output until jq ends: each byte goes instead to the function src/output/jq.ts's worker sets, so that `--jq … | head` prints as it goes.
export const jqOutputAsItComes = intervention('jq-output-as-it-comes', UPSTREAM.jqSink, (build, applied) => {
  build.onLoad({ filter: /jq-wasm[\\/]dist[\\/]index\.cjs$/ }, (args) => {
    const sink = 'if (byte != null) { if (globalThis.__gymctlJqOutput) globalThis.__gymctlJqOutput(byte); else stdoutSink.push(byte); }';
    return applied({ contents: readFileSync(args.path, 'utf8').replace(UPSTREAM.jqSink[1], sink), loader: 'js' });
  });
});
