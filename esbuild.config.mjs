// Builds gymctl: the CLI as one bundle, dependencies included, split so that
// each command loads only what it needs; the library with its dependencies
// left to npm. `node esbuild.config.mjs` (npm run build runs it).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// What earlier builds wrote (ES module chunks, before the CommonJS build): clear it, so that none is left behind.
rmSync('dist/chunks', { recursive: true, force: true });
rmSync('dist/cli.js', { force: true });

/** The metafiles of several builds as one: every input, and every output file. */
const mergeMeta = (metas) => ({
  inputs: Object.assign({}, ...metas.map((meta) => meta.inputs)),
  outputs: Object.fromEntries(metas.flatMap((meta) => Object.entries(meta.outputs)).filter(([output]) => !output.endsWith('.map'))),
});

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  define: { __GYMCTL_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
};

// commander requires child_process at load, for stand-alone executable
// subcommands, which gymctl does not have; loading it (and net, dgram…) costs
// a few milliseconds on every call. Hand commander a stand-in that loads the
// real module only if it is ever used.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (args.importer.includes('node_modules/commander') ? { path: 'child_process', namespace: 'lazy' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });",
      loader: 'js',
    }));
  },
};

// chalk works out a colour level of its own when it loads, from process.argv
// and the environment (its vendored supports-color). gymctl decides colour
// itself (terminal, NO_COLOR, FORCE_COLOR, --no-color) and hands chalk the
// level: give chalk a supports-color that finds none, so it reads nothing.
const chalkDecidesNothing = {
  name: 'chalk-decides-nothing',
  setup(build) {
    build.onResolve({ filter: /^#supports-color$/ }, (args) =>
      args.importer.includes('node_modules/chalk/') ? { path: 'supports-color', namespace: 'no-colour-probe' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'no-colour-probe' }, () => ({ contents: 'export default { stdout: false, stderr: false };', loader: 'js' }));
  },
};

// conf writes through atomically, whose when-exit hooks SIGINT, SIGTERM and
// other signals on the first write and, on one, sends it to the process
// again: gymctl took the echo for a second Ctrl-C and ended at once. Hand
// atomically gymctl's when-exit (src/config/when-exit.ts), the same function
// run on exit alone, so that signals stay gymctl's.
const whenExitOnExitOnly = {
  name: 'when-exit-on-exit-only',
  setup(build) {
    build.onResolve({ filter: /^when-exit$/ }, (args) => (args.importer.includes('node_modules/atomically/') ? { path: path.resolve('src/config/when-exit.ts') } : undefined));
  },
};

// The command, as CommonJS: Node's CommonJS loader starts sooner than its
// ES module loader, and bin/gymctl.cjs can then load it through a V8 code
// cache (src/boot.ts). The read path (every declared operation's command,
// and api) is one file, dist/gymctl.cjs. esbuild cannot split CommonJS, so
// each rare path is a file of its own in dist/side/, required when it is
// needed: a module becomes a side file because the code that uses it loads
// it with import(), and nothing in the main file imports it statically.
// No list is kept here. A side file takes every module the main file also
// holds from the main file (its registry, `__modules`), never a copy of its
// own: one class of each error, so `instanceof` holds across files.
const relative = (file) => path.relative(process.cwd(), file).split(path.sep).join('/');

/** Sends imports of a side file's source to the side file (from `prefix`): a require, made when the import runs. */
function sideImports(prefix, self, kinds) {
  return {
    name: 'side-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.resolving || args.kind === 'entry-point' || (kinds && !kinds.includes(args.kind))) return undefined;
        const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { resolving: true } });
        const side = resolved.path && sides.get(relative(resolved.path));
        if (!side || side === self) return undefined;
        return { path: `${prefix}${side}.cjs`, external: true };
      });
    },
  };
}

/** In a side file: a module of gymctl's own that the main file holds comes from the main file's registry. */
function fromMainFile(mainInputs, shared) {
  return {
    name: 'from-main-file',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/gymctl\.cjs$/ }, (args) => ({ path: args.path, external: true }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.resolving || args.kind === 'entry-point') return undefined;
        const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { resolving: true } });
        if (resolved.external || !resolved.path) return undefined;
        const input = relative(resolved.path);
        // Packages are bundled into each file that uses them (tree-shaken; a registry would keep every export): only gymctl's own modules carry classes and state.
        if (!input.startsWith('src/') || !mainInputs.has(input)) return undefined;
        shared.add(input);
        return { path: input, namespace: 'main-file' };
      });
      build.onLoad({ filter: /.*/, namespace: 'main-file' }, (args) => ({
        contents: `module.exports = require('../gymctl.cjs').__modules[${JSON.stringify(args.path)}]();`,
        loader: 'js',
      }));
    },
  };
}

const cjs = {
  ...common,
  format: 'cjs',
  minify: !process.env.NO_MINIFY,
  metafile: true,
  // Source maps beside the files, not named in them (the code is the same with or without): moved to dist/maps/
  // below, which is not packed. npm run bench reads them to say where a slow case's time goes.
  sourcemap: 'external',
  // import() becomes a require() made when it runs: no ES module loader.
  supported: { 'dynamic-import': false },
  // cli-table3 colours through @colors/colors only for style names, which
  // gymctl never passes (chalk colours the cells): leave it out.
  external: ['@colors/colors', '@colors/colors/*'],
};

/** The main file's entry, with a registry of the modules that side files take from it. */
function mainEntry(shared) {
  const registry = [...shared].sort().map((input) => `  ${JSON.stringify(input)}: () => require(${JSON.stringify(`./${input}`)}),`);
  return {
    stdin: {
      contents: `export { main } from './src/cli.ts';\nexport const __modules = {\n${registry.join('\n')}\n};\n`,
      resolveDir: process.cwd(),
      sourcefile: 'src/cli-entry.ts',
      loader: 'ts',
    },
    outfile: 'dist/gymctl.cjs',
  };
}

/** The main file, requiring each side file where its code loads it. */
const buildMain = (shared) =>
  build({ ...cjs, ...mainEntry(shared), plugins: [whenExitOnExitOnly, sideImports('./side/', undefined, ['dynamic-import']), lazyChildProcess, chalkDecidesNothing] });

/** A side file's name, from its source: `auth` of src/commands/auth/run.ts, `output-table` of src/output/table.ts, `undici` of the package. */
const sideName = (source) =>
  source.includes('node_modules/')
    ? source.split('node_modules/').at(-1).split('/')[0] // node_modules may be a link elsewhere: `../x/node_modules/undici/…`
    : source
        .replace(/^src\//, '')
        .replace(/\.ts$/, '')
        .replace(/^commands\/(.+)\/run$/, '$1')
        .replaceAll('/', '-');

/** Records what the main file's code loads with import(), leaving it out of the bundle. */
function dynamicImports(found) {
  return {
    name: 'dynamic-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.resolving || args.kind !== 'dynamic-import') return undefined;
        const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { resolving: true } });
        if (resolved.external || !resolved.path) return undefined;
        found.add(relative(resolved.path));
        return { path: args.path, external: true };
      });
    },
  };
}

rmSync('dist/side', { recursive: true, force: true });
// First what the main file holds statically, and what it loads with import(): what it does not hold is a side file.
const loadedLater = new Set();
const firstMain = await build({ ...cjs, ...mainEntry([]), write: false, plugins: [whenExitOnExitOnly, dynamicImports(loadedLater), lazyChildProcess, chalkDecidesNothing] });
const mainInputs = new Set(Object.keys(firstMain.metafile.inputs));
/** Side files by source. */
const sides = new Map([...loadedLater].filter((input) => !mainInputs.has(input)).map((input) => [input, sideName(input)]));
if (new Set(sides.values()).size !== sides.size) throw new Error(`two side files would have one name: ${[...sides.keys()].join(', ')}`);
// Then the side files, which say what they take from the main file; then the main file with that registry.
const shared = new Set();
const sideMeta = [];
for (const [source, name] of sides) {
  const side = await build({
    ...cjs,
    entryPoints: [source],
    outfile: `dist/side/${name}.cjs`,
    plugins: [whenExitOnExitOnly, fromMainFile(mainInputs, shared), sideImports('./', name), lazyChildProcess, chalkDecidesNothing],
    define: {
      ...common.define,
      'import.meta.url': '__importMetaUrl',
      __JQ_WASM__: JSON.stringify('../jq.wasm'),
      __JQ_MODULE__: JSON.stringify('../jq-wasm.cjs'),
      __KEYRING_AGENT__: JSON.stringify('../keyring-agent.cjs'),
      __LICENSES__: JSON.stringify('../licenses/THIRD-PARTY-NOTICES'),
    },
    banner: { js: 'var __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  sideMeta.push(side.metafile);
}
const cli = await buildMain(shared);
// The source maps, out of the files that are packed (dist/side is packed whole).
rmSync('dist/maps', { recursive: true, force: true });
mkdirSync('dist/maps/side', { recursive: true });
for (const output of Object.keys(mergeMeta([cli.metafile, ...sideMeta]).outputs)) renameSync(`${output}.map`, `dist/maps/${output.slice('dist/'.length)}.map`);
const mainBytes = readFileSync('dist/gymctl.cjs');
if (mainBytes.includes('import.meta') || /\bimport\(/.test(mainBytes.toString())) throw new Error('dist/gymctl.cjs must not use import.meta or import(): it runs as a script');
// bin/gymctl.cjs starts here: it loads dist/gymctl.cjs through a code cache (src/startup/).
const boot = await build({
  ...common,
  format: 'cjs',
  minify: true,
  metafile: true,
  entryPoints: ['src/startup/boot.ts'],
  outfile: 'dist/boot.cjs',
});
// The keyring agent, run as a process of its own; the native keyring module stays an optional dependency, which the agent alone loads.
// CommonJS: it starts without Node's ES module loader, about 10 ms sooner.
const agent = await build({
  ...common,
  format: 'cjs',
  entryPoints: ['src/keyring/agent.ts'],
  outfile: 'dist/keyring-agent.cjs',
  external: ['@napi-rs/keyring'],
  minify: true,
  metafile: true,
});

// --jq's jq, run in a worker thread (so that Ctrl-C stops it): jq-wasm as CommonJS, which the worker requires.
// jq-wasm keeps jq's output in a buffer until jq ends; for `--jq 'range(1e9)' | head -3` to print as it goes,
// each byte goes instead to a function the worker sets, when it sets one (src/output/jq.ts).
const jqOutputAsItComes = {
  name: 'jq-output-as-it-comes',
  setup(build) {
    build.onLoad({ filter: /jq-wasm[\\/]dist[\\/]index\.cjs$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const sink = 'if (byte != null) stdoutSink.push(byte);';
      if (!source.includes(sink)) throw new Error(`jq-wasm changed: ${sink} is not in ${args.path}`);
      return {
        contents: source.replace(sink, 'if (byte != null) { if (globalThis.__gymctlJqOutput) globalThis.__gymctlJqOutput(byte); else stdoutSink.push(byte); }'),
        loader: 'js',
      };
    });
  },
};
const jqWasm = await build({
  ...common,
  format: 'cjs',
  metafile: true,
  entryPoints: [createRequire(import.meta.url).resolve('jq-wasm')],
  outfile: 'dist/jq-wasm.cjs',
  minify: true,
  plugins: [jqOutputAsItComes],
});

// --jq's jq, compiled to WebAssembly, and the licence notices of what it is built from.
const requireHere = createRequire(import.meta.url);
copyFileSync(requireHere.resolve('jq-wasm/jq.wasm'), 'dist/jq.wasm');
mkdirSync('dist/licenses', { recursive: true });
copyFileSync(requireHere.resolve('jq-wasm/package.json').replace(/package\.json$/, 'LICENSE'), 'dist/licenses/jq-wasm.txt');
copyFileSync('licenses/jq.txt', 'dist/licenses/jq.txt');
copyFileSync('licenses/oniguruma.txt', 'dist/licenses/oniguruma.txt');

// Which source files each file holds: the tests of what a command loads read it.
writeFileSync('dist/meta.json', JSON.stringify(mergeMeta([boot.metafile, cli.metafile, ...sideMeta])));

// The top-level help, written out once so that `gymctl --help` loads no parser.
rmSync('dist/help.txt', { force: true });
const help = spawnSync(process.execPath, ['bin/gymctl.cjs', '--help'], { encoding: 'utf8', input: '' });
if (help.status !== 0 || !help.stdout.startsWith('Usage: gymctl')) throw new Error(`could not write the help: ${help.stderr}`);
writeFileSync('dist/help.txt', help.stdout);

// The man page, written from the command tree by marked-man (npm install -g installs it).
const { manPage } = await import('./scripts/manpage.mjs');
writeFileSync('dist/gymctl.1', (await manPage(version)).roff);

const library = await build({
  ...common,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  packages: 'external',
  metafile: true,
});
// What the library holds: the guard test checks it is only the API client and the JSON tools.
writeFileSync('dist/meta-index.json', JSON.stringify(library.metafile));

// An OpenAPI 3.1 description of the three operations, from the same zod
// schemas the client validates with, shipped as dist/openapi.json.
const { openApiDocument } = await import(new URL('./dist/index.js', import.meta.url).href);
writeFileSync('dist/openapi.json', `${JSON.stringify(openApiDocument(version), null, 2)}\n`);

// The notices of every package bundled into a shipped file, derived from what each file holds (every
// build's metafile, kept as dist/meta-shipped.json for the package test), with jq's and Oniguruma's.
const shipped = mergeMeta([boot.metafile, cli.metafile, ...sideMeta, agent.metafile, jqWasm.metafile, library.metafile]);
writeFileSync('dist/meta-shipped.json', JSON.stringify(shipped));
const { bundledPackages, noticesText } = await import('./scripts/notices.mjs');
writeFileSync(
  'dist/licenses/THIRD-PARTY-NOTICES',
  noticesText(bundledPackages([shipped]), [
    { title: 'jq (compiled into dist/jq.wasm)', text: readFileSync('licenses/jq.txt', 'utf8') },
    { title: 'Oniguruma (compiled into dist/jq.wasm, for jq)', text: readFileSync('licenses/oniguruma.txt', 'utf8') },
  ]),
);
