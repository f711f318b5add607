// Builds gymctl's dist/ in the numbered steps of CONTRIBUTING.md's "The build", which says why each is there.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { bundledPackages, compiledIntoJq, noticesText } from '../scripts/notices.mjs';
import { common, dependencies, defines, envPathsUnused, jqOutputAsItComes, lazyChildProcess, root, SIDE_FILES, version, whenExitOnExitOnly, withOwnHome } from './common.mjs';

process.chdir(root);
const requireHere = createRequire(import.meta.url);
/** The metafiles of several builds as one: every input, and every output file but the maps. */
const mergeMeta = (...metas) => ({
  inputs: Object.assign({}, ...metas.map((meta) => meta.inputs)),
  outputs: Object.fromEntries(metas.flatMap((meta) => Object.entries(meta.outputs)).filter(([output]) => !output.endsWith('.map'))),
});

const sideOf = new Map(Object.entries(SIDE_FILES).map(([name, source]) => [source, name]));
// The CLI is CommonJS, which esbuild cannot split: an import (of `kinds`, else any) of a side file's module becomes a require of that file,
// from `prefix`. With `mainInputs`, a module of gymctl's own that the main file holds comes from its registry (added to `shared`).
// A dependency's side file (undici) requires the copy npm installs for the library; build:sea bundles it instead.
const linkSideFiles = ({ prefix, kinds, mainInputs, shared }) => ({
  name: 'link-side-files',
  setup(build) {
    build.onResolve({ filter: /.*/, namespace: 'installed-dependency' }, (args) => ({ path: args.path, external: true }));
    build.onResolve({ filter: /^\.\.\/gymctl\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point') return Object.hasOwn(dependencies, args.path) ? { path: args.path, namespace: 'installed-dependency' } : undefined;
      if (args.pluginData?.resolving) return undefined;
      const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { resolving: true } });
      const input = resolved.path && !resolved.external ? path.relative(root, resolved.path).split(path.sep).join('/') : '';
      const side = sideOf.get(args.path) ?? sideOf.get(input);
      if (side && (!kinds || kinds.includes(args.kind))) return { path: `${prefix}${side}.cjs`, external: true };
      if (!mainInputs?.has(input) || !input.startsWith('src/')) return undefined;
      shared.add(input);
      return { path: input, namespace: 'main-file' };
    });
    const fromMainFile = (input) => `module.exports = require('../gymctl.cjs').__modules[${JSON.stringify(input)}]();`;
    build.onLoad({ filter: /.*/, namespace: 'main-file' }, (args) => ({ contents: fromMainFile(args.path), loader: 'js' }));
    build.onLoad({ filter: /.*/, namespace: 'installed-dependency' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});\n`, loader: 'js' }));
  },
});

// Maps beside the files, not named in them (step 6 moves them); import() becomes a require() made as it runs: no ES loader.
const cli = { ...common, minify: !process.env.NO_MINIFY, metafile: true, sourcemap: 'external', supported: { 'dynamic-import': false } };
const mainFile = (shared) => {
  // Namespace imports, not require(), which esbuild wraps to run on demand: Node 20 then parses it twice (CONTRIBUTING.md, step 4).
  const inputs = [...shared].sort();
  const imports = inputs.map((input, i) => `import * as m${i} from ${JSON.stringify(`./${input}`)};\n`);
  const registry = inputs.map((input, i) => `  ${JSON.stringify(input)}: () => m${i},\n`);
  const contents = `export { main } from './src/cli.ts';\n${imports.join('')}export const __modules = {\n${registry.join('')}};\n`;
  const plugins = [whenExitOnExitOnly, lazyChildProcess, envPathsUnused, linkSideFiles({ prefix: './side/', kinds: ['dynamic-import'] })];
  return { ...cli, stdin: { contents, resolveDir: root, sourcefile: 'src/cli-entry.ts', loader: 'ts' }, outfile: 'dist/gymctl.cjs', plugins };
};
/** Where a side file finds the files it names, from dist/side/. */
const besideDist = { __JQ_WASM__: '../jq.wasm', __JQ_MODULE__: '../jq-wasm.cjs', __KEYRING_AGENT__: '../keyring-agent.cjs', __LICENSES__: '../licenses/THIRD-PARTY-NOTICES' };

// 1. clean: all of dist/ but build:sea's single executable; dist/types/ too, as tsc never removes a declaration it no longer writes
for (const name of existsSync('dist') ? readdirSync('dist') : []) if (name !== 'sea') rmSync(`dist/${name}`, { recursive: true, force: true });

// 2. analyse
const mainInputs = new Set(Object.keys((await build({ ...mainFile([]), write: false })).metafile.inputs));
const folded = [...sideOf.keys()].filter((source) => mainInputs.has(source));
if (folded.length > 0) throw new Error(`the main file imports ${folded.join(', ')} statically: a side file's module is loaded with import() alone`);

// 3. sides
const shared = new Set();
const plugins = [whenExitOnExitOnly, lazyChildProcess, envPathsUnused, linkSideFiles({ prefix: './', mainInputs, shared })];
const define = { ...common.define, ...defines(besideDist), 'import.meta.url': '__importMetaUrl' };
const banner = { js: 'var __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' };
const sides = await build({ ...cli, entryPoints: SIDE_FILES, outdir: 'dist/side', outExtension: { '.js': '.cjs' }, plugins, define, banner });

// 4. main
const main = await build(mainFile(shared));

// 5. others: the start; the keyring agent, the one file that loads the native module; jq, which a worker requires
const others = { ...common, minify: true, metafile: true };
const boot = await build({ ...others, entryPoints: ['src/startup/boot.ts'], outfile: 'dist/boot.cjs' });
const agent = await build({ ...others, entryPoints: ['src/keyring/agent.ts'], outfile: 'dist/keyring-agent.cjs', external: ['@napi-rs/keyring'] });
const jqWasm = await build({ ...others, entryPoints: [requireHere.resolve('jq-wasm')], outfile: 'dist/jq-wasm.cjs', plugins: [jqOutputAsItComes] });
copyFileSync(requireHere.resolve('jq-wasm/jq.wasm'), 'dist/jq.wasm');
cpSync('licenses', 'dist/licenses', { recursive: true });
copyFileSync(requireHere.resolve('jq-wasm/package.json').replace(/package\.json$/, 'LICENSE'), 'dist/licenses/jq-wasm.txt');

// 6. maps, and which source files each file holds (the tests of what a command loads read dist/meta.json)
mkdirSync('dist/maps/side', { recursive: true });
for (const output of Object.keys(mergeMeta(main.metafile, sides.metafile).outputs)) renameSync(`${output}.map`, `dist/maps/${output.slice('dist/'.length)}.map`);
writeFileSync('dist/meta.json', JSON.stringify(mergeMeta(boot.metafile, main.metafile, sides.metafile)));

// 7. help: the top-level help, so that `gymctl --help` loads no parser
const help = withOwnHome((env) => spawnSync(process.execPath, ['bin/gymctl.cjs', '--help'], { encoding: 'utf8', input: '', env }));
if (help.status !== 0 || !help.stdout.startsWith('Usage: gymctl')) throw new Error(`could not write the help: ${help.stderr}`);
writeFileSync('dist/help.txt', help.stdout);

// 8. man page (npm install -g installs it)
const { manPage } = await import('../scripts/manpage.mjs');
writeFileSync('dist/gymctl.1', (await manPage(version)).roff);

// 9. library: its dependencies left to npm; its declarations; then the OpenAPI 3.1 document, from the zod schemas the client validates with
const library = await build({ ...common, format: 'esm', packages: 'external', metafile: true, entryPoints: ['src/index.ts'], outfile: 'dist/index.js' });
writeFileSync('dist/meta-index.json', JSON.stringify(library.metafile));
// Runtimes without the `node` condition get the library on web platform alone: the node-only modules' .web.ts twins.
const twin = ({ resolveDir, path: file }) => ({ path: path.join(resolveDir, file.replace(/js$/, 'web.ts')) });
const webTwins = { name: 'web-twins', setup: (build) => build.onResolve({ filter: /^\.\/(senders|platform)\.js$/ }, twin) };
const web = { ...common, platform: 'browser', target: 'es2022', format: 'esm', packages: 'external', metafile: true, plugins: [webTwins] };
const webLibrary = await build({ ...web, entryPoints: ['src/index.ts'], outfile: 'dist/index.web.js' });
const nodeOnly = Object.values(webLibrary.metafile.outputs).flatMap((output) => output.imports.map((imported) => imported.path));
if (nodeOnly.some((name) => /^(node:|undici$)/.test(name))) throw new Error(`dist/index.web.js imports ${nodeOnly.join(', ')}: the web build takes no Node module`);
const tsc = path.join(path.dirname(requireHere.resolve('typescript/package.json')), 'bin', 'tsc');
if (spawnSync(process.execPath, [tsc, '-p', 'build/tsconfig.types.json'], { stdio: 'inherit' }).status !== 0) throw new Error('tsc wrote no declarations');
// Only the declarations index.d.ts reaches are kept (a Set's loop visits what it adds); one tsc did not write stops the build.
renameSync('dist/types', 'dist/declarations');
const declarations = new Set([path.normalize('dist/declarations/index.d.ts')]);
for (const file of declarations) {
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*["'](\.\.?\/[^"']+)["']/g)) {
    const target = path.join(path.dirname(file), specifier.replace(/\.js$/, '.d.ts'));
    if (!existsSync(target)) throw new Error(`${file} names ${specifier}, for which tsc wrote no declaration (${target})`);
    declarations.add(target);
  }
}
// require('gymctl') gets the very ES module (one copy, so instanceof holds), typed in a folder that says it is CommonJS (TS1479 otherwise).
for (const file of declarations) for (const folder of ['types', 'cjs']) cpSync(file, path.join('dist', folder, path.relative('dist/declarations', file)));
rmSync('dist/declarations', { recursive: true });
writeFileSync('dist/cjs/package.json', '{"type":"commonjs"}\n');
writeFileSync('dist/index.cjs', "module.exports = require('./index.js');\n");
const { openApiDocument } = await import('../dist/index.js');
writeFileSync('dist/openapi.json', `${JSON.stringify(openApiDocument(version), null, 2)}\n`);

// 10. notices: of every package bundled into a shipped file (dist/meta-shipped.json, for the package test), and jq's
const shipped = mergeMeta(boot.metafile, main.metafile, sides.metafile, agent.metafile, jqWasm.metafile, library.metafile, webLibrary.metafile);
writeFileSync('dist/meta-shipped.json', JSON.stringify(shipped));
writeFileSync('dist/licenses/THIRD-PARTY-NOTICES', noticesText(bundledPackages([shipped]), compiledIntoJq()));
