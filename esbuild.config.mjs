// Builds gymctl: the CLI as one bundle, dependencies included, split so that
// each command loads only what it needs; the library with its dependencies
// left to npm. `node esbuild.config.mjs` (npm run build runs it).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// Chunk names carry hashes: clear the old ones so that none is left behind.
rmSync('dist/chunks', { recursive: true, force: true });

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

const cli = await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  minify: true,
  metafile: true,
  plugins: [lazyChildProcess, chalkDecidesNothing],
  // cli-table3 colours through @colors/colors only for style names, which
  // gymctl never passes (chalk colours the cells): leave it out.
  external: ['@colors/colors', '@colors/colors/*'],
  // jq-wasm is bundled apart, for the worker that runs it, and its WebAssembly sits beside it (see below).
  define: {
    ...common.define,
    __JQ_WASM__: JSON.stringify('../jq.wasm'),
    __JQ_MODULE__: JSON.stringify('../jq-wasm.cjs'),
    __KEYRING_AGENT__: JSON.stringify('../keyring-agent.cjs'),
  },
  // Bundled CommonJS dependencies call require(); ES modules have none.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
// The keyring agent, run as a process of its own; the native keyring module stays a dependency.
// CommonJS: it starts without Node's ES module loader, about 10 ms sooner.
await build({ ...common, format: 'cjs', entryPoints: ['src/keyring/agent.ts'], outfile: 'dist/keyring-agent.cjs', external: ['@napi-rs/keyring'], minify: true });

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
await build({
  ...common,
  format: 'cjs',
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

// Which source files each chunk holds: the test of what a command loads reads it.
writeFileSync('dist/meta.json', JSON.stringify(cli.metafile));

// The top-level help, written out once so that `gymctl --help` loads no parser.
rmSync('dist/help.txt', { force: true });
const help = spawnSync(process.execPath, ['bin/gymctl.cjs', '--help'], { encoding: 'utf8', input: '' });
if (help.status !== 0 || !help.stdout.startsWith('Usage: gymctl')) throw new Error(`could not write the help: ${help.stderr}`);
writeFileSync('dist/help.txt', help.stdout);

// The man page, from the same help (npm installs it with `npm install -g`).
const { manPage } = await import('./scripts/manpage.mjs');
writeFileSync('dist/gymctl.1', manPage('bin/gymctl.cjs', version));

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
